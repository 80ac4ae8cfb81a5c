/** SQLSTATE too_many_connections: what PostgreSQL answers when it takes no more clients. */
export const TOO_MANY_CONNECTIONS = '53300'

/** Refuses a caller that finds the gate's queue full; the service answers it 503 database_unavailable. */
export class GateQueueFullError extends Error {
  readonly code = TOO_MANY_CONNECTIONS

  constructor(maxWaiting: number) {
    super(`${maxWaiting} callers already wait for the database connection`)
    this.name = 'GateQueueFullError'
  }
}

export interface FifoGateOptions {
  /** The most callers that may wait; the next one is refused at once with GateQueueFullError. */
  maxWaiting: number
  /** Runs a grant in a later macrotask (setImmediate unless a test scripts it). */
  defer?: (grant: () => void) => void
}

/**
 * Exclusive use of one resource, granted in arrival order. Each grant runs in a macrotask of its own,
 * never in the microtasks of the holder that released: PGlite answers without ever yielding to the event
 * loop, so handing its connection straight to the next waiter would run every queued transaction in one
 * turn of the loop, while no socket is read and no connection accepted. Between two grants the loop polls,
 * so requests that arrived meanwhile join the queue behind the ones already in it.
 */
export class FifoGate {
  readonly #waiting: (() => void)[] = []
  /** Held, or a grant is scheduled. */
  #busy = false
  readonly #maxWaiting: number
  readonly #defer: (grant: () => void) => void

  constructor(options: FifoGateOptions) {
    this.#maxWaiting = options.maxWaiting
    this.#defer = options.defer ?? ((grant) => setImmediate(grant))
  }

  /** Whether a caller holds the gate or is about to (its grant is scheduled). */
  get busy(): boolean {
    return this.#busy
  }

  /** Callers waiting now, the holder not counted. */
  get waiting(): number {
    return this.#waiting.length
  }

  /** Resolves when the caller holds the gate; it must call `release` exactly once afterwards. */
  acquire(): Promise<void> {
    if (this.#waiting.length >= this.#maxWaiting) return Promise.reject(new GateQueueFullError(this.#maxWaiting))
    return new Promise((resolve) => {
      this.#waiting.push(resolve)
      this.#grantNextLater()
    })
  }

  release(): void {
    this.#busy = false
    this.#grantNextLater()
  }

  #grantNextLater(): void {
    if (this.#busy || this.#waiting.length === 0) return
    this.#busy = true
    this.#defer(() => this.#waiting.shift()!())
  }
}
