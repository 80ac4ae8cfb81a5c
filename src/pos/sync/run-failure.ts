import type { Trx } from '../../platform/db/database.js'
import type { FinishedSyncRun } from '../../platform/metrics/metrics-registry.js'
import { enqueue } from '../../platform/outbox.js'
import { type ConnectionRow, FREQUENCY_SECONDS, lockConnectionById, updateConnectionRow } from '../connections/connections.repository.js'
import { deleteSourceLines } from '../sales/sales.repository.js'
import { applyStaged, durationMs } from './run-commit.js'
import { asSyncFailure } from './run-errors.js'
import type { PartialFetch } from './run-staging.js'
import { finishRun, lockRun, releaseRun, saveSalesCheckpoint, type SyncRunRow, tenantOfRun } from './sync-runs.repository.js'

/**
 * Keeps what a run read before its vendor failed part way: its lines are applied, the cursor moves past
 * the windows it read whole and its checkpoint is stored for the next run. Answers what the failure's
 * message adds.
 */
async function keepPartialFetch(trx: Trx, run: SyncRunRow, connection: ConnectionRow, partial: PartialFetch): Promise<string> {
  const { salesSynced } = await applyStaged(trx, run, partial.staged)
  if (partial.staged.cursor) await updateConnectionRow(trx, connection.id, { sales_cursor: partial.staged.cursor })
  await saveSalesCheckpoint(trx, connection.id, run.id, partial.checkpoint)
  return `; the ${salesSynced} new lines read before were kept, and the next run ${partial.checkpoint ? 'resumes where this one stopped' : 'reads on from them'}`
}

/**
 * Fails a running run with the code of `error`: its staged lines go, the connection notes an
 * authentication failure, pos.sync_failed is queued. With `partial` (the vendor failed part way through
 * a listing that told where it got to) what it read is kept instead. Returns the finished run, or
 * undefined when it was no longer running.
 */
export async function failRun(trx: Trx, claim: SyncRunRow, error: unknown, partial?: PartialFetch): Promise<FinishedSyncRun | undefined> {
  const run = await lockRun(trx, claim.id)
  // Not running any more, or taken over by another worker since this one claimed it (the outcome is the
  // other worker's to record). The row is locked now, so the finish below cannot be fenced off.
  if (run?.status !== 'processing' || run.attempts !== claim.attempts) return undefined
  const failure = asSyncFailure(error)
  const connection = await lockConnectionById(trx, run.connection_id)
  const now = new Date()
  const duration = durationMs(run, now)
  // The vendor's Retry-After for a rate limit, else the time until the scheduler tries again.
  const retryAfter = failure.code === 'rate_limited' && failure.retryAfterSeconds !== undefined ? failure.retryAfterSeconds : FREQUENCY_SECONDS[connection.sync_frequency]
  let message = failure.message
  if (partial && !connection.deleted_at) message += await keepPartialFetch(trx, run, connection, partial)
  else await deleteSourceLines(trx, run.id)
  await finishRun(trx, claim, {
    status: 'failed',
    completed_at: now,
    duration_ms: duration,
    error_code: failure.code,
    error_message: message,
    retry_after: retryAfter,
  })
  if (failure.code === 'authentication_failed' && connection.status === 'active') {
    await updateConnectionRow(trx, connection.id, { status: 'error' })
  }
  await enqueue(trx, tenantOfRun(run), 'pos.sync_failed', {
    connection_id: connection.id,
    pos_type: connection.pos_type,
    sync_id: run.id,
    error_code: failure.code,
    error_message: message,
    retry_after: retryAfter,
  })
  return { vendor: connection.pos_type, outcome: failure.code, durationMs: duration }
}

/**
 * Puts a run stopped by a shutdown back in the queue: its staged lines go (it reads its window again),
 * its claim is released and its interruptions counted, so the next worker to start (this instance
 * restarted, or another one now) runs it under the same sync_id. Nothing is depleted and no event is
 * sent: the run has not ended.
 */
export async function requeueInterruptedRun(trx: Trx, claim: SyncRunRow): Promise<void> {
  const run = await lockRun(trx, claim.id)
  if (run?.status !== 'processing') return
  await deleteSourceLines(trx, run.id)
  await releaseRun(trx, claim)
}
