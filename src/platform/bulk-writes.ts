import { FifoGate, GateWaitTimeoutError } from './db/fifo-gate.js'
import { platformErrors } from './errors.js'

/**
 * How many bulk writes (a sales import: many lines in one long transaction) one process runs at once.
 * Each holds a pooled connection for its whole transaction; without a bound, a burst of them (every bar
 * of a group syncing at once) takes every connection and the reads queue behind them in the pool.
 */
export interface BulkWriteSettings {
  /** Bulk writes at once (BARSTOCK_BULK_WRITE_SLOTS). */
  slots: number
  /**
   * How long one waits for its turn before it answers 503 imports_busy (BARSTOCK_BULK_WRITE_WAIT_MS on
   * PostgreSQL); none on the embedded database, whose queue has no time bound either.
   */
  waitMs: number | undefined
}

/** The default bound: a fifth of the pool (2 of 10), so most of it stays for reads and the workers. */
export function defaultBulkWriteSlots(poolSize: number): number {
  return Math.max(1, Math.floor(poolSize / 5))
}

/** The default wait for a turn: a burst of a few hundred bars' imports is served rather than refused. */
export const DEFAULT_BULK_WRITE_WAIT_MS = 30_000

/** Weight of the latest write in the running mean of their durations. */
const DURATION_WEIGHT = 0.2

/** Runs bulk writes `slots` at a time, the others waiting their turn in arrival order, holding no connection. */
export class BulkWrites {
  readonly #gate: FifoGate
  readonly #slots: number
  readonly #waitMs: number | undefined
  /** Running mean of how long a write holds its place, for Retry-After; undefined before the first. */
  #meanWriteMs: number | undefined

  constructor(settings: BulkWriteSettings) {
    // The wait is bounded in time, not in length: a queue that long is a wait too long.
    this.#gate = new FifoGate({ slots: settings.slots, maxWaiting: Number.POSITIVE_INFINITY })
    this.#slots = settings.slots
    this.#waitMs = settings.waitMs
  }

  /** Runs `write` in its turn; one whose turn does not come within the wait is refused as imports_busy. */
  async run<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await this.#gate.run(() => this.#timed(write), this.#waitMs)
    } catch (error) {
      // Only the wait throws this; the write's own errors go through as they are.
      if (error instanceof GateWaitTimeoutError) throw platformErrors.importsBusy([], { retry_after_seconds: this.#drainSeconds() })
      throw error
    }
  }

  async #timed<T>(write: () => Promise<T>): Promise<T> {
    const started = performance.now()
    try {
      return await write()
    } finally {
      const ms = performance.now() - started
      this.#meanWriteMs = this.#meanWriteMs === undefined ? ms : this.#meanWriteMs + DURATION_WEIGHT * (ms - this.#meanWriteMs)
    }
  }

  /** Seconds until the writes waiting now have had their turns, at the mean duration: when a retry finds a shorter queue. */
  #drainSeconds(): number {
    return Math.max(1, Math.ceil(((this.#gate.waiting / this.#slots) * (this.#meanWriteMs ?? 0)) / 1000))
  }
}
