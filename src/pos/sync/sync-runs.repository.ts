import { type Selectable, sql } from 'kysely'
import type { Executor, Tenant, Trx } from '../../platform/db/database.js'
import { type ClaimedJob, claimDueJobs, defineJobQueue, releaseJob, settleJob, wakeJobWorkers } from '../../platform/jobs.js'
import type { PosSyncRunTable, SyncType } from './sync.tables.js'
import type { SyncRun } from './sync.schemas.js'

export type SyncRunRow = Selectable<PosSyncRunTable>

/**
 * Sync runs as a job queue: a processing run is work. Its worker extends the lease while the run goes
 * on; a run whose lease ran out lost its worker (crashed, cut off), and the worker that claims it next
 * fails it as interrupted.
 */
export const SYNC_RUN_QUEUE = defineJobQueue<SyncRunRow>({
  name: 'pos-sync',
  table: 'pos_sync_runs',
  key: ['id'],
  channel: 'barstock_pos_sync',
  ready: sql`job.status = 'processing'`,
})

/** The tenant a run works for. */
export function tenantOfRun(run: SyncRunRow): Tenant {
  return { accountId: run.account_id, environment: run.environment }
}

export function rowToSyncRun(row: SyncRunRow): SyncRun {
  const finished = row.status !== 'processing'
  return {
    sync_id: row.id,
    connection_id: row.connection_id,
    status: row.status,
    sync_type: row.sync_type,
    started_at: row.started_at.toISOString(),
    estimated_completion: row.estimated_completion.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
    duration_seconds: row.duration_ms === null ? null : Math.round(row.duration_ms / 1000),
    results:
      finished && row.status === 'completed'
        ? { sales_synced: row.sales_synced ?? 0, products_synced: row.products_synced ?? 0, variance_detected: row.variance_detected ?? 0 }
        : null,
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
    interruptions: row.interruptions,
  }
}

export interface NewRun {
  id: string
  accountId: string
  environment: SyncRunRow['environment']
  connectionId: string
  syncType: SyncType
  triggeredBy: string
  estimatedCompletion: Date
}

/** Inserts a run unless one is already running on the connection (the partial unique index decides). */
export async function insertRunUnlessRunning(trx: Trx, run: NewRun): Promise<SyncRunRow | undefined> {
  const row = await trx
    .insertInto('pos_sync_runs')
    .values({
      id: run.id,
      account_id: run.accountId,
      environment: run.environment,
      connection_id: run.connectionId,
      sync_type: run.syncType,
      status: 'processing',
      triggered_by: run.triggeredBy,
      estimated_completion: run.estimatedCompletion,
    })
    .onConflict((conflict) => conflict.column('connection_id').where('status', '=', 'processing').doNothing())
    .returningAll()
    .executeTakeFirst()
  if (row) await wakeJobWorkers(trx, SYNC_RUN_QUEUE)
  return row
}

export async function findRunningRun(db: Executor, connectionId: string): Promise<SyncRunRow | undefined> {
  return db.selectFrom('pos_sync_runs').selectAll().where('connection_id', '=', connectionId).where('status', '=', 'processing').executeTakeFirst()
}

/** A page of a connection's runs, newest first, and how many there are. */
export async function listRuns(db: Executor, connectionId: string, page: { perPage: number; offset: number }): Promise<{ rows: SyncRunRow[]; total: number }> {
  const runs = db.selectFrom('pos_sync_runs').where('connection_id', '=', connectionId)
  const rows = await runs.selectAll().orderBy('started_at', 'desc').orderBy('id', 'desc').limit(page.perPage).offset(page.offset).execute()
  const { total } = await runs.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow()
  return { rows, total: Number(total) }
}

export async function findRun(db: Executor, id: string): Promise<SyncRunRow | undefined> {
  return db.selectFrom('pos_sync_runs').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function lockRun(trx: Trx, id: string): Promise<SyncRunRow | undefined> {
  return trx.selectFrom('pos_sync_runs').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
}

/** How long the connection's last completed run of this type took, for the next estimate. */
export async function lastDurationMs(db: Executor, connectionId: string, syncType: SyncType): Promise<number | undefined> {
  const row = await db
    .selectFrom('pos_sync_runs')
    .select('duration_ms')
    .where('connection_id', '=', connectionId)
    .where('sync_type', '=', syncType)
    .where('status', '=', 'completed')
    .orderBy('completed_at', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row?.duration_ms ?? undefined
}

/** Claims the run queued first for `leaseMs`; SKIP LOCKED lets any number of workers share the queue. */
export async function claimNextRun(db: Executor, leaseMs: number): Promise<ClaimedJob<SyncRunRow> | undefined> {
  const [run] = await claimDueJobs(db, SYNC_RUN_QUEUE, { limit: 1, leaseMs })
  return run
}

/** Returns a claimed run to the queue (a shutdown stopped it), counting the interruption, and wakes the workers. */
export async function releaseRun(trx: Trx, run: SyncRunRow): Promise<void> {
  await releaseJob(trx, SYNC_RUN_QUEUE, run, { interruptions: sql<number>`job.interruptions + 1` })
}

/** Ends a claimed run with its outcome; false when another worker took it over meanwhile. */
export async function finishRun(trx: Trx, run: SyncRunRow, fields: Partial<Omit<SyncRunRow, 'id'>>): Promise<boolean> {
  return settleJob(trx, SYNC_RUN_QUEUE, run, { ...fields, next_attempt_at: null })
}

/** Where a failed run's sales listing stopped: its window and the adapter's position in it. */
export interface SalesCheckpoint {
  window: { start: Date; end: Date }
  position: string
}

export async function findSalesCheckpoint(db: Executor, connectionId: string): Promise<SalesCheckpoint | undefined> {
  const row = await db.selectFrom('pos_listing_checkpoints').selectAll().where('connection_id', '=', connectionId).where('listing', '=', 'sales').executeTakeFirst()
  return row && { window: { start: row.window_start, end: row.window_end }, position: row.position }
}

/** Stores where the run's sales listing stopped (replacing any older checkpoint), or forgets it (undefined). */
export async function saveSalesCheckpoint(trx: Trx, connectionId: string, runId: string, checkpoint: SalesCheckpoint | undefined): Promise<void> {
  if (!checkpoint) {
    await trx.deleteFrom('pos_listing_checkpoints').where('connection_id', '=', connectionId).where('listing', '=', 'sales').execute()
    return
  }
  const fields = { window_start: checkpoint.window.start, window_end: checkpoint.window.end, position: checkpoint.position, saved_by: runId, saved_at: new Date() }
  await trx
    .insertInto('pos_listing_checkpoints')
    .values({ connection_id: connectionId, listing: 'sales', ...fields })
    .onConflict((conflict) => conflict.columns(['connection_id', 'listing']).doUpdateSet(fields))
    .execute()
}
