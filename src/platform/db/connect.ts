import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient, sql } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import pg from 'pg'
import type { Database, Db, Trx } from './database.js'
import { FifoGate, TOO_MANY_CONNECTIONS } from './fifo-gate.js'
import { gatedDialect } from './gated-dialect.js'
import { ReplicaMonitor, type ReplicaState, routedPool } from './read-replica.js'
import { applyRoleTimeouts, DatabaseSetupError, sessionTimeoutMismatches } from './session-settings.js'
import { type ProbeResult, type ProbeVerdict, StallWatch } from './stall-watch.js'
import { useFastTimestampParser } from './timestamps.js'

export type Listener = (payload: string) => void

/** The connections of a database pool at one moment. */
export interface PoolUsage {
  /** The most it may open (BARSTOCK_DB_POOL_SIZE; PGlite's one session). */
  max: number
  /** Open now, busy or idle. */
  total: number
  idle: number
  /** Queries (or whole transactions, on PGlite) waiting for a connection. */
  waiting: number
}

/** An open database: Kysely for queries, plus LISTEN/NOTIFY, which Kysely does not cover. */
export interface DatabaseHandle {
  readonly kind: 'pglite' | 'postgres'
  readonly db: Db
  /** Subscribes to a NOTIFY channel; resolves to an unsubscribe function. */
  listen(channel: string, listener: Listener): Promise<() => Promise<void>>
  /** Runs a multi-statement SQL script (a migration) inside the open transaction `trx`. */
  executeScript(trx: Trx, script: string): Promise<void>
  /** The pool's connections now; for PGlite, its one session and the statements queued for it. */
  poolUsage(): PoolUsage
  /** SELECT 1 outside the pool's queue, given the probe timeout in all: what /readyz answers from. */
  probe(): Promise<ProbeResult>
  /** The embedded database only: its data files as a gzipped tar, consistent, taken while it serves. */
  snapshot?(): Promise<Buffer>
  /** With BARSTOCK_REPLICA_URL: whether a request's reads may go to the replica (the read-routing plugin asks). */
  readonly replica?: ReplicaMonitor
  close(): Promise<void>
}

// int8 counts come back as JS numbers (they stay far below 2^53); numeric stays a string for big.js.
pg.types.setTypeParser(20, (value: string) => Number(value))
useFastTimestampParser()

export function pgliteDirectory(dataDir: string): string {
  return join(dataDir, 'pgdata')
}

/** Where the data lives, for logs and messages: the PGlite directory, or PostgreSQL's user@host:port/db (never the password). */
export function describeDatabase(config: { databaseUrl: string | undefined; dataDir: string }): string {
  if (!config.databaseUrl) return `PGlite in ${pgliteDirectory(config.dataDir)}`
  const url = new URL(config.databaseUrl)
  const user = url.username ? `${decodeURIComponent(url.username)}@` : ''
  return `PostgreSQL ${user}${url.hostname}:${url.port || '5432'}${url.pathname}`
}

/** The most statements and transactions that may wait for PGlite's one connection (BARSTOCK_PGLITE_QUEUE_LIMIT). */
export const DEFAULT_PGLITE_QUEUE_LIMIT = 1000

/**
 * Opens the embedded PGlite in `<dataDir>/pgdata`, or an in-memory one when dataDir is undefined. Its one
 * session serves statements and whole transactions one at a time, first come first served (FifoGate);
 * beyond `queueLimit` waiting, a statement is refused and its request answers 503 database_unavailable.
 * `image`, a data directory as `snapshot` writes it (uncompressed or gzip), starts an in-memory database
 * as that copy instead of an empty one.
 */
