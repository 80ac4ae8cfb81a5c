import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import type { FastifyBaseLogger } from 'fastify'
import { dailyUsage, firstUsageDays, latestUsageSequence, usageRecordedLate } from '../inventory/usage-history.js'
import type { BackgroundLoop } from '../platform/background.js'
import { startJobLoop } from '../platform/jobs.js'
import type { Db, Tenant, Trx } from '../platform/db/database.js'
import type { MetricsReporter } from '../platform/metrics/metrics-registry.js'
import type { WorkerDependencies } from '../platform/background.js'
import { allLocations } from './catalog-reads.js'
import {
  BACKTEST_PLAN,
  type DemandForecast,
  FIT_WINDOW_DAYS,
  FORECAST_HORIZON_DAYS,
  forecastDemand,
  MIN_HISTORY_DAYS,
} from './forecast/index.js'
import {
  businessCalendar,
  claimRefit,
  finishRefit,
  type RefitRow,
  REFIT_QUEUE,
  removeForecastsExcept,
  renewRefitLease,
  seedRefits,
  type StoredForecast,
  unclaimedRefits,
  upsertForecasts,
} from './forecast.repository.js'
import { shiftDate } from './report-period.js'

/** Items fitted per transaction: a crash loses at most this many fits, and the lease is renewed per chunk. */
export const REFIT_CHUNK_SIZE = 25
/**
 * Days of history read per item: the model fits the last FIT_WINDOW_DAYS before each back-test origin,
 * the earliest origin 14 + 3 × 7 days before the end; older days would change nothing.
 */
export const HISTORY_READ_DAYS = FIT_WINDOW_DAYS + BACKTEST_PLAN.horizon + (BACKTEST_PLAN.origins - 1) * BACKTEST_PLAN.step
/** How long a claimed refit stays with its worker without a committed chunk (database time). */
export const REFIT_LEASE_MS = 10 * 60_000
/** First retry after a failed refit (workers' clock); doubles per failure in a row, up to RETRY_MAX_MS. */
export const RETRY_DELAY_MS = 15 * 60_000
export const RETRY_MAX_MS = 6 * 3_600_000
/**
 * History that changed (late sales, a mapping applied to old lines) refits a tenant at once, then at most
 * once per this interval (workers' clock): an import of a year of sales in thousands of requests
 * coalesces into one refit per interval instead of one per request. A closing business day or a retry is
 * not held back.
 */
export const HISTORY_REFIT_INTERVAL_MS = 10 * 60_000
/** The worker looks for due refits this often, besides right after a refit. */
const WORKER_INTERVAL_MS = 60_000
const DAY_MS = 86_400_000
/** Stored precision of forecast values (numeric(20, 6)). */
const STORED_DECIMALS = 6

/** The model: one item's daily demand series (oldest first) to its forecast. Tests inject failing ones. */
export type DemandModel = (series: number[], itemId: string) => DemandForecast

const defaultModel: DemandModel = (series) => forecastDemand(series)

export interface RefitOptions {
  model?: DemandModel
  chunkSize?: number
  /** Runs inside each chunk's transaction before it commits (the worker renews its lease here). */
  onChunk?: (trx: Trx) => Promise<void>
}

export interface RefitResult {
  /** Items fitted and stored. */
  fitted: number
  /** Items whose fit threw: their previous forecast (if any) stays. */
  failed: Array<{ itemId: string; error: string }>
  /** Items with usage but under MIN_HISTORY_DAYS of history. */
  tooShort: number
  /** Stored forecasts removed (items deleted or without history any more). */
  removed: number
  /** The earliest moment a business day closes at one of the tenant's locations after `now`. */
  nextCloseAt: Date
}

interface ItemHistory {
  itemId: string
  /** First business day read (the first sale, or HISTORY_READ_DAYS before the end). */
  from: string
  /** The last closed business day. */
  through: string
  historyDays: number
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS)
}

/** The items whose history qualifies, per location in its own calendar, and when the next business day closes. */
async function historiesAt(db: Db, tenant: Tenant, now: Date) {
  const histories: ItemHistory[] = []
  let tooShort = 0
  let nextCloseAt = new Date(now.getTime() + DAY_MS)
  for (const location of await allLocations(db, tenant)) {
    const calendar = await businessCalendar(db, location, now)
    if (calendar.closesAt < nextCloseAt) nextCloseAt = calendar.closesAt
    const through = shiftDate(calendar.today, -1)
    for (const [itemId, firstDay] of await firstUsageDays(db, tenant, { location: location.id, to: through })) {
      const historyDays = daysBetween(firstDay, through) + 1
      if (historyDays < MIN_HISTORY_DAYS) {
        tooShort++
        continue
      }
      const earliestRead = shiftDate(through, -(HISTORY_READ_DAYS - 1))
      histories.push({ itemId, from: firstDay > earliestRead ? firstDay : earliestRead, through, historyDays })
    }
  }
  histories.sort((a, b) => a.itemId.localeCompare(b.itemId))
  return { histories, tooShort, nextCloseAt }
}

