import type { FastifyBaseLogger } from 'fastify'
import { type RawBuilder, sql } from 'kysely'
import { type BackgroundLoop, startBackgroundLoop } from './background.js'
import type { DatabaseHandle } from './db/connect.js'
import type { Db, Executor } from './db/database.js'
import { notify } from './notify.js'

/**
 * Background jobs: one lease rule over each domain's own table (docs/jobs.md). A queue is a table
 * whose rows carry these three columns beside the domain's own; the SQL below is the only code that
 * reads or writes them.
 */
export interface JobColumns {
  /** When the job is due (null: not queued, e.g. a delivered webhook). */
  next_attempt_at: Date | null
  /** Until when the worker that claimed it holds it (database time); null: nobody holds it. */
  lease_expires_at: Date | null
  /** Claims so far: the attempt number of the current holder, which fences its writes. */
  attempts: number
}

export interface JobQueue<Row extends JobColumns> {
  /** The worker loop's name, in logs. */
  name: string
  table: string
  /** The primary key's columns. */
  key: ReadonlyArray<keyof Row & string>
  /** NOTIFY channel that wakes the queue's workers; none: they only poll. */
  channel?: string
  /** Which rows are work at all (e.g. `job.status = 'pending'`), over the row aliased `job`. */
  ready: RawBuilder<unknown>
  /** Further assignments a claim makes (e.g. a status the API shows while the job runs). */
  onClaim?: RawBuilder<unknown>
  /** Never set: carries the row type, so claims return the domain's rows. */
  readonly rowType?: Row
}

/** A domain's queue over its table, typed by the table's row. */
export function defineJobQueue<Row extends JobColumns>(queue: Omit<JobQueue<Row>, 'rowType'>): JobQueue<Row> {
  return queue
}

/** A claimed row; `abandoned` when the claim took over a lease that expired (its holder died). */
export type ClaimedJob<Row> = Row & { abandoned: boolean }

/** What identifies a claim: the row's key and the attempt number it was claimed with. */
export type JobClaim<Row extends JobColumns> = Pick<Row, 'attempts'> & Partial<Row>

/** Nobody holds the job: never leased, settled, released, or its lease ran out. For a domain's own statements too. */
export function unleased(alias?: string): RawBuilder<boolean> {
  const lease = sql.ref(alias ? `${alias}.lease_expires_at` : 'lease_expires_at')
  return sql<boolean>`(${lease} IS NULL OR ${lease} <= now())`
}

const LEASE_FREE = unleased('job')

function leaseEnd(leaseMs: number): RawBuilder<Date> {
  return sql<Date>`now() + make_interval(secs => ${leaseMs / 1000})`
}

function keyColumns<Row extends JobColumns>(queue: JobQueue<Row>, alias: string): RawBuilder<unknown> {
  return sql.join(queue.key.map((column) => sql.ref(`${alias}.${column}`)))
}

function keyValues<Row extends JobColumns>(queue: JobQueue<Row>, job: Partial<Row>): RawBuilder<unknown> {
  return sql.join(
    queue.key.map((column) => {
      const value = job[column]
      if (value === undefined) throw new Error(`${queue.name}: a job reference without its key column ${column}`)
      return sql`${value}`
    }),
  )
}

/** The claim's attempt still holds the row: nobody took it over since. */
function heldBy<Row extends JobColumns>(queue: JobQueue<Row>, job: JobClaim<Row>): RawBuilder<unknown> {
  return sql`(${keyColumns(queue, 'job')}) = (${keyValues(queue, job)}) AND job.attempts = ${job.attempts}`
}

/** Claims the rows `pick` selects among the ready, unleased ones; rows another worker is claiming are skipped. */
function claimStatement<Row extends JobColumns>(queue: JobQueue<Row>, leaseMs: number, pick: RawBuilder<unknown>) {
  const table = sql.table(queue.table)
  const onClaim = queue.onClaim ? sql`, ${queue.onClaim}` : sql``
  return sql<ClaimedJob<Row>>`
    UPDATE ${table} AS job
    SET lease_expires_at = ${leaseEnd(leaseMs)}, attempts = job.attempts + 1${onClaim}
    FROM (
      SELECT ${keyColumns(queue, 'job')}, job.lease_expires_at IS NOT NULL AS abandoned
      FROM ${table} AS job
      WHERE (${queue.ready}) AND ${LEASE_FREE} ${pick}
      FOR UPDATE OF job SKIP LOCKED) AS due
    WHERE (${keyColumns(queue, 'job')}) = (${keyColumns(queue, 'due')})
    RETURNING job.*, due.abandoned`
}

/**
 * The claim of up to `limit` due jobs, the earliest due first, as a statement a domain may wrap to join
 * what its worker needs (`WITH claimed AS (…) SELECT …`). One statement: the row locks last only as long
 * as it does, and no transaction stays open while the work runs.
 */
export function claimDueStatement<Row extends JobColumns>(queue: JobQueue<Row>, options: { limit: number; leaseMs: number }) {
  return claimStatement(queue, options.leaseMs, sql`AND job.next_attempt_at <= now() ORDER BY job.next_attempt_at LIMIT ${options.limit}`)
}

/** Claims up to `limit` due jobs for `leaseMs`: each counts an attempt and is this worker's until the lease ends. */
export async function claimDueJobs<Row extends JobColumns>(db: Executor, queue: JobQueue<Row>, options: { limit: number; leaseMs: number }) {
  return (await claimDueStatement(queue, options).execute(db)).rows
}

