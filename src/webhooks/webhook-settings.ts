import { ConfigError } from '../platform/config.js'

/**
 * How failed deliveries are retried: the delay after a failure is the time already spent retrying,
 * kept between `firstDelayMs` and `maxDelayMs` (so it doubles each time), with ±20 % jitter; once
 * `giveUpAfterMs` has passed since the delivery started, it is failed.
 */
export interface RetrySchedule {
  firstDelayMs: number
  maxDelayMs: number
  giveUpAfterMs: number
}

export interface WebhookSettings {
  retry: RetrySchedule
  /** A webhook whose attempts have all failed for this long is disabled. */
  disableAfterMs: number
  /** How many deliveries one dispatcher has in flight at most. */
  concurrency: number
  /** Polling interval for due retries (new events wake the dispatcher at once by NOTIFY). */
  pollIntervalMs: number
}

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  retry: { firstDelayMs: 30 * SECOND, maxDelayMs: 6 * HOUR, giveUpAfterMs: 3 * DAY },
  disableAfterMs: 3 * DAY,
  concurrency: 64,
  pollIntervalMs: SECOND,
}

const UNITS: Record<string, number> = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: DAY }

/** `250ms`, `30s`, `5m`, `6h`, `3d` as milliseconds; undefined when the text is not one of these. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim())
  if (!match) return undefined
  const value = Number(match[1]) * UNITS[match[2]!]!
  return value > 0 ? value : undefined
}

function duration(name: string, text: string): number {
  const value = parseDuration(text)
  if (value === undefined) throw new ConfigError(name, `takes a positive duration such as 500ms, 30s, 5m, 6h or 3d, got "${text}"`)
  return value
}

function parseSchedule(name: string, text: string): RetrySchedule {
  const parts = text.split(',')
  if (parts.length !== 3) throw new ConfigError(name, `must be "<first delay>,<longest delay>,<give up after>", e.g. 30s,6h,3d; got "${text}"`)
  const [firstDelayMs, maxDelayMs, giveUpAfterMs] = parts.map((part) => duration(name, part)) as [number, number, number]
  if (maxDelayMs < firstDelayMs) throw new ConfigError(name, 'its longest delay must not be shorter than its first delay')
  return { firstDelayMs, maxDelayMs, giveUpAfterMs }
}

/**
 * Reads BARSTOCK_WEBHOOK_RETRY_SCHEDULE (`30s,6h,3d`), BARSTOCK_WEBHOOK_DISABLE_AFTER (`3d`) and
 * BARSTOCK_WEBHOOK_CONCURRENCY (64); throws ConfigError on a value it cannot use.
 */
export function loadWebhookSettings(env: Record<string, string | undefined> = process.env): WebhookSettings {
  const settings = { ...DEFAULT_WEBHOOK_SETTINGS }
  const schedule = env.BARSTOCK_WEBHOOK_RETRY_SCHEDULE
  if (schedule) settings.retry = parseSchedule('BARSTOCK_WEBHOOK_RETRY_SCHEDULE', schedule)
  const disableAfter = env.BARSTOCK_WEBHOOK_DISABLE_AFTER
  if (disableAfter) settings.disableAfterMs = duration('BARSTOCK_WEBHOOK_DISABLE_AFTER', disableAfter)
  const concurrency = env.BARSTOCK_WEBHOOK_CONCURRENCY
  if (concurrency) {
    const value = Number(concurrency)
    if (!Number.isInteger(value) || value < 1 || value > 1024) {
      throw new ConfigError('BARSTOCK_WEBHOOK_CONCURRENCY', `must be an integer from 1 to 1024, got "${concurrency}"`)
    }
    settings.concurrency = value
  }
  return settings
}

/**
 * When a delivery that just failed is tried next, or undefined when its retries are over. `random`
 * (0 to 1) spreads retries of many deliveries that failed together.
 */
export function nextAttemptAt(schedule: RetrySchedule, retryStartedAt: Date, now: Date, random = Math.random()): Date | undefined {
  const deadline = retryStartedAt.getTime() + schedule.giveUpAfterMs
  if (now.getTime() >= deadline) return undefined
  const elapsed = now.getTime() - retryStartedAt.getTime()
  const delay = Math.min(schedule.maxDelayMs, Math.max(schedule.firstDelayMs, elapsed))
  const jittered = delay * (0.8 + 0.4 * random)
  return new Date(Math.min(deadline, now.getTime() + jittered))
}
