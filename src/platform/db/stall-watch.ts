/**
 * What a probe of the database found: it answered SELECT 1 (`ready`), it answered with a refusal (too
 * many connections, starting up, a bad password: the server is there), or nothing answered in time or
 * the network failed (`unreachable`: a partition, a frozen or vanished host).
 */
export type ProbeResult = 'ready' | 'refusing' | 'unreachable'

/** What a probe found, and which of the server processes it was asked about run a statement there. */
export interface ProbeVerdict {
  result: ProbeResult
  /** Of the backends asked about, those the server that answered is running a statement on. */
  running?: ReadonlySet<number>
}

export interface StallWatchOptions {
  /** How long a statement may wait for its answer before the database is probed. */
  stallMs: number
  /** One probe on a connection of its own, bounded in time by the caller, asked about `backends`. */
  probe: (backends: number[]) => Promise<ProbeVerdict>
  /** Told how many stalled statements were cut. */
  onCut: (statements: number) => void
}

interface Waiting {
  startedAt: number
  /** The server process the statement was sent to, when known (not through a pooler). */
  backend: number | undefined
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
 * already waiting when the probe started is cut. If it answers, a statement that had waited a stall
 * period when the probe started and whose server process is not running a statement there is cut too:
 * its connection leads to a server that is gone (a failover that left it open) or its statement never
 * arrived. A long statement its server is running is never cut
 * (the server's statement_timeout bounds it). Probes are shared: at most one runs at a time.
 */
/**
 * A statement counts as stalled from this close to a stall period: the check that started the probe may
 * fire up to a millisecond early against Date.now(), and the checks of statements sent together fire one
 * after the other, in the same turn of the event loop.
 */
const TIMER_SLACK_MS = 5

export class StallWatch {
  readonly #waiting = new Set<Waiting>()
  #probe: Probe | undefined

  constructor(private readonly options: StallWatchOptions) {}

  /** Watches `statement`, sent to server process `backend`, until it settles; `cut` ends its connection. */
  async watch<T>(statement: Promise<T>, cut: () => void, backend?: number): Promise<T> {
    const waiting: Waiting = { startedAt: Date.now(), backend, cut }
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
    const asked = [...this.#waiting].filter((waiting) => waiting.startedAt <= startedAt)
    // Only a statement that has itself waited a stall period is judged by its server process: one sent a
    // moment before (another statement's stall started the probe) may not have begun there yet (its
    // transaction shows idle), which says nothing of the server.
    const stalled = asked.filter((waiting) => startedAt - waiting.startedAt >= this.options.stallMs - TIMER_SLACK_MS)
    const backends = stalled.flatMap((waiting) => (waiting.backend === undefined ? [] : [waiting.backend]))
    const done = this.options
      .probe(backends)
      .then(({ result, running }) => {
        if (result === 'unreachable') this.#cut(asked)
        else if (running) this.#cut(stalled.filter((waiting) => waiting.backend !== undefined && !running.has(waiting.backend)))
      })
      // A probe that throws gives no verdict; the next check probes again (a timer must never reject).
      .catch(() => undefined)
      .finally(() => {
        this.#probe = undefined
      })
    return { startedAt, done }
  }

  /** Cuts those of `stalled` still waiting. */
  #cut(stalled: Waiting[]): void {
    const waiting = stalled.filter((candidate) => this.#waiting.delete(candidate))
    for (const candidate of waiting) candidate.cut()
    if (waiting.length > 0) this.options.onCut(waiting.length)
  }
}
