import type { Tenant, Trx } from '../../platform/db/database.js'
import { newId } from '../../platform/ids.js'
import { posErrors } from '../pos.errors.js'
import type { SyncRun } from './sync.schemas.js'
import type { SyncType } from './sync.tables.js'
import { findRunningRun, insertRunUnlessRunning, lastDurationMs, rowToSyncRun } from './sync-runs.repository.js'

/** A first run has nothing to go by: this is a placeholder estimate, replaced by the last run's duration. */
const FIRST_RUN_ESTIMATE_MS = 60_000

/**
 * Queues a sync run on a connection the caller holds locked (or has just created); a worker runs it in
 * the background. One run per connection at a time, enforced by a unique index. Throws sync_in_progress.
 */
export async function queueSyncRun(trx: Trx, tenant: Tenant, connectionId: string, syncType: SyncType, triggeredBy: string): Promise<SyncRun> {
  const estimateMs = (await lastDurationMs(trx, connectionId, syncType)) ?? FIRST_RUN_ESTIMATE_MS
  const row = await insertRunUnlessRunning(trx, {
    id: newId('sync'),
    accountId: tenant.accountId,
    environment: tenant.environment,
    connectionId,
    syncType,
    triggeredBy,
    estimatedCompletion: new Date(Date.now() + Math.max(estimateMs, 1000)),
  })
  if (!row) {
    const running = await findRunningRun(trx, connectionId)
    throw posErrors.syncInProgress([running?.id ?? 'unknown', connectionId], { sync_id: running?.id ?? null })
  }
  return rowToSyncRun(row)
}
