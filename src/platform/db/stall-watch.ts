/**
 * What a probe of the database found: it answered SELECT 1 (`ready`), it answered with a refusal (too
 * many connections, starting up, a bad password: the server is there), or nothing answered in time or
 * the network failed (`unreachable`: a partition, a frozen or vanished host).
 */
export type ProbeResult = 'ready' | 'refusing' | 'unreachable'

export interface StallWatchOptions {
  /** How long a statement may wait for its answer before the database is probed. */
  stallMs: number
  /** One probe on a connection of its own, bounded in time by the caller. */
  probe: () => Promise<ProbeResult>
  /** Told how many stalled statements were cut when a probe found the database unreachable. */
  onCut: (statements: number) => void
}

interface Waiting {
  startedAt: number
  /** Ends the statement's connection, which fails the statement (and its request answers 503). */
  cut: () => void
}

interface Probe {
  startedAt: number
  /** Resolves once its verdict is applied. */
  done: Promise<void>
}

/**
 * Notices a database that went silent without closing anything (a network partition, a frozen host):
 * PostgreSQL sends nothing while a statement runs, so a connection cannot tell a long statement from a
 * lost server. A statement still waiting after `stallMs` (and every `stallMs` after that) has the
 * database probed on a fresh connection; if the probe finds it unreachable, every statement that was
 * already waiting when the probe started is cut. A long statement on a database that answers is never
 * cut (the server's statement_timeout bounds it). Probes are shared: at most one runs at a time.
 */
export class StallWatch {
  readonly #waiting = new Set<Waiting>()
  #probe: Probe | undefined

  constructor(private readonly options: StallWatchOptions) {}

  /** Watches `statement` until it settles; `cut` ends the connection it waits on. */
  async watch<T>(statement: Promise<T>, cut: () => void): Promise<T> {
    const waiting: Waiting = { startedAt: Date.now(), cut }
    this.#waiting.add(waiting)
    const timer = setInterval(() => void this.#check(waiting), this.options.stallMs)
    timer.unref()
    try {
      return await statement
    } finally {
      clearInterval(timer)
      this.#waiting.delete(waiting)
    }
  }

  /**
   * Waits for a probe whose verdict covers `waiting`: the one under way if it started after the
   * statement, else a new one (a probe that started earlier may have been answered before the silence).
   */
  async #check(waiting: Waiting): Promise<void> {
    while (this.#waiting.has(waiting)) {
      const probe = (this.#probe ??= this.#startProbe())
      await probe.done
      if (probe.startedAt >= waiting.startedAt) return
    }
  }

  #startProbe(): Probe {
    const startedAt = Date.now()
    const done = this.options
      .probe()
      .then((result) => {
        if (result === 'unreachable') this.#cutWaitingSince(startedAt)
      })
      // A probe that throws gives no verdict; the next check probes again (a timer must never reject).
      .catch(() => undefined)
      .finally(() => {
        this.#probe = undefined
      })
    return { startedAt, done }
  }

  #cutWaitingSince(time: number): void {
    const stalled = [...this.#waiting].filter((waiting) => waiting.startedAt <= time)
    for (const waiting of stalled) {
      this.#waiting.delete(waiting)
      waiting.cut()
    }
    if (stalled.length > 0) this.options.onCut(stalled.length)
  }
}