/** Daily series per item of the chunk: one value per business day from `from` to `through`, 0 without usage. */
async function seriesOf(db: Db, tenant: Tenant, chunk: ItemHistory[]): Promise<Map<string, number[]>> {
  const from = chunk.reduce((earliest, item) => (item.from < earliest ? item.from : earliest), chunk[0]?.from ?? '')
  const to = chunk.reduce((latest, item) => (item.through > latest ? item.through : latest), '')
  const rows = await dailyUsage(db, tenant, { itemIds: chunk.map((item) => item.itemId), from, to })
  const series = new Map(chunk.map((item) => [item.itemId, new Array<number>(daysBetween(item.from, item.through) + 1).fill(0)]))
  const byId = new Map(chunk.map((item) => [item.itemId, item]))
  for (const row of rows) {
    const item = byId.get(row.itemId)
    const values = series.get(row.itemId)
    if (!item || !values || row.day < item.from || row.day > item.through) continue
    values[daysBetween(item.from, row.day)] = Number(row.units)
  }
  return series
}

function toStored(item: ItemHistory, forecast: DemandForecast, fittedAt: Date): StoredForecast {
  if (forecast.daily.length !== FORECAST_HORIZON_DAYS) throw new RangeError(`the model returned ${forecast.daily.length} days, not ${FORECAST_HORIZON_DAYS}`)
  const fixed = (value: number) => {
    if (!Number.isFinite(value)) throw new RangeError(`the model returned ${value}`)
    return Math.max(0, value).toFixed(STORED_DECIMALS)
  }
  return {
    itemId: item.itemId,
    daily: forecast.daily.map(fixed),
    backtestWape: forecast.backtestWape === null ? null : fixed(forecast.backtestWape),
    dailyErrorStdDev: fixed(forecast.dailyErrorStdDev),
    seasonality: forecast.seasonality,
    trend: forecast.trend,
    model: forecast.model,
    historyDays: item.historyDays,
    historyThrough: item.through,
    fittedAt,
  }
}

/**
 * Refits the demand forecast of every live item of the tenant with MIN_HISTORY_DAYS of history (first
 * sale to the last closed business day of its location, in that location's calendar, at `now`), in
 * chunks of REFIT_CHUNK_SIZE items, each stored in a transaction of its own, yielding to the event loop
 * after every item. An item whose fit throws keeps its previous forecast and is listed in `failed`.
 * Forecasts of items that no longer qualify (deleted) are removed. Database errors throw.
 */
export async function refitForecasts(db: Db, tenant: Tenant, now: Date, options: RefitOptions = {}): Promise<RefitResult> {
  const model = options.model ?? defaultModel
  const chunkSize = options.chunkSize ?? REFIT_CHUNK_SIZE
  const { histories, tooShort, nextCloseAt } = await historiesAt(db, tenant, now)
  const result: RefitResult = { fitted: 0, failed: [], tooShort, removed: 0, nextCloseAt }
  for (let start = 0; start < histories.length; start += chunkSize) {
    const chunk = histories.slice(start, start + chunkSize)
    const series = await seriesOf(db, tenant, chunk)
    const fitted: StoredForecast[] = []
    for (const item of chunk) {
      try {
        fitted.push(toStored(item, model(series.get(item.itemId) ?? [], item.itemId), now))
      } catch (error) {
        result.failed.push({ itemId: item.itemId, error: error instanceof Error ? error.message : String(error) })
      }
      // A fit takes ~12 ms of CPU: HTTP requests of the same process get their turn between items.
      await yieldToEventLoop()
    }
    await db.transaction().execute(async (trx) => {
      await upsertForecasts(trx, tenant, fitted)
      await options.onChunk?.(trx)
    })
    result.fitted += fitted.length
  }
  result.removed = await db.transaction().execute((trx) => removeForecastsExcept(trx, tenant, histories.map((item) => item.itemId)))
  return result
}

