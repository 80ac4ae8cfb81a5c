import type { FastifyBaseLogger } from 'fastify'
import type { BackgroundLoop } from '../platform/background.js'
import { startBackgroundLoop } from '../platform/background.js'
import type { Db } from '../platform/db/database.js'
import type { MetricsReporter } from '../platform/metrics/metrics-registry.js'
import type { WorkerDependencies } from '../platform/background.js'
import { FREQUENCY_SECONDS } from './connections.repository.js'
import { PosGateway } from './pos-gateway.js'
import { closeSandboxSimulators } from './sandbox-simulators.js'
import { executeSyncRun, failRun, type RunOutcome, SyncFailure } from './sync-runner.js'
import { claimNextRun, findOrphanedRunIds, insertRunUnlessRunning, POS_SYNC_CHANNEL, type SyncRunRow } from './sync-runs.repository.js'
import { newId } from '../platform/ids.js'

/** A worker that stopped touching its run for this long is gone (crashed or cut off). */
const ORPHAN_AFTER_MS = 60_000
const WORKER_INTERVAL_MS = 5_000
const SCHEDULER_INTERVAL_MS = 15_000
const SCHEDULE_BATCH = 100

/** Fails runs whose worker died: all claimed runs on the embedded database at start-up, stale ones otherwise. */
export async function failOrphanedRuns(db: Db, staleBefore: Date | undefined, metrics?: MetricsReporter): Promise<number> {
  const ids = await findOrphanedRunIds(db, staleBefore)
  for (const id of ids) {
    const interrupted = new SyncFailure('interrupted', 'The run was interrupted (the service stopped or crashed); sync again')
    const finished = await db.transaction().execute((trx) => failRun(trx, id, interrupted))
    if (finished) metrics?.syncRunFinished(finished)
  }
  return ids.length
}

function logRunOutcome(logger: FastifyBaseLogger, run: SyncRunRow, outcome: RunOutcome): void {
  const about = { sync_id: run.id, connection_id: run.connection_id, sync_type: run.sync_type }
  if (outcome.status === 'completed') {
    const { salesSynced, productsSynced, varianceDetected, durationMs } = outcome
    const results = { sales_synced: salesSynced, products_synced: productsSynced, variance_detected: varianceDetected, duration_ms: durationMs }
    logger.info({ ...about, ...results }, 'POS sync run completed')
  } else if (outcome.status === 'failed') {
    logger.warn({ ...about, error_code: outcome.code, err: outcome.error }, 'POS sync run failed')
  } else {
    logger.info(about, 'POS sync run interrupted by the shutdown; it runs again at the next start')
  }
}

/**
 * The worker that runs queued sync runs, one at a time per instance; claims use SKIP LOCKED, so each
 * run happens once across instances. At start it fails the runs a crash left behind. Tests may pass a
 * gateway of their own (a scripted vendor).
 */
export async function startPosSyncWorker(deps: WorkerDependencies, gateway = new PosGateway(deps.config)): Promise<BackgroundLoop> {
  const { db } = deps.database
  // PGlite is held by one process: a claimed run at start-up cannot have a live worker anywhere.
  const staleBefore = deps.database.kind === 'pglite' ? undefined : new Date(Date.now() - ORPHAN_AFTER_MS)
  const orphans = await failOrphanedRuns(db, staleBefore, deps.metrics)
  if (orphans > 0) deps.logger.warn({ orphans }, 'failed POS sync runs a crash left behind')
  // Aborted by stop(): the run in progress is put back in the queue instead of running on or failing.
  const shutdown = new AbortController()
  const loop = await startBackgroundLoop({
    name: 'pos-sync',
    database: deps.database,
    logger: deps.logger,
    channel: POS_SYNC_CHANNEL,
    intervalMs: WORKER_INTERVAL_MS,
    async tick() {
      const run = await claimNextRun(db)
      if (!run) return false
      const outcome = await executeSyncRun(db, gateway, run, { now: deps.clock, metrics: deps.metrics, signal: shutdown.signal })
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
      await trx.updateTable('pos_connections').set({ next_sync_at: new Date(now.getTime() + intervalMs) }).where('id', '=', connection.id).execute()
    }
    return due.length
  })
}

/**
 * The scheduler of hourly, daily and realtime (polled every minute) connections, plus the sweep that
 * fails runs whose worker stopped beating.
 */
export async function startPosScheduler(deps: WorkerDependencies): Promise<BackgroundLoop> {
  const { db } = deps.database
  return startBackgroundLoop({
    name: 'pos-scheduler',
    database: deps.database,
    logger: deps.logger,
    intervalMs: SCHEDULER_INTERVAL_MS,
    async tick() {
      await failOrphanedRuns(db, new Date(Date.now() - ORPHAN_AFTER_MS), deps.metrics)
      return (await scheduleDueSyncs(db)) === SCHEDULE_BATCH
    },
  })
}