export async function openPglite(
  dataDir: string | undefined,
  queueLimit = DEFAULT_PGLITE_QUEUE_LIMIT,
  image?: Blob,
  probeMs = DEFAULT_DATABASE_TIMEOUTS.probeMs,
): Promise<DatabaseHandle & Required<Pick<DatabaseHandle, 'snapshot'>>> {
  let location = 'memory://'
  if (dataDir !== undefined) {
    location = pgliteDirectory(dataDir)
    mkdirSync(location, { recursive: true })
  }
  const pglite = await PGlite.create(location, image ? { loadDataDir: image } : {})
  const gate = new FifoGate({ maxWaiting: queueLimit })
  const db: Db = new Kysely<Database>({ dialect: gatedDialect(new PGliteDialect(pglite), gate) })
  return {
    kind: 'pglite',
    db,
    async listen(channel, listener) {
      const unsubscribe = await pglite.listen(channel, listener)
      return () => unsubscribe()
    },
    // PGlite's extended protocol takes one statement per query; exec takes a script. PGlite has a single
    // session, so exec runs inside the transaction Kysely holds open on it.
    async executeScript(_trx, script) {
      await pglite.exec(script)
    },
    poolUsage: () => ({ max: 1, total: 1, idle: gate.busy ? 0 : 1, waiting: gate.waiting }),
    // The one session is in this process: it cannot be cut off, only busy (a long statement, a backup,
    // a full queue); its SELECT 1 waits its turn, and a turn that does not come in time is not ready.
    probe: () =>
      within(
        sql`SELECT 1`.execute(db).then(
          (): ProbeResult => 'ready',
          (): ProbeResult => 'unreachable',
        ),
        probeMs,
        'unreachable',
      ),
    // Inside a transaction Kysely holds, so no other query runs meanwhile (PGlite has one session); the
    // checkpoint first writes every committed change into the data files the tar is made of.
    snapshot: () =>
      db.transaction().execute(async (trx) => {
        await sql`CHECKPOINT`.execute(trx)
        return Buffer.from(await (await pglite.dumpDataDir('gzip')).arrayBuffer())
      }),
    // Destroying Kysely closes PGlite only if a query ran through it; an instance loaded from an image and
    // closed unused would keep the process alive.
    async close() {
      await db.destroy()
      if (!pglite.closed) await pglite.close()
    },
  }
}

export type ErrorReporter = (error: Error, context: string) => void

const reportToStderr: ErrorReporter = (error, context) => {
  process.stderr.write(`barstock: ${context}: ${error.message}\n`)
}

const LISTEN_RECONNECT_MS = 1000
/** How often a LISTEN connection, which otherwise only reads, checks that the server still answers it. */
const LISTEN_HEARTBEAT_MS = 10_000

/**
 * A LISTEN on its own connection that survives the server dropping it: it reconnects, and then calls the
 * listener once with an empty payload, since notifications sent meanwhile were lost. A connection that
 * went silent (a partition, a failover that left it open) would never fail by itself, since it sends
 * nothing: every LISTEN_HEARTBEAT_MS it runs SELECT 1, and one unanswered within `timeouts.probeMs`
 * counts as dropped.
 */
async function resilientListen(
  connectionString: string,
  channel: string,
  listener: Listener,
  reportError: ErrorReporter,
  timeouts: DatabaseTimeouts,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined
  let closed = false
  let retry: NodeJS.Timeout | undefined
  const connect = async () => {
    const next = new pg.Client({ connectionString, connectionTimeoutMillis: timeouts.connectMs })
    next.on('notification', (message) => {
      if (message.channel === channel) listener(message.payload ?? '')
    })
    next.on('error', (error) => {
      reportError(error, `LISTEN ${channel} connection failed; reconnecting`)
      if (client === next) reconnectSoon()
    })
    try {
      await next.connect()
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
    } catch (error) {
      // A connection that failed half-way is torn down, not left to a server that may never answer.
      next.end().catch(() => undefined)
      throw error
    }
    client = next
  }
  const reconnectSoon = () => {
    client = undefined
    if (closed || retry) return
    retry = setTimeout(() => {
      retry = undefined
      connect()
        .then(() => listener(''))
        .catch((error: Error) => {
          reportError(error, `LISTEN ${channel} reconnect failed`)
          reconnectSoon()
        })
    }, LISTEN_RECONNECT_MS)
  }
  const checkAnswers = async () => {
    const current = client
    if (!current) return
    const answered = await within(
      current.query('SELECT 1').then(
        () => true,
        () => false,
      ),
      timeouts.probeMs,
      false,
    )
    if (answered || client !== current) return
    reportError(new Error(`no answer within ${timeouts.probeMs} ms`), `LISTEN ${channel} connection went silent; reconnecting`)
    current.end().catch(() => undefined)
    reconnectSoon()
  }
  const heartbeat = setInterval(() => void checkAnswers(), LISTEN_HEARTBEAT_MS)
  heartbeat.unref()
  try {
    await connect()
  } catch (error) {
    clearInterval(heartbeat)
    throw error
  }
  return async () => {
    closed = true
    clearInterval(heartbeat)
    clearTimeout(retry)
    const current = client
    client = undefined
    await current?.end().catch(() => undefined)
  }
}