/** Why a tenant's forecasts are due at `now`, or undefined when they are not. */
async function dueReason(db: Db, refit: RefitRow, now: Date): Promise<'scheduled' | 'history_changed' | undefined> {
  if (refit.next_attempt_at <= now || refit.fitted_as_of === null) return 'scheduled'
  if (refit.history_refit_at && now.getTime() - refit.history_refit_at.getTime() < HISTORY_REFIT_INTERVAL_MS) return undefined
  const tenant = { accountId: refit.account_id, environment: refit.environment }
  return (await usageRecordedLate(db, tenant, { afterSequence: refit.seen_sequence, asOf: refit.fitted_as_of })) ? 'history_changed' : undefined
}

export interface RefitRun {
  tenant: Tenant
  reason: 'scheduled' | 'history_changed'
  /** The refit's outcome; undefined when it crashed (`error`). */
  result?: RefitResult
  error?: string
}

export interface DueRefitOptions extends Omit<RefitOptions, 'onChunk'> {
  logger?: Pick<FastifyBaseLogger, 'warn' | 'error'>
  /** Where each refit's outcome and duration are reported. */
  metrics?: MetricsReporter
}

function retryAt(now: Date, failures: number, nextCloseAt?: Date): Date {
  const delay = Math.min(RETRY_DELAY_MS * 2 ** Math.max(0, failures - 1), RETRY_MAX_MS)
  const retry = new Date(now.getTime() + delay)
  return nextCloseAt && nextCloseAt < retry ? nextCloseAt : retry
}

/**
 * Runs the refit of one tenant whose forecasts are due at `now` (a business day closed since its last
 * refit, a retry is due, or usage was recorded late for a day already fitted and no refit for that ran in
 * the last HISTORY_REFIT_INTERVAL_MS), claimed so that it runs
 * once across instances. Returns what ran, or undefined when nothing was due (or every due tenant was
 * taken by another worker). A refit with failed items, or one that crashed, is retried RETRY_DELAY_MS
 * later (doubling per failure in a row); its items keep their previous forecasts.
 */
export async function runDueRefit(db: Db, now: Date, options: DueRefitOptions = {}): Promise<RefitRun | undefined> {
  await seedRefits(db, now)
  for (const refit of await unclaimedRefits(db)) {
    const reason = await dueReason(db, refit, now)
    if (!reason) continue
    const tenant: Tenant = { accountId: refit.account_id, environment: refit.environment }
    const claim = await claimRefit(db, tenant, REFIT_LEASE_MS)
    if (!claim) continue
    // Read before the history: usage recorded while the refit runs is newer and triggers the next one.
    const started = performance.now()
    const seenSequence = await latestUsageSequence(db, tenant)
    const historyRefitAt = reason === 'history_changed' ? now : undefined
    try {
      const result = await refitForecasts(db, tenant, now, { ...options, onChunk: (trx) => renewRefitLease(trx, claim, REFIT_LEASE_MS) })
      const failures = result.failed.length > 0 ? refit.failures + 1 : 0
      const lastError = result.failed[0] ? `${result.failed.length} item(s) failed, first ${result.failed[0].itemId}: ${result.failed[0].error}` : null
      if (lastError) options.logger?.warn({ tenant, failed: result.failed.length, error: lastError }, 'forecast refit: some items failed; retrying later')
      await finishRefit(db, claim, {
        dueAt: failures > 0 ? retryAt(now, failures, result.nextCloseAt) : result.nextCloseAt,
        fittedAsOf: now,
        seenSequence,
        historyRefitAt,
        failures,
        lastError,
      })
      options.metrics?.forecastRefit(lastError ? 'partial' : 'succeeded', performance.now() - started)
      return { tenant, reason, result }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      options.logger?.error({ err: error, tenant }, 'forecast refit failed; retrying later')
      await finishRefit(db, claim, { dueAt: retryAt(now, refit.failures + 1), historyRefitAt, failures: refit.failures + 1, lastError: message })
      options.metrics?.forecastRefit('failed', performance.now() - started)
      return { tenant, reason, error: message }
    }
  }
  return undefined
}

/**
 * The background worker of stored forecasts: every minute (and right after each refit) it runs the next
 * due tenant's refit on the workers' clock.
 */
export async function startForecastWorker(deps: WorkerDependencies): Promise<BackgroundLoop> {
  const { db } = deps.database
  const clock = deps.clock ?? (() => new Date())
  return startJobLoop({
    queue: REFIT_QUEUE,
    database: deps.database,
    logger: deps.logger,
    intervalMs: WORKER_INTERVAL_MS,
    async tick() {
      return (await runDueRefit(db, clock(), { logger: deps.logger, metrics: deps.metrics })) !== undefined
    },
  })
}