/** Claims one job by its key, due or not, unless another worker holds it. */
export async function claimJob<Row extends JobColumns>(db: Executor, queue: JobQueue<Row>, key: Partial<Row>, leaseMs: number): Promise<ClaimedJob<Row> | undefined> {
  const result = await claimStatement(queue, leaseMs, sql`AND (${keyColumns(queue, 'job')}) = (${keyValues(queue, key)})`).execute(db)
  return result.rows[0]
}

/** The ready jobs nobody holds, the earliest due first (for a domain that decides in code which is due). */
export async function claimableJobs<Row extends JobColumns>(db: Executor, queue: JobQueue<Row>): Promise<Row[]> {
  const result = await sql<Row>`
    SELECT * FROM ${sql.table(queue.table)} AS job
    WHERE (${queue.ready}) AND ${LEASE_FREE}
    ORDER BY job.next_attempt_at, ${keyColumns(queue, 'job')}`.execute(db)
  return result.rows
}

/** Extends the lease of a claim still held; false when another worker took the job over. */
export async function extendLease<Row extends JobColumns>(db: Executor, queue: JobQueue<Row>, job: JobClaim<Row>, leaseMs: number): Promise<boolean> {
  const result = await sql`
    UPDATE ${sql.table(queue.table)} AS job SET lease_expires_at = ${leaseEnd(leaseMs)}
    WHERE ${heldBy(queue, job)}`.execute(db)
  return Number(result.numAffectedRows ?? 0) === 1
}

/**
 * Extends the claim's lease every sixth of it while long work runs, so only a worker that stopped
 * (crashed, cut off) loses its jobs. A failed beat is left to the next one. Returns the stop function.
 */
export function keepLease<Row extends JobColumns>(db: Db, queue: JobQueue<Row>, job: JobClaim<Row>, leaseMs: number): () => void {
  const heartbeat = setInterval(() => void extendLease(db, queue, job, leaseMs).catch(() => undefined), leaseMs / 6)
  return () => clearInterval(heartbeat)
}

type Changes<Row> = { [Column in keyof Row]?: Row[Column] | RawBuilder<Row[Column]> }

function assignments<Row>(changes: Changes<Row>): RawBuilder<unknown>[] {
  return Object.entries(changes).map(([column, value]) => sql`${sql.ref(column)} = ${value}`)
}

/**
 * Ends a claim with the domain's `changes` (its outcome, a retry's next_attempt_at) and frees the lease,
 * unless another worker took the job over meanwhile or `condition` (over `job`) fails. true when written.
 */
export async function settleJob<Row extends JobColumns>(
  db: Executor,
  queue: JobQueue<Row>,
  job: JobClaim<Row>,
  changes: Changes<Row>,
  condition: RawBuilder<unknown> = sql`TRUE`,
): Promise<boolean> {
  const result = await sql`
    UPDATE ${sql.table(queue.table)} AS job
    SET ${sql.join([sql`lease_expires_at = NULL`, ...assignments(changes)])}
    WHERE ${heldBy(queue, job)} AND (${condition})`.execute(db)
  return Number(result.numAffectedRows ?? 0) === 1
}

/** Puts a claimed job back in the queue, due now, with `changes`, and wakes the workers (at commit). */
export async function releaseJob<Row extends JobColumns>(db: Executor, queue: JobQueue<Row>, job: JobClaim<Row>, changes: Changes<Row> = {}): Promise<void> {
  if (await settleJob(db, queue, job, { next_attempt_at: sql<Date>`now()`, ...changes })) await wakeJobWorkers(db, queue)
}

/** Wakes the queue's workers on every instance once the caller's transaction commits. */
export async function wakeJobWorkers<Row extends JobColumns>(db: Executor, queue: JobQueue<Row>): Promise<void> {
  if (queue.channel) await notify(db, queue.channel)
}

/** Ends every lease now: the held jobs are claimable at once, as abandoned. */
async function expireLeases<Row extends JobColumns>(db: Db, queue: JobQueue<Row>): Promise<number> {
  const result = await sql`UPDATE ${sql.table(queue.table)} AS job SET lease_expires_at = now() WHERE job.lease_expires_at > now()`.execute(db)
  return Number(result.numAffectedRows ?? 0)
}

export interface JobLoopOptions<Row extends JobColumns> {
  queue: JobQueue<Row>
  database: DatabaseHandle
  logger: FastifyBaseLogger
  /** How often the queue is polled for jobs that fell due without a NOTIFY (retries, expired leases). */
  intervalMs: number
  /** Claims and runs work; resolves true when there may be more right away. */
  tick: () => Promise<boolean>
}

/**
 * Starts a queue's worker loop: woken by the queue's NOTIFY, polling every intervalMs. On the embedded
 * database, which one process holds, every lease left at start is a dead process's: it ends at once
 * instead of after its length.
 */
export async function startJobLoop<Row extends JobColumns>(options: JobLoopOptions<Row>): Promise<BackgroundLoop> {
  const { queue, database, logger } = options
  if (database.kind === 'pglite') {
    const expired = await expireLeases(database.db, queue)
    if (expired > 0) logger.warn({ queue: queue.name, jobs: expired }, 'jobs a previous process held are claimable again')
  }
  return startBackgroundLoop({ name: queue.name, database, logger, tick: options.tick, intervalMs: options.intervalMs, channel: queue.channel })
}
