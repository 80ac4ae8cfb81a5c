import type { Db } from '../../platform/db/database.js'
import type { MetricsReporter } from '../../platform/metrics/metrics-registry.js'
import { keepLease } from '../../platform/jobs.js'
import type { PosGateway } from '../connections/pos-gateway.js'
import { commitRun, type RunResults } from './run-commit.js'
import { asSyncFailure, type SyncRunErrorCode } from './run-errors.js'
import { failRun, requeueInterruptedRun } from './run-failure.js'
import { type FetchOptions, fetchAndStage, type PartialFetch } from './run-staging.js'
import { SYNC_RUN_QUEUE, type SyncRunRow } from './sync-runs.repository.js'

/**
 * One sync run, start to end: its sales windows planned (sales-window.ts), products, staff and sales
 * fetched and staged outside any transaction (run-staging.ts), then ONE transaction applies the whole run
 * (run-commit.ts). A failure deletes the staged lines instead (run-failure.ts), so a failed run leaves no
 * partial depletion and does not move the cursor; except when the vendor failed part way through a
 * listing that told where it got to: then the pages read are applied and the position kept, and the next
 * run lists from there (PartialFetch).
 */

/** How long a claimed run stays with its worker without a heartbeat (the worker extends it every 10 s). */
export const RUN_LEASE_MS = 60_000

export interface RunOptions extends FetchOptions {
  /** Where the finished run is counted. */
  metrics?: MetricsReporter
}

/** How a run ended: for the caller's log. */
export type RunOutcome = ({ status: 'completed' } & RunResults) | { status: 'failed'; error: unknown; code: SyncRunErrorCode } | { status: 'interrupted' }

/**
 * Runs a claimed run to its end: completed, or failed with its error, or (stopped by a shutdown)
 * back in the queue for the next start. Whatever fails once the signal is aborted (the request it
 * cut, or the simulator that closed under it) counts as the interruption, not as the run's failure.
 */
export async function executeSyncRun(db: Db, gateway: PosGateway, run: SyncRunRow, options: RunOptions = {}): Promise<RunOutcome> {
  const stopHeartbeat = keepLease(db, SYNC_RUN_QUEUE, run, RUN_LEASE_MS)
  try {
    return await runToItsEnd(db, gateway, run, options)
  } finally {
    stopHeartbeat()
  }
}

async function runToItsEnd(db: Db, gateway: PosGateway, run: SyncRunRow, options: RunOptions): Promise<RunOutcome> {
  let partial: PartialFetch
  try {
    const fetched = await fetchAndStage(db, gateway, run, options.now?.() ?? new Date(), options)
    if (fetched.status === 'complete') {
      const results = await db.transaction().execute((trx) => commitRun(trx, run, fetched.staged))
      options.metrics?.syncRunFinished({ vendor: results.vendor, outcome: 'completed', durationMs: results.durationMs })
      return { status: 'completed', ...results }
    }
    partial = fetched
  } catch (error) {
    return endUnfinishedRun(db, run, error, options)
  }
  return endUnfinishedRun(db, run, partial.failure, options, partial)
}

/** A run that did not complete: back in the queue when the shutdown stopped it, else failed (keeping a partial fetch's pages). */
async function endUnfinishedRun(db: Db, run: SyncRunRow, error: unknown, options: RunOptions, partial?: PartialFetch): Promise<RunOutcome> {
  if (options.signal?.aborted) {
    await db.transaction().execute((trx) => requeueInterruptedRun(trx, run))
    return { status: 'interrupted' }
  }
  const finished = await db.transaction().execute((trx) => failRun(trx, run, error, partial))
  if (finished) options.metrics?.syncRunFinished(finished)
  return { status: 'failed', error, code: asSyncFailure(error).code }
}
