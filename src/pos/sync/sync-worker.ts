import type { FastifyBaseLogger } from 'fastify'
import type { BackgroundLoop, WorkerDependencies } from '../../platform/background.js'
import { startBackgroundLoop } from '../../platform/background.js'
import type { Db } from '../../platform/db/database.js'
import { type ClaimedJob, startJobLoop } from '../../platform/jobs.js'
import type { MetricsReporter } from '../../platform/metrics/metrics-registry.js'
import { FREQUENCY_SECONDS } from '../connections/connections.repository.js'
import { PosGateway } from '../connections/pos-gateway.js'
import { closeSandboxSimulators } from '../connections/sandbox-simulators.js'
import { SyncFailure } from './run-errors.js'
import { failRun } from './run-failure.js'
import { executeSyncRun, RUN_LEASE_MS, type RunOutcome } from './sync-runner.js'
import { claimNextRun, insertRunUnlessRunning, SYNC_RUN_QUEUE, type SyncRunRow } from './sync-runs.repository.js'
import { newId } from '../../platform/ids.js'

const WORKER_INTERVAL_MS = 5_000
const SCHEDULER_INTERVAL_MS = 15_000
const SCHEDULE_BATCH = 100

/**
 * Fails a run whose worker died (its lease ran out before it finished) as interrupted, as docs/pos.md
 * says: whoever triggered it learns from the run and pos.sync_failed, and the schedule queues the next.
 */
async function failAbandonedRun(db: Db, run: ClaimedJob<SyncRunRow>, logger: FastifyBaseLogger, metrics?: MetricsReporter): Promise<void> {
  const interrupted = new SyncFailure('interrupted', 'The run was interrupted (the service stopped or crashed); sync again')
  const finished = await db.transaction().execute((trx) => failRun(trx, run, interrupted))
  if (finished) metrics?.syncRunFinished(finished)
  logger.warn({ sync_id: run.id, connection_id: run.connection_id }, 'failed a POS sync run whose worker stopped (crashed or cut off)')
}

function logRunOutcome(logger: FastifyBaseLogger, run: SyncRunRow, outcome: RunOutcome): void {
  const about = { sync_id: run.id, connection_id: run.connection_id, sync_type: run.sync_type }
  if (outcome.status === 'completed') {
    const { salesSynced, productsSynced, varianceDetected, durationMs, correctionsSetAside } = outcome
    const results = {
      sales_synced: salesSynced,
      products_synced: productsSynced,
      variance_detected: varianceDetected,
      duration_ms: durationMs,
      ...(correctionsSetAside > 0 && { corrections_of_archived_lines: correctionsSetAside }),
    }
    logger.info({ ...about, ...results }, 'POS sync run completed')
  } else if (outcome.status === 'failed') {
    logger.warn({ ...about, error_code: outcome.code, err: outcome.error }, 'POS sync run failed')
  } else {
    logger.info(about, 'POS sync run interrupted by the shutdown; it runs again at the next start')
  }
}

/**
 * The worker that runs queued sync runs, one at a time per instance; claims use SKIP LOCKED, so each
 * run happens once across instances. A run whose worker died is failed by the worker that claims it
 * next. Tests may pass a gateway of their own (a scripted vendor).
 */
export async function startPosSyncWorker(deps: WorkerDependencies, gateway = new PosGateway(deps.config)): Promise<BackgroundLoop> {
  const { db } = deps.database
  // Aborted by stop(): the run in progress is put back in the queue instead of running on or failing.
  const shutdown = new AbortController()
  const loop = await startJobLoop({
    queue: SYNC_RUN_QUEUE,
    database: deps.database,
    logger: deps.logger,
    intervalMs: WORKER_INTERVAL_MS,
    async tick() {
      const run = await claimNextRun(db, RUN_LEASE_MS)
      if (!run) return false
      if (run.abandoned) {
        await failAbandonedRun(db, run, deps.logger, deps.metrics)
        return true
      }
      const outcome = await executeSyncRun(db, gateway, run, { now: deps.clock, wait: deps.wait, metrics: deps.metrics, signal: shutdown.signal })
      logRunOutcome(deps.logger, run, outcome)
      return true
    },
  })
  return {
    wake: loop.wake,
    async stop() {
      shutdown.abort()
      await loop.stop()
      await closeSandboxSimulators()
    },
  }
}

/** Queues an incremental run for every connection that is due and moves its next run on. Returns how many were due. */
export async function scheduleDueSyncs(db: Db, now = new Date()): Promise<number> {
  return db.transaction().execute(async (trx) => {
    // SKIP LOCKED: instances running the scheduler at once each take different connections.
    const due = await trx
      .selectFrom('pos_connections')
      .select(['id', 'account_id', 'environment', 'sync_frequency'])
      .where('deleted_at', 'is', null)
      .where('status', '<>', 'inactive')
      .where('next_sync_at', '<=', now)
      .orderBy('next_sync_at')
      .limit(SCHEDULE_BATCH)
      .forUpdate()
      .skipLocked()
      .execute()
    for (const connection of due) {
      const intervalMs = FREQUENCY_SECONDS[connection.sync_frequency] * 1000
      // A run still going keeps its place: the next one is queued at the following tick of the schedule.
      await insertRunUnlessRunning(trx, {
        id: newId('sync'),
        accountId: connection.account_id,
        environment: connection.environment,
        connectionId: connection.id,
        syncType: 'incremental',
        triggeredBy: 'scheduler',
        estimatedCompletion: new Date(now.getTime() + Math.min(intervalMs, 60_000)),
      })
      await trx
        .updateTable('pos_connections')
        .set({ next_sync_at: new Date(now.getTime() + intervalMs) })
        .where('id', '=', connection.id)
        .execute()
    }
    return due.length
  })
}

/** The scheduler of hourly, daily and realtime (polled every minute) connections. */
export async function startPosScheduler(deps: WorkerDependencies): Promise<BackgroundLoop> {
  const { db } = deps.database
  return startBackgroundLoop({
    name: 'pos-scheduler',
    database: deps.database,
    logger: deps.logger,
    intervalMs: SCHEDULER_INTERVAL_MS,
    async tick() {
      return (await scheduleDueSyncs(db)) === SCHEDULE_BATCH
    },
  })
}
