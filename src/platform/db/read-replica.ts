import { AsyncLocalStorage } from 'node:async_hooks'
import type { PostgresPool, PostgresPoolClient } from 'kysely'

/**
 * Read replicas (BARSTOCK_REPLICA_URL, docs/operations.md "Read replicas"). A route declares that its
 * reads may be served by a streaming standby (`config.readReplica`); a request on such a route runs in a
 * read scope that says so, and the pool Kysely sees sends the statements run outside a transaction in
 * that scope to the replica, when the replica is known to be a standby no further behind than the bound
 * and the request's key wrote nothing within the read-your-writes window. Everything else (transactions,
 * writes, background work, every other route) runs on the primary.
 */

/** How often the replica's replay position is compared with the primary's. */
export const REPLICA_CHECK_INTERVAL_MS = 500
/** A check older than this no longer vouches for the replica: reads go to the primary until the next one. */
const CHECK_VALID_MS = 2 * REPLICA_CHECK_INTERVAL_MS

/** What the current request allows: set by the read-routing plugin, read by the routed pool. */
export interface ReadScope {
  replica: boolean
  /** Set once a statement of the request ran on the replica (a cached answer's snapshot must be as old as its reads). */
  readReplica?: boolean
}

export const readScope = new AsyncLocalStorage<ReadScope>()

