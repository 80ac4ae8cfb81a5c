import { type Selectable, sql } from 'kysely'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import type { PageRequest } from '../platform/http/pagination.js'
import { unleased } from '../platform/jobs.js'
import type { CreatedWebhook, Delivery, ListDeliveriesQuery, UpdatedWebhook, WebhookDetail, WebhookSummary } from './webhooks.schemas.js'
import type { WebhookDeliveryAttemptTable, WebhookDeliveryTable, WebhookStatus, WebhookTable } from './webhooks.tables.js'
import { pageWithTotal } from '../platform/db/page.js'

export type WebhookRow = Selectable<WebhookTable>
export type DeliveryRow = Selectable<WebhookDeliveryTable>
type AttemptRow = Selectable<WebhookDeliveryAttemptTable>

const iso = (value: Date | null) => (value ? value.toISOString() : null)

export function rowToSummary(row: WebhookRow): WebhookSummary {
  return { id: row.id, url: row.url, events: row.events, status: row.status, created_at: row.created_at.toISOString() }
}

export function rowToCreated(row: WebhookRow): CreatedWebhook {
  return { ...rowToSummary(row), secret: row.secret }
}

export function rowToDetail(row: WebhookRow): WebhookDetail {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    status: row.status,
    delivery_stats: {
      total_delivered: Number(row.total_delivered),
      total_failed: Number(row.total_failed),
      last_delivery: iso(row.last_delivery_at),
    },
    created_at: row.created_at.toISOString(),
  }
}

export function rowToUpdated(row: WebhookRow): UpdatedWebhook {
  return { id: row.id, events: row.events, status: row.status, updated_at: row.updated_at.toISOString() }
}

function rowToDelivery(row: DeliveryRow, attempts: AttemptRow[]): Delivery {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event: row.event_kind,
    status: row.status,
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    created_at: row.created_at.toISOString(),
    completed_at: iso(row.completed_at),
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      attempted_at: attempt.attempted_at.toISOString(),
      status_code: attempt.status_code,
      duration_ms: attempt.duration_ms,
      error: attempt.error,
    })),
  }
}

function liveWebhooks(db: Executor, tenant: Tenant) {
  return db.selectFrom('webhooks').where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment).where('deleted_at', 'is', null)
}

export async function findWebhookRow(db: Executor, tenant: Tenant, id: string): Promise<WebhookRow | undefined> {
  return liveWebhooks(db, tenant).selectAll().where('id', '=', id).executeTakeFirst()
}

/** Locks a webhook row; NO KEY UPDATE does not hold up transactions fanning events out to it. */
export async function lockWebhookRow(trx: Trx, tenant: Tenant, id: string): Promise<WebhookRow | undefined> {
  return liveWebhooks(trx, tenant).selectAll().where('id', '=', id).forNoKeyUpdate().executeTakeFirst()
}

export async function listWebhookRows(db: Executor, tenant: Tenant, page: PageRequest) {
  return pageWithTotal(liveWebhooks(db, tenant).selectAll().orderBy('created_at').orderBy('id'), liveWebhooks(db, tenant), page)
}

export async function insertWebhook(trx: Trx, tenant: Tenant, values: { id: string; url: string; events: string[]; secret: string }): Promise<WebhookRow> {
  return trx
    .insertInto('webhooks')
    .values({ ...values, account_id: tenant.accountId, environment: tenant.environment, status: 'active' })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function updateWebhookRow(
  trx: Trx,
  id: string,
  fields: { events?: string[]; status?: WebhookStatus; failing_since?: null; deleted_at?: Date; secret?: string },
): Promise<WebhookRow> {
  return trx
    .updateTable('webhooks')
    .set({ ...fields, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** Cancels the deliveries of these webhooks that are still waiting (not one in flight right now). */
export async function cancelPendingDeliveries(trx: Trx, webhookIds: string[]): Promise<void> {
  if (webhookIds.length === 0) return
  await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'cancelled', next_attempt_at: null, completed_at: new Date() })
    .where('webhook_id', 'in', webhookIds)
    .where('status', '=', 'pending')
    .where(unleased())
    .execute()
}

async function attemptsOf(db: Executor, deliveryIds: string[]): Promise<Map<string, AttemptRow[]>> {
  const byDelivery = new Map<string, AttemptRow[]>(deliveryIds.map((id) => [id, []]))
  if (deliveryIds.length === 0) return byDelivery
  const rows = await db.selectFrom('webhook_delivery_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('delivery_id').orderBy('attempt').execute()
  for (const row of rows) byDelivery.get(row.delivery_id)?.push(row)
  return byDelivery
}

function deliveriesOf(db: Executor, tenant: Tenant, webhookId: string) {
  return db.selectFrom('webhook_deliveries').where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment).where('webhook_id', '=', webhookId)
}

export async function listDeliveryRows(db: Executor, tenant: Tenant, webhookId: string, query: ListDeliveriesQuery, page: PageRequest) {
  let select = deliveriesOf(db, tenant, webhookId)
  if (query.status) select = select.where('status', '=', query.status)
  const { rows, total } = await pageWithTotal(select.selectAll().orderBy('sequence', 'desc'), select, page)
  const attempts = await attemptsOf(
    db,
    rows.map((row) => row.id),
  )
  return { deliveries: rows.map((row) => rowToDelivery(row, attempts.get(row.id) ?? [])), total }
}

export async function findDelivery(db: Executor, tenant: Tenant, webhookId: string, id: string): Promise<Delivery | undefined> {
  const row = await deliveriesOf(db, tenant, webhookId).selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) return undefined
  return rowToDelivery(row, (await attemptsOf(db, [id])).get(id) ?? [])
}

/**
 * Makes a delivery due now with a fresh retry window. One in flight keeps its lease, so it is never sent
 * twice at once. Returns false when the delivery does not exist.
 */
export async function rescheduleDelivery(trx: Trx, tenant: Tenant, webhookId: string, id: string): Promise<boolean> {
  const result = await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: sql<Date>`now()`, retry_started_at: sql<Date>`now()`, completed_at: null })
    .where('account_id', '=', tenant.accountId)
    .where('environment', '=', tenant.environment)
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Inserts a delivery that is not an outbox event's (a ping), due now; returns its id. */
export async function insertPingDelivery(trx: Trx, tenant: Tenant, values: { webhookId: string; eventId: string; kind: string }) {
  const row = await trx
    .insertInto('webhook_deliveries')
    .values({
      account_id: tenant.accountId,
      environment: tenant.environment,
      webhook_id: values.webhookId,
      event_id: values.eventId,
      event_kind: values.kind,
      next_attempt_at: sql<Date>`now()`,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}
