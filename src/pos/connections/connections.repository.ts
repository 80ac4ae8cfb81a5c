import type { Selectable } from 'kysely'
import type { Executor, Tenant, Trx } from '../../platform/db/database.js'
import type { PageRequest } from '../../platform/http/pagination.js'
import type { PosConnection, PosConnectionWithStats } from './connections.schemas.js'
import type { PosConnectionTable, SyncFrequency } from './connections.tables.js'
import { pushUrlOf } from '../push/push-setup.js'
import { pageWithTotal } from '../../platform/db/page.js'

export type ConnectionRow = Selectable<PosConnectionTable>

export const FREQUENCY_SECONDS: Record<SyncFrequency, number> = { realtime: 60, hourly: 3600, daily: 86_400 }

export function rowToConnection(row: ConnectionRow): PosConnection {
  return {
    id: row.id,
    pos_type: row.pos_type,
    name: row.name,
    status: row.status,
    location: row.location_id,
    sync_frequency: row.sync_frequency,
    last_sync: row.last_sync?.toISOString() ?? null,
    push_url: pushUrlOf(row.pos_type, row.id),
    push_verification_code: row.push_verification_code,
    sales_reread_hours: row.sales_reread_hours,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

function liveConnections(db: Executor, tenant: Tenant) {
  return db.selectFrom('pos_connections').where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment).where('deleted_at', 'is', null)
}

export async function findConnectionRow(db: Executor, tenant: Tenant, id: string): Promise<ConnectionRow | undefined> {
  return liveConnections(db, tenant).selectAll().where('id', '=', id).executeTakeFirst()
}

/** Locks a live connection: mapping changes and a run's commit serialize on it. */
export async function lockConnectionRow(trx: Trx, tenant: Tenant, id: string): Promise<ConnectionRow | undefined> {
  return liveConnections(trx, tenant).selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
}

/** A connection by id whatever its tenant or state (workers and admin commands). */
export async function findConnectionById(db: Executor, id: string): Promise<ConnectionRow | undefined> {
  return db.selectFrom('pos_connections').selectAll().where('id', '=', id).executeTakeFirst()
}

/**
 * Locks a connection by id whatever its state (a run's commit and failure): a deleted one is locked too,
 * so the run can record why it ended.
 */
export async function lockConnectionById(trx: Trx, id: string): Promise<ConnectionRow> {
  return trx.selectFrom('pos_connections').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow()
}

export async function listConnectionRows(db: Executor, tenant: Tenant, page: PageRequest) {
  return pageWithTotal(liveConnections(db, tenant).selectAll().orderBy('created_at').orderBy('id'), liveConnections(db, tenant), page)
}

export async function insertConnection(trx: Trx, row: Omit<ConnectionRow, 'created_at' | 'updated_at' | 'deleted_at'>): Promise<ConnectionRow> {
  return trx.insertInto('pos_connections').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function updateConnectionRow(trx: Trx, id: string, fields: Partial<Omit<ConnectionRow, 'id'>>): Promise<ConnectionRow> {
  return trx.updateTable('pos_connections').set(fields).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

export async function saveCredentials(db: Executor, id: string, sealed: string): Promise<void> {
  await db.updateTable('pos_connections').set({ credentials: sealed }).where('id', '=', id).execute()
}

/** total_syncs, failed_syncs and the last finished run's duration, from the runs themselves. */
export async function syncStatsOf(db: Executor, connectionId: string): Promise<PosConnectionWithStats['sync_stats']> {
  const [counts, last] = await Promise.all([
    db
      .selectFrom('pos_sync_runs')
      .select((eb) => [eb.fn.countAll<number>().as('total'), eb.fn.countAll<number>().filterWhere('status', '=', 'failed').as('failed')])
      .where('connection_id', '=', connectionId)
      .where('status', '<>', 'processing')
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('pos_sync_runs')
      .select('duration_ms')
      .where('connection_id', '=', connectionId)
      .where('status', '<>', 'processing')
      .orderBy('completed_at', 'desc')
      .limit(1)
      .executeTakeFirst(),
  ])
  return { total_syncs: Number(counts.total), failed_syncs: Number(counts.failed), last_sync_duration_ms: last?.duration_ms ?? null }
}