/** How long the service waits on PostgreSQL before it gives up (so a lost server fails fast, not never). */
export interface DatabaseTimeouts {
  /** Getting a connection, new or from the pool. */
  connectMs: number
  /** One statement, enforced by the server; the client also gives up a few seconds later. */
  statementMs: number
  /** A transaction left idle, e.g. by a stalled client. */
  idleInTransactionMs: number
  /** A probe (SELECT 1 on a connection of its own): /readyz, and the check of a stalled statement. */
  probeMs: number
  /**
   * A statement without an answer this long has the database probed; when the probe finds it
   * unreachable the statement's connection is cut (a partition: no answer would ever come).
   */
  stallCheckMs: number
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  connectMs: 5_000,
  statementMs: 30_000,
  idleInTransactionMs: 60_000,
  probeMs: 1_500,
  stallCheckMs: 2_000,
}

/**
 * The longest a request waits on a database that went silent before it answers 503: a new connection
 * gives up after connectMs, a statement on an open one is cut once a probe started stallCheckMs after it
 * (or after the silence began) has waited probeMs.
 */
export function unreachableDatabaseBoundMs(timeouts: DatabaseTimeouts): number {
  return Math.max(timeouts.connectMs, timeouts.stallCheckMs + timeouts.probeMs)
}

/** How much later than the server's statement timeout the client stops waiting for an answer. */
const CLIENT_TIMEOUT_SLACK_MS = 5_000

const OBJECT_NOT_IN_PREREQUISITE_STATE = '55000'

/**
 * SQLSTATEs of a server that is going away, not there or full: connection exceptions, operator
 * intervention, too many connections (PostgreSQL's, or PGlite's queue, FifoGate).
 */
const UNAVAILABLE_SQLSTATE = new RegExp(`^(08|57P0[1-3]|${TOO_MANY_CONNECTIONS}$)`)

/**
 * A write refused because the server is in recovery: during a failover the load balancer may send a new
 * connection to the standby being promoted a moment before it accepts writes (measured with HAProxy and
 * Patroni, bench/failover.ts). The primary is not there yet: a retry shortly succeeds.
 */
const READ_ONLY_TRANSACTION = '25006'

/**
 * Whether an error means the database could not be reached or dropped the connection (rather than a
 * fault of the query): a lost connection, a refused or timed-out connect, a server shut down or a
 * connection terminated by an administrator, a statement stopped by the timeouts above or cut because the
 * database stopped answering (StallWatch), a write sent to a server still in recovery (a failover).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const failure = error as { code?: unknown; message?: unknown } | null
  if (!failure || typeof failure !== 'object') return false
  const code = typeof failure.code === 'string' ? failure.code : ''
  if (UNAVAILABLE_SQLSTATE.test(code) || code === '57014' || code === READ_ONLY_TRANSACTION || ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code)) return true
  const message = typeof failure.message === 'string' ? failure.message : ''
  // 55000 is also a statement's wrong state (a bug, 500); at connect it is a database closed to new sessions.
  if (code === OBJECT_NOT_IN_PREREQUISITE_STATE) return /is not currently accepting connections/.test(message)
  return /Connection terminated|timeout exceeded when trying to connect|Query read timeout|is not queryable/.test(message)
}

/** What `promise` resolves to, or `late` if it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, late: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late), ms)
  })
  try {
    return await Promise.race([promise, deadline])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * SELECT 1 on a connection of its own, outside the pool (whose connections may all be busy or stalled),
 * given `timeoutMs` in all; asked about server processes (`backends`), it reads instead which of them run
 * a statement (same role: pg_stat_activity shows their state). A refusal from the server (too many
 * connections, starting up) means it is there; no answer, or a network error, means it is unreachable.
 * pg's own timeouts tear the socket down.
 */
