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

/** Refuses a caller whose turn did not come within the wait it was given. */
export class GateWaitTimeoutError extends Error {
  constructor(waitMs: number) {
    super(`no turn within ${waitMs} ms`)
    this.name = 'GateWaitTimeoutError'
  }
}

export interface FifoGateOptions {
  /** How many callers may hold the gate at once (1 unless given). */
  slots?: number
  /** The most callers that may wait; the next one is refused at once with GateQueueFullError. */
  maxWaiting: number
  /** Runs a grant in a later macrotask (setImmediate unless a test scripts it). */
  defer?: (grant: () => void) => void
}

interface Waiter {
  grant(): void
}

/**
 * Use of `slots` places of one resource (one: exclusive use), granted in arrival order. Each grant runs
 * in a macrotask of its own, never in the microtasks of the holder that released: PGlite answers without
 * ever yielding to the event loop, so handing its connection straight to the next waiter would run every
 * queued transaction in one turn of the loop, while no socket is read and no connection accepted. Between
 * two grants the loop polls, so requests that arrived meanwhile join the queue behind the ones already in it.
 */
export class FifoGate {
  readonly #waiting: Waiter[] = []
  /** Places held, or whose grant is scheduled. */
  #held = 0
  /** Grants scheduled and not yet run. */
  #scheduled = 0
  readonly #slots: number
  readonly #maxWaiting: number
  readonly #defer: (grant: () => void) => void

  constructor(options: FifoGateOptions) {
    this.#slots = options.slots ?? 1
    this.#maxWaiting = options.maxWaiting
    this.#defer = options.defer ?? ((grant) => setImmediate(grant))
  }

  /** Whether every place is held or about to be (its grant is scheduled). */
  get busy(): boolean {
    return this.#held >= this.#slots
  }

  /** Callers waiting now, the holders not counted. */
  get waiting(): number {
    return this.#waiting.length
  }

  /**
   * Resolves when the caller holds a place; it must call `release` exactly once afterwards. With
   * `waitMs`, a caller still waiting then leaves the queue, refused with GateWaitTimeoutError.
   */
  acquire(waitMs?: number): Promise<void> {
    if (this.#waiting.length >= this.#maxWaiting) return Promise.reject(new GateQueueFullError(this.#maxWaiting))
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer)
          resolve()
        },
      }
      if (waitMs !== undefined) {
        timer = setTimeout(() => {
          this.#waiting.splice(this.#waiting.indexOf(waiter), 1)
          reject(new GateWaitTimeoutError(waitMs))
        }, waitMs)
      }
      this.#waiting.push(waiter)
      this.#grantNextLater()
    })
  }

  release(): void {
    this.#held--
    this.#grantNextLater()
  }

  /** Runs `work` holding a place (waiting at most `waitMs` for it), and releases it however work ends. */
  async run<T>(work: () => Promise<T>, waitMs?: number): Promise<T> {
    await this.acquire(waitMs)
    try {
      return await work()
    } finally {
      this.release()
    }
  }

  #grantNextLater(): void {
    while (this.#held < this.#slots && this.#waiting.length > this.#scheduled) {
      this.#held++
      this.#scheduled++
      this.#defer(() => {
        this.#scheduled--
        const next = this.#waiting.shift()
        if (next) return next.grant()
        // Its waiter gave up meanwhile: the place is free again.
        this.#held--
        this.#grantNextLater()
      })
    }
  }
}
