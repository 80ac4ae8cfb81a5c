import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from './config.js'
import type { DatabaseHandle } from './db/connect.js'
import type { MetricsReporter } from './metrics/metrics-registry.js'

/**
 * A loop that does queued work in the background: it runs `tick` until tick reports nothing left, then
 * sleeps until a NOTIFY on `channel` or `intervalMs` passes. Claims inside tick use
 * `FOR UPDATE SKIP LOCKED`, so any number of instances can run the same loop without doing work twice.
 */
export interface BackgroundLoopOptions {
  name: string
  database: DatabaseHandle
  logger: FastifyBaseLogger
  /** Does one unit (or batch) of work; resolves true when there may be more right away. */
  tick: () => Promise<boolean>
  intervalMs: number
  channel?: string
}

export interface BackgroundLoop {
  /** Wakes the loop now (tests, or a local change). A function property: callers hand it on unbound. */
  wake: () => void
  stop(): Promise<void>
}

export async function startBackgroundLoop(options: BackgroundLoopOptions): Promise<BackgroundLoop> {
  let stopped = false
  let wakeUp: (() => void) | undefined
  let timer: NodeJS.Timeout | undefined
  // A wake-up that arrives while tick runs is kept, so the work it announces is not left to the interval.
  let wokenDuringTick = false
  const sleep = () =>
    new Promise<void>((resolve) => {
      if (wokenDuringTick) return resolve()
      wakeUp = resolve
      timer = setTimeout(resolve, options.intervalMs)
    })
  const wake = () => {
    wokenDuringTick = true
    wakeUp?.()
  }
  const unlisten = options.channel ? await options.database.listen(options.channel, wake) : undefined

  const running = (async () => {
    while (!stopped) {
      let more = false
      wokenDuringTick = false
      wakeUp = undefined
      try {
        more = await options.tick()
      } catch (error) {
        options.logger.error({ err: error, loop: options.name }, 'background work failed')
      }
      if (!more && !stopped) await sleep()
      clearTimeout(timer)
    }
  })()

  return {
    wake,
    async stop() {
      stopped = true
      wake()
      await running
      await unlisten?.()
    },
  }
}

/** Resolves after `ms` milliseconds, or rejects when `signal` aborts first. */
export type Wait = (ms: number, signal?: AbortSignal) => Promise<void>

/** The real wait: a timer. */
export const timerWait: Wait = (ms, signal) => sleep(ms, undefined, signal ? { signal } : undefined)

/** What every domain's background worker is started with (src/workers.ts starts them all). */
export interface WorkerDependencies {
  config: Config
  database: DatabaseHandle
  logger: FastifyBaseLogger
  /** The workers' clock where time decides what they do (tests move it); the system clock otherwise. */
  clock?: () => Date
  /** How the workers wait out a vendor's Retry-After or a retry's back-off (tests answer at once and record the waits). */
  wait?: Wait
  /** Where the workers report their outcomes; none in `barstock worker`, which serves no /metrics. */
  metrics?: MetricsReporter
}

export type WorkerStarter = (deps: WorkerDependencies) => Promise<BackgroundLoop>