async function probePostgres(connectionString: string, timeoutMs: number, backends: number[]): Promise<ProbeVerdict> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs })
  client.on('error', () => undefined)
  const answer = client
    .connect()
    .then(async (): Promise<ProbeVerdict> => {
      if (backends.length === 0) {
        await client.query('SELECT 1')
        return { result: 'ready' }
      }
      const { rows } = await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE pid = ANY($1::int[]) AND state = 'active'", [backends])
      return { result: 'ready', running: new Set(rows.map((row) => row.pid)) }
    })
    .catch((error: unknown): ProbeVerdict => ({ result: error instanceof pg.DatabaseError ? 'refusing' : 'unreachable' }))
  try {
    return await within(answer, timeoutMs, { result: 'unreachable' })
  } finally {
    client.end().catch(() => undefined)
  }
}

/**
 * The pool as Kysely sees it, each statement watched by `stallWatch`: a stalled one is cut by ending its
 * client (pg then destroys the socket, the statement fails with "Connection terminated", the request
 * answers 503 and the pool drops the client when it is released). Direct connections name their server
 * process (pg's processID, from the server's BackendKeyData); through a pooler that number is the
 * pooler's own, so it is left out.
 */
function watchedPool(pool: pg.Pool, stallWatch: StallWatch, pooled: boolean): PostgresPool {
  const watched = new WeakMap<pg.PoolClient, PostgresPoolClient>()
  const watch = (client: pg.PoolClient): PostgresPoolClient => ({
    query: ((text: string, parameters: unknown[]) =>
      stallWatch.watch(
        client.query(text, parameters),
        () => {
          client.end().catch(() => undefined)
        },
        pooled ? undefined : ((client as unknown as { processID: number | null }).processID ?? undefined),
      )) as unknown as PostgresPoolClient['query'],
    release: () => client.release(),
  })
  return {
    async connect() {
      const client = await pool.connect()
      let wrapped = watched.get(client)
      if (!wrapped) {
        wrapped = watch(client)
        watched.set(client, wrapped)
      }
      return wrapped
    },
    end: () => pool.end(),
  }
}

/**
 * Refuses connections whose timeouts are not the configured ones, unless they come through a pooler
 * (`pooled`), whose server sessions opened before the role's defaults changed keep their settings until
 * they reconnect: then it says so and goes on.
 */
async function checkSessionTimeouts(db: Db, timeouts: DatabaseTimeouts, pooled: boolean, reportError: ErrorReporter): Promise<void> {
  const mismatches = await sessionTimeoutMismatches(db, timeouts)
  if (mismatches.length === 0) return
  const problem = `the database connections do not have the configured timeouts: ${mismatches.join('; ')}`
  if (!pooled) {
    throw new DatabaseSetupError(
      `${problem}. A pooler between drops the settings barstock sends at connect (PgBouncer's ignore_startup_parameters): ` +
        'set BARSTOCK_DIRECT_DATABASE_URL to a direct connection to the same database (docs/operations.md, "Behind PgBouncer")',
    )
  }
  reportError(new Error(`${problem}; server connections the pooler opened before keep theirs until they reconnect (RECONNECT in PgBouncer's console)`), 'database settings')
}

/** A pg pool watched for stalled statements, as Kysely sees it, and the raw pool beneath. */
interface WatchedPostgresPool {
  pool: pg.Pool
  watched: PostgresPool
}

/**
 * A pool on `connectionString` whose statements are watched for a silent server (StallWatch). `pooled`:
 * it leads to a transaction-mode pooler, so no session settings are sent at connect (the role's
 * defaults carry them) and server process ids are not known. `what` names it in error reports.
 */
