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
   * How long one waits for its turn before it answers 503 database_unavailable: on PostgreSQL the connect
   * timeout, as for a connection; none on the embedded database, whose queue has no time bound either.
   */
  waitMs: number | undefined
}

/** The default bound: half the pool, so the other half stays for reads and the workers. */
export function defaultBulkWriteSlots(poolSize: number): number {
  return Math.max(1, Math.floor(poolSize / 2))
}

/** Runs bulk writes `slots` at a time, the others waiting their turn in arrival order, holding no connection. */
export class BulkWrites {
  readonly #gate: FifoGate
  readonly #waitMs: number | undefined

  constructor(settings: BulkWriteSettings) {
    // The wait is bounded in time, not in length: a queue that long is a wait too long.
    this.#gate = new FifoGate({ slots: settings.slots, maxWaiting: Number.POSITIVE_INFINITY })
    this.#waitMs = settings.waitMs
  }

  /** Runs `write` in its turn; one whose turn does not come within the wait is refused as the database being unavailable. */
  async run<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await this.#gate.run(write, this.#waitMs)
    } catch (error) {
      // Only the wait throws this; the write's own errors go through as they are.
      if (error instanceof GateWaitTimeoutError) throw platformErrors.databaseUnavailable()
      throw error
    }
  }
}