/** A write-ahead-log position ('16/B374D848') as a number that orders positions. */
export function parseLsn(lsn: string): bigint {
  const [high, low] = lsn.split('/')
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`)
}

interface Sample {
  /** When the primary was asked: everything committed before then is at or before `lsn`. */
  at: number
  lsn: bigint
}

/** Why a replica is skipped: not checked yet, no answer, not a standby, too far behind, or a statement failed there. */
export type ReplicaProblem = 'unchecked' | 'unreachable' | 'primary' | 'lagging' | 'failed'

export type ReplicaState = { usable: true; lagMs: number; checkedAt: number } | { usable: false; problem: ReplicaProblem; reason: string; checkedAt: number | undefined }

export interface ReplicaMonitorOptions {
  /** BARSTOCK_REPLICA_MAX_LAG_MS: a replica further behind than this is skipped. */
  maxLagMs: number
  /** The primary's current WAL position (pg_current_wal_lsn()). */
  primaryLsn: () => Promise<string>
  /** The replica's pg_is_in_recovery() and pg_last_wal_replay_lsn(), bounded in time by the caller. */
  replicaPosition: () => Promise<{ standby: boolean; replayed: string | null }>
  /** Told when the replica becomes unusable (with why) and usable again. */
  onChange: (state: ReplicaState) => void
}

/**
 * Measures how far the replica is behind, in time, from the outside: every REPLICA_CHECK_INTERVAL_MS it
 * samples the primary's WAL position, then reads the position the replica has replayed. The lag is the
 * age of the newest primary sample the replica has replayed: it holds every commit the primary had made
 * `lag` before the check. (pg_last_xact_replay_timestamp() would grow on an idle primary, and a replica
 * cut off from its primary would look current by its own positions alone.)
 *
 * Read-your-writes: a key that wrote less than `maxLagMs + CHECK_VALID_MS` ago reads from the primary.
 * A read on the replica is vouched for by a check at most CHECK_VALID_MS old that found the lag within
 * maxLagMs, so the replica holds every commit made before now − CHECK_VALID_MS − maxLagMs: the key's
 * acknowledged write is among them.
 */
export class ReplicaMonitor {
  #samples: Sample[] = []
  #state: ReplicaState = { usable: false, problem: 'unchecked', reason: 'not checked yet', checkedAt: undefined }
  readonly #writes = new Map<string, number>()
  #timer: NodeJS.Timeout | undefined
  #stopped = false

  constructor(private readonly options: ReplicaMonitorOptions) {}

  /** How long after a key's write its reads stay on the primary. */
  get readYourWritesMs(): number {
    return this.options.maxLagMs + CHECK_VALID_MS
  }

  get state(): ReplicaState {
    return this.#state
  }

  /** Checks now, then every REPLICA_CHECK_INTERVAL_MS until stop(). */
  async start(): Promise<ReplicaState> {
    await this.check().catch(this.#checkFailed)
    const next = () => {
      if (this.#stopped) return
      this.#timer = setTimeout(() => void this.check().catch(this.#checkFailed).finally(next), REPLICA_CHECK_INTERVAL_MS)
      this.#timer.unref()
    }
    next()
    return this.#state
  }

  stop(): void {
    this.#stopped = true
    clearTimeout(this.#timer)
  }

  /** Whether a read outside a transaction, by `keyId` (undefined: no key), may go to the replica now. */
  mayRead(keyId: string | undefined, now = Date.now()): boolean {
    const state = this.#state
    if (!state.usable || now - state.checkedAt > CHECK_VALID_MS) return false
    const wrote = keyId === undefined ? undefined : this.#writes.get(keyId)
    return wrote === undefined || now - wrote >= this.readYourWritesMs
  }

  /** A request by `keyId` that may have written was answered: its reads stay on the primary for a while. */
  noteWrite(keyId: string, now = Date.now()): void {
    this.#writes.set(keyId, now)
  }

  /** A statement failed on the replica as unreachable: skipped until a check finds it well again. */
  markFailed(reason: string): void {
    this.#setState({ usable: false, problem: 'failed', reason, checkedAt: this.#state.checkedAt })
  }

  async check(): Promise<void> {
    const sampledAt = Date.now()
    try {
      this.#samples.push({ at: sampledAt, lsn: parseLsn(await this.options.primaryLsn()) })
    } catch {
      // No sample this time: the lag measured below grows until the primary answers again.
    }
    const checkedAt = Date.now()
    let position: { standby: boolean; replayed: string | null }
    try {
      position = await this.options.replicaPosition()
    } catch (error) {
      this.#setState({ usable: false, problem: 'unreachable', reason: `it did not answer (${(error as Error).message})`, checkedAt })
      return
    }
    this.#forgetOldWrites(checkedAt)
    if (!position.standby || position.replayed === null) {
      this.#setState({ usable: false, problem: 'primary', reason: 'it is not a standby in recovery (pg_is_in_recovery() is false): a primary', checkedAt })
      return
    }
    const lagMs = this.#lagAt(parseLsn(position.replayed), checkedAt)
    if (lagMs === undefined || lagMs > this.options.maxLagMs) {
      const behind = lagMs === undefined ? `over ${this.options.maxLagMs}` : `${lagMs}`
      this.#setState({ usable: false, problem: 'lagging', reason: `it is ${behind} ms behind the primary (BARSTOCK_REPLICA_MAX_LAG_MS=${this.options.maxLagMs})`, checkedAt })
      return
    }
    this.#setState({ usable: true, lagMs, checkedAt })
  }

  /**
   * The age at `now` of the newest primary sample the replica has replayed (undefined: none). Kept for
   * later: that sample and the newer ones, unless too old to ever vouch for the replica again.
   */
  #lagAt(replayed: bigint, now: number): number | undefined {
    const newest = this.#samples.findLastIndex((sample) => sample.lsn <= replayed)
    const lagMs = newest < 0 ? undefined : now - (this.#samples[newest] as Sample).at
    const oldestUseful = now - this.options.maxLagMs - CHECK_VALID_MS
    this.#samples = this.#samples.slice(Math.max(newest, 0)).filter((sample) => sample.at >= oldestUseful)
    return lagMs
  }

  /** A check that failed in an unforeseen way (an answer it could not read) vouches for nothing. */
  readonly #checkFailed = (error: Error) => {
    this.#setState({ usable: false, problem: 'unreachable', reason: `its check failed (${error.message})`, checkedAt: Date.now() })
  }

  #forgetOldWrites(now: number): void {
    for (const [keyId, at] of this.#writes) if (now - at >= this.readYourWritesMs) this.#writes.delete(keyId)
  }

  #setState(state: ReplicaState): void {
    const previous = this.#state
    const changed = state.usable ? !previous.usable : previous.usable || previous.problem !== state.problem
    this.#state = state
    if (changed) this.options.onChange(state)
  }
}

/** A failure on the replica that the primary would not have: it is gone or cut, or recovery cancelled the statement. */
export type ReplicaFailureTest = (error: unknown) => boolean

/**
 * The pool Kysely sees when a replica is configured. A connection is chosen at its first statement: a
 * transaction (`begin`, `start transaction`) always runs on the primary; a statement outside one runs
 * on the replica when the request's read scope allows it and the monitor vouches for the replica. A
 * statement the replica fails to answer (unreachable, cut by the stall watch, cancelled by a recovery
 * conflict, refused as a write) is run again on the primary and the replica is skipped until the next
 * check finds it well: the client never sees the replica fail.
 */
export function routedPool(primary: PostgresPool, replica: PostgresPool, monitor: ReplicaMonitor, isReplicaFailure: ReplicaFailureTest): PostgresPool {
  return {
    connect: async () => routedClient(primary, replica, monitor, isReplicaFailure),
    end: async () => {
      await Promise.all([primary.end(), replica.end()])
    },
  }
}

function opensTransaction(text: string): boolean {
  return /^\s*(begin|start\s+transaction)\b/i.test(text)
}

function routedClient(primary: PostgresPool, replica: PostgresPool, monitor: ReplicaMonitor, isReplicaFailure: ReplicaFailureTest): PostgresPoolClient {
  let chosen: PostgresPoolClient | undefined
  const onPrimary = async (text: string, parameters: unknown[]) => {
    chosen = await primary.connect()
    return chosen.query(text, parameters as never)
  }
  const firstStatement = async (text: string, parameters: unknown[]) => {
    // The monitor is asked again at each statement: a report runs for seconds, and the replica may have
    // fallen behind or its last check grown too old meanwhile.
    const scope = readScope.getStore()
    if (opensTransaction(text) || scope?.replica !== true || !monitor.mayRead(undefined)) return onPrimary(text, parameters)
    try {
      chosen = await replica.connect()
      const answer = await chosen.query(text, parameters as never)
      scope.readReplica = true
      return answer
    } catch (error) {
      if (!isReplicaFailure(error)) throw error
      monitor.markFailed(`a statement failed there (${(error as Error).message})`)
      chosen?.release()
      return onPrimary(text, parameters)
    }
  }
  return {
    query: ((text: string, parameters: unknown[]) =>
      chosen === undefined ? firstStatement(text, parameters) : chosen.query(text, parameters as never)) as unknown as PostgresPoolClient['query'],
    release: () => chosen?.release(),
  }
}