function openWatchedPool(
  connectionString: string,
  options: { poolSize: number; connectMs: number; timeouts: DatabaseTimeouts; pooled: boolean; what: string },
  reportError: ErrorReporter,
): WatchedPostgresPool {
  const { timeouts, pooled, what } = options
  const sessionTimeouts = pooled ? {} : { statement_timeout: timeouts.statementMs, idle_in_transaction_session_timeout: timeouts.idleInTransactionMs }
  const pool = new pg.Pool({
    connectionString,
    max: options.poolSize,
    connectionTimeoutMillis: options.connectMs,
    ...sessionTimeouts,
    query_timeout: timeouts.statementMs + CLIENT_TIMEOUT_SLACK_MS,
  })
  // A connection can be dropped by the server (a restart, a failover, pg_terminate_backend) while idle in
  // the pool or while a request holds it; an 'error' event without a listener would end the process. The
  // request's own query fails too and answers 503 (isDatabaseUnavailable); the pool replaces the client.
  pool.on('error', (error) => reportError(error, `idle ${what} connection failed`))
  pool.on('connect', (client) => client.on('error', (error) => reportError(error, `${what} connection failed`)))
  const stallWatch = new StallWatch({
    stallMs: timeouts.stallCheckMs,
    probe: (backends) => probePostgres(connectionString, timeouts.probeMs, backends),
    onCut: (statements) => reportError(new Error(`cut the connections of ${statements} statement(s) it never answered`), `${what} silent`),
  })
  return { pool, watched: watchedPool(pool, stallWatch, pooled) }
}

/** Where read replicas are: BARSTOCK_REPLICA_URL and BARSTOCK_REPLICA_MAX_LAG_MS. */
export interface ReplicaSettings {
  url: string
  maxLagMs: number
}

/**
 * A statement the replica failed that the primary can answer instead: the replica is unreachable, gone or
 * cut by the stall watch, it cancelled the statement for a recovery conflict (40001), or refused a write
 * (25006, a route that wrote outside a transaction, counted as unavailable). Not a statement that ran out its time: on the
 * primary it would wait as long again.
 */
function isReplicaFailure(error: unknown): boolean {
  const failure = error as { code?: unknown; message?: unknown } | null
  if (failure?.code === '40001') return true
  const timedOut = failure?.code === '57014' || (typeof failure?.message === 'string' && failure.message.includes('Query read timeout'))
  return isDatabaseUnavailable(error) && !timedOut
}

/**
 * A function running `text` on `pool` and reading its one row, failing after `timeoutMs` without an
 * answer; while an earlier call's statement is still unanswered it fails at once instead of sending
 * another (a silent server would otherwise take up the pool's connections one check at a time).
 */
function boundedSingleQuery<Row, T>(pool: pg.Pool, text: string, timeoutMs: number, read: (row: Row) => T): () => Promise<T> {
  let unanswered: Promise<unknown> | undefined
  return async () => {
    if (unanswered) throw new Error('an earlier check is still unanswered')
    const query = pool.query(text).then((result) => read(result.rows[0] as Row))
    const settled = query.finally(() => {
      unanswered = undefined
    })
    unanswered = settled.catch(() => undefined)
    const answer = await within(
      settled.then((value) => ({ value })),
      timeoutMs,
      undefined,
    )
    if (!answer) throw new Error(`no answer within ${timeoutMs} ms`)
    return answer.value
  }
}

function describeReplicaState(state: ReplicaState): string {
  return state.usable ? `in use (${state.lagMs} ms behind the primary)` : `skipped, reads go to the primary: ${state.reason}`
}

/**
 * The replica's pool and the monitor that vouches for it. One that is a primary stops the start (a
 * configuration mistake: its data would not follow the primary's writes); one that does not answer is
 * skipped until it does (a safe fallback: reads stay on the primary).
 */
