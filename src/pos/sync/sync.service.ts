import type { Executor, Tenant, Trx } from '../../platform/db/database.js'
import { lockConnection } from '../connections/connections.service.js'
import { posErrors } from '../pos.errors.js'
import type { SyncRun } from './sync.schemas.js'
import type { SyncType } from './sync.tables.js'
import { findRun, listRuns, rowToSyncRun } from './sync-runs.repository.js'
import { queueSyncRun } from './sync-queue.js'
import { findConnectionRow } from '../connections/connections.repository.js'
import type { PageRequest } from '../../platform/http/pagination.js'

/**
 * Queues a sync run on a connection; a worker runs it in the background. One run per connection at a
 * time. Throws connection_not_found, sync_in_progress.
 */
export async function triggerSync(trx: Trx, tenant: Tenant, connectionId: string, syncType: SyncType, triggeredBy: string): Promise<SyncRun> {
  await lockConnection(trx, tenant, connectionId)
  return queueSyncRun(trx, tenant, connectionId, syncType, triggeredBy)
}

/** A page of a connection's runs, newest first. Throws connection_not_found. */
export async function listSyncRuns(db: Executor, tenant: Tenant, connectionId: string, page: PageRequest): Promise<{ runs: SyncRun[]; total: number }> {
  const connection = await findConnectionRow(db, tenant, connectionId)
  if (!connection) throw posErrors.connectionNotFound(connectionId)
  const { rows, total } = await listRuns(db, connectionId, page)
  return { runs: rows.map(rowToSyncRun), total }
}

/** A sync run of the tenant. Throws sync_not_found. */
export async function getSyncRun(db: Executor, tenant: Tenant, syncId: string): Promise<SyncRun> {
  const row = await findRun(db, syncId)
  if (!row || row.account_id !== tenant.accountId || row.environment !== tenant.environment) throw posErrors.syncNotFound(syncId)
  return rowToSyncRun(row)
}
