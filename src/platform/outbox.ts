import type { Insertable } from 'kysely'
import type { Static, TSchema } from 'typebox'
import type { Executor, OutboxEventTable, Tenant, Trx } from './db/database.js'
import { newId } from './ids.js'

/**
 * The events of the spec, by kind, with their `data`. Each domain adds its kinds to this interface with
 * declaration merging, so the platform never imports a domain.
 */
export interface EventCatalog {}

export type EventKind = keyof EventCatalog & string

/**
 * The `data` types of a domain's event schemas by kind: a domain adds its events to the catalogue with
 * `interface EventCatalog extends EventDataOf<typeof itsEvents> {}`, so each kind is listed once.
 */
export type EventDataOf<Events extends Record<string, TSchema>> = { [Kind in keyof Events]: Static<Events[Kind]> }

/**
 * NOTIFY channel that wakes the webhook dispatchers when a committed event made deliveries. The
 * webhooks' fan-out trigger sends it (migrations/20261126160000_webhook_fan_out_wakes.sql), only for an
 * event some webhook subscribes to.
 */
export const OUTBOX_CHANNEL = 'barstock_outbox'

export interface OutboxEvent<K extends EventKind = EventKind> {
  id: string
  kind: K
  data: EventCatalog[K]
  created_at: string
}

/** The outbox row of an event, for a caller that writes it within a larger statement (see setStock). */
export function outboxRow<K extends EventKind>(tenant: Tenant, kind: K, data: EventCatalog[K]): Insertable<OutboxEventTable> {
  return { id: newId('evt'), account_id: tenant.accountId, environment: tenant.environment, kind, data: JSON.stringify(data) }
}

/**
 * Writes an event in the caller's transaction: it exists exactly when the change that caused it
 * commits, and so do its deliveries and the wake-up of the dispatchers (the fan-out trigger's).
 */
export async function enqueue<K extends EventKind>(trx: Trx, tenant: Tenant, kind: K, data: EventCatalog[K]): Promise<string> {
  const row = outboxRow(tenant, kind, data)
  await trx.insertInto('outbox_events').values(row).execute()
  return row.id
}

/** The tenant's events, oldest first (used by tests and, later, the dispatcher). */
export async function listEvents(db: Executor, tenant: Tenant, kind?: EventKind): Promise<OutboxEvent[]> {
  let query = db
    .selectFrom('outbox_events')
    .select(['id', 'kind', 'data', 'created_at'])
    .where('account_id', '=', tenant.accountId)
    .where('environment', '=', tenant.environment)
    .orderBy('sequence')
  if (kind) query = query.where('kind', '=', kind)
  const rows = await query.execute()
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind as EventKind,
    data: row.data as never,
    created_at: row.created_at.toISOString(),
  }))
}