async function openReplica(
  settings: ReplicaSettings,
  primary: pg.Pool,
  options: { poolSize: number; timeouts: DatabaseTimeouts; pooled: boolean },
  reportError: ErrorReporter,
): Promise<WatchedPostgresPool & { monitor: ReplicaMonitor }> {
  const { timeouts } = options
  // Waiting longer for a replica connection than a probe would is waiting for nothing: the primary can answer.
  const replica = openWatchedPool(settings.url, { ...options, connectMs: timeouts.probeMs, what: 'read replica' }, reportError)
  const monitor = new ReplicaMonitor({
    maxLagMs: settings.maxLagMs,
    primaryLsn: boundedSingleQuery(primary, 'SELECT pg_current_wal_lsn()::text AS lsn', timeouts.probeMs, (row: { lsn: string }) => row.lsn),
    replicaPosition: boundedSingleQuery(
      replica.pool,
      'SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed',
      timeouts.probeMs,
      (row: { standby: boolean; replayed: string | null }) => row,
    ),
    onChange: (state) => reportError(new Error(describeReplicaState(state)), 'read replica'),
  })
  const state = await monitor.start()
  if (!state.usable && state.problem === 'primary') {
    monitor.stop()
    await replica.pool.end()
    throw new DatabaseSetupError(
      'BARSTOCK_REPLICA_URL leads to a primary, not a streaming standby (pg_is_in_recovery() is false there): its data would not follow the writes on DATABASE_URL. ' +
        'Point it at a standby of that server (docs/operations.md, "Read replicas"), or unset it',
    )
  }
  return { ...replica, monitor }
}

/**
 * Opens a pool on PostgreSQL at `connectionString`. With `directUrl` (BARSTOCK_DIRECT_DATABASE_URL),
 * `connectionString` leads to a transaction-mode pooler: what needs a session of its own (LISTEN) uses
 * `directUrl`, and the server-side timeouts become the role's defaults in the database (applyRoleTimeouts)
 * instead of startup parameters, which PgBouncer refuses. Either way the timeouts the connections really
 * have are checked: a pooler that silently drops them stops the start, unless directUrl says it is one.
 * With `replica`, the reads routes allow go to that streaming standby while it keeps up (read-replica.ts).
 */
export async function openPostgres(
  connectionString: string,
  poolSize: number,
  reportError: ErrorReporter = reportToStderr,
  timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
  directUrl?: string,
  replica?: ReplicaSettings,
): Promise<DatabaseHandle> {
  if (directUrl) await applyRoleTimeouts(directUrl, timeouts)
  const pooled = directUrl !== undefined
  const primary = openWatchedPool(connectionString, { poolSize, connectMs: timeouts.connectMs, timeouts, pooled, what: 'database' }, reportError)
  let readReplica: (WatchedPostgresPool & { monitor: ReplicaMonitor }) | undefined
  try {
    // Behind a pooler the replica's sessions get the timeouts the same way: role defaults replicate.
    if (replica) readReplica = await openReplica(replica, primary.pool, { poolSize, timeouts, pooled }, reportError)
  } catch (error) {
    await primary.pool.end()
    throw error
  }
  const pool = readReplica ? routedPool(primary.watched, readReplica.watched, readReplica.monitor, isReplicaFailure) : primary.watched
  const db: Db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  try {
    await checkSessionTimeouts(db, timeouts, pooled, reportError)
  } catch (error) {
    readReplica?.monitor.stop()
    await db.destroy()
    throw error
  }
  const listeners = new Set<() => Promise<void>>()
  return {
    kind: 'postgres',
    db,
    async listen(channel, listener) {
      const stop = await resilientListen(directUrl ?? connectionString, channel, listener, reportError, timeouts)
      listeners.add(stop)
      return async () => {
        listeners.delete(stop)
        await stop()
      }
    },
    // Without parameters pg uses the simple query protocol, which accepts several statements.
    async executeScript(trx, script) {
      await sql.raw(script).execute(trx)
    },
    poolUsage: () => ({ max: poolSize, total: primary.pool.totalCount, idle: primary.pool.idleCount, waiting: primary.pool.waitingCount }),
    probe: async () => (await probePostgres(connectionString, timeouts.probeMs, [])).result,
    ...(readReplica ? { replica: readReplica.monitor } : {}),
    async close() {
      readReplica?.monitor.stop()
      await Promise.all([...listeners].map((stop) => stop()))
      await db.destroy()
    },
  }
}
