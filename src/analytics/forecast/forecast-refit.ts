import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import type { FastifyBaseLogger } from 'fastify'
import { dailyUsage, firstLateUsages, firstUsageDays, type LateUsage, latestUsageSequence, type UsageWatermark } from '../../inventory/index.js'
import type { BackgroundLoop } from '../../platform/background.js'
import { startJobLoop } from '../../platform/jobs.js'
import type { Db, Executor, Tenant, Trx } from '../../platform/db/database.js'
import type { MetricsReporter } from '../../platform/metrics/metrics-registry.js'
import type { WorkerDependencies } from '../../platform/background.js'
import { allLocations } from './catalog-reads.js'
import {
  applyHolidayFactors,
  BACKTEST_PLAN,
  type DemandForecast,
  daysToRead,
  FIT_WINDOW_DAYS,
  FORECAST_HORIZON_DAYS,
  type ForecastOptions,
  forecastDemand,
  holidayFactors,
  type LocationAdjustments,
  locationAdjustments,
  MIN_HISTORY_DAYS,
  NO_LOCATION_ADJUSTMENTS,
  pastHolidays,
} from './index.js'
import {
  businessCalendar,
  claimRefit,
  findRefit,
  finishRefit,
  locationSaleLines,
  type RefitRow,
  REFIT_QUEUE,
  removeForecastsExcept,
  renewRefitLease,
  seedRefits,
  type StoredForecast,
  unclaimedRefits,
  upsertForecasts,
} from './forecast.repository.js'
import { shiftDate } from '../report-period.js'
import { DAY_MS } from '../../platform/zoned-time.js'

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
 * The longest the worker goes without looking for due refits (the refit delay when that is shorter, so
 * a history change is seen before it falls due); it also looks right after a refit and when a change
 * it saw falls due.
 */
const WORKER_INTERVAL_MS = 60_000
/** Stored precision of forecast values (numeric(20, 6)). */
const STORED_DECIMALS = 6

/**
 * The model: one item's daily demand series (oldest first) to its forecast, with what its location's
 * items share (the pooled smoothing weight). Tests inject failing ones.
 */
export type DemandModel = (series: number[], itemId: string, options: ForecastOptions) => DemandForecast

const defaultModel: DemandModel = (series, _itemId, options) => forecastDemand(series, options)

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
  locationId: string
  /** First business day read (the first sale, or HISTORY_READ_DAYS before the end). */
  from: string
  /** The last closed business day. */
  through: string
  historyDays: number
  /** Its location's public holidays: the country and each holiday's factor there (holidayFactors). */
  holidays: LocationHolidays
}

interface LocationHolidays {
  country: string | null
  factors: ReadonlyMap<string, number>
}

/**
 * The location's holiday factors from its sale lines on the past two years' public holidays and the days
 * around them (one read of those days only: the history read for the model is too short to hold them).
 */
async function locationHolidays(db: Db, tenant: Tenant, location: { id: string; country: string | null }, through: string): Promise<LocationHolidays> {
  const occurrences = pastHolidays(location.country, through)
  if (occurrences.length === 0) return { country: location.country, factors: new Map() }
  const lines = await locationSaleLines(db, tenant, location.id, daysToRead(occurrences))
  return { country: location.country, factors: holidayFactors(occurrences, (day) => lines.get(day) ?? 0) }
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
    const firstDays = await firstUsageDays(db, tenant, { location: location.id, to: through })
    if (firstDays.size === 0) continue
    const holidays = await locationHolidays(db, tenant, location, through)
    for (const [itemId, firstDay] of firstDays) {
      const historyDays = daysBetween(firstDay, through) + 1
      if (historyDays < MIN_HISTORY_DAYS) {
        tooShort++
        continue
      }
      const earliestRead = shiftDate(through, -(HISTORY_READ_DAYS - 1))
      histories.push({ itemId, locationId: location.id, from: firstDay > earliestRead ? firstDay : earliestRead, through, historyDays, holidays })
    }
  }
  histories.sort((a, b) => a.itemId.localeCompare(b.itemId))
  return { histories, tooShort, nextCloseAt }
}

/** Daily series per item of `items`: one value per business day from `from` to `through`, 0 without usage. */
async function seriesOf(db: Db, tenant: Tenant, items: ItemHistory[]): Promise<Map<string, number[]>> {
  const from = items.reduce((earliest, item) => (item.from < earliest ? item.from : earliest), items[0]?.from ?? '')
  const to = items.reduce((latest, item) => (item.through > latest ? item.through : latest), '')
  const rows = await dailyUsage(db, tenant, { itemIds: items.map((item) => item.itemId), from, to })
  const series = new Map(items.map((item) => [item.itemId, new Array<number>(daysBetween(item.from, item.through) + 1).fill(0)]))
  const byId = new Map(items.map((item) => [item.itemId, item]))
  for (const row of rows) {
    const item = byId.get(row.itemId)
    const values = series.get(row.itemId)
    if (!item || !values || row.day < item.from || row.day > item.through) continue
    values[daysBetween(item.from, row.day)] = Number(row.units)
  }
  return series
}

/**
 * Every item's series, read one location at a time, and each location's adjustments from all of its
 * items (locationAdjustments). Adjustments that cannot be computed (a fit of the location's total threw)
 * leave the items' forecasts as the model makes them.
 */
async function locationSeries(db: Db, tenant: Tenant, histories: readonly ItemHistory[]) {
  const series = new Map<string, number[]>()
  const adjustments = new Map<string, LocationAdjustments>()
  const byLocation = new Map<string, ItemHistory[]>()
  for (const item of histories) {
    const items = byLocation.get(item.locationId) ?? []
    items.push(item)
    byLocation.set(item.locationId, items)
  }
  for (const [locationId, items] of byLocation) {
    const read = await seriesOf(db, tenant, items)
    for (const [itemId, values] of read) series.set(itemId, values)
    try {
      adjustments.set(locationId, locationAdjustments([...read.values()]))
    } catch {
      adjustments.set(locationId, NO_LOCATION_ADJUSTMENTS)
    }
  }
  return { series, adjustments }
}

/**
 * The model's forecast as stored: × its location's trend factor, its holiday days scaled by the
 * location's factors, 6 decimals, never below 0.
 */
function toStored(item: ItemHistory, forecast: DemandForecast, fittedAt: Date, trendFactor: number): StoredForecast {
  if (forecast.daily.length !== FORECAST_HORIZON_DAYS) throw new RangeError(`the model returned ${forecast.daily.length} days, not ${FORECAST_HORIZON_DAYS}`)
  const scaled = forecast.daily.map((value) => value * trendFactor)
  const { daily, effects } = applyHolidayFactors(scaled, shiftDate(item.through, 1), item.holidays.country, item.holidays.factors)
  const fixed = (value: number) => {
    if (!Number.isFinite(value)) throw new RangeError(`the model returned ${value}`)
    return Math.max(0, value).toFixed(STORED_DECIMALS)
  }
  return {
    itemId: item.itemId,
    daily: daily.map(fixed),
    backtestWape: forecast.backtestWape === null ? null : fixed(forecast.backtestWape),
    dailyErrorStdDev: fixed(forecast.dailyErrorStdDev),
    horizonErrorStdDev: fixed(forecast.horizonErrorStdDev),
    seasonality: forecast.seasonality,
    trend: forecast.trend,
    model: forecast.model,
    historyDays: item.historyDays,
    historyThrough: item.through,
    fittedAt,
    holidayEffects: effects,
  }
}

/**
 * Refits the demand forecast of every live item of the tenant with MIN_HISTORY_DAYS of history (first
 * sale to the last closed business day of its location, in that location's calendar, at `now`). The
 * histories are read a location at a time, since each location's adjustments (locationAdjustments: a
 * smoothing weight pooled across its items, a trend factor from their total) need all of its items;
 * then the items are fitted in chunks of REFIT_CHUNK_SIZE, each stored in a transaction of its own,
 * yielding to the event loop after every item. An item whose fit throws keeps its previous forecast and is listed in `failed`.
 * Forecasts of items that no longer qualify (deleted) are removed. Database errors throw.
 */
export async function refitForecasts(db: Db, tenant: Tenant, now: Date, options: RefitOptions = {}): Promise<RefitResult> {
  const model = options.model ?? defaultModel
  const chunkSize = options.chunkSize ?? REFIT_CHUNK_SIZE
  const { histories, tooShort, nextCloseAt } = await historiesAt(db, tenant, now)
  const { series, adjustments } = await locationSeries(db, tenant, histories)
  const result: RefitResult = { fitted: 0, failed: [], tooShort, removed: 0, nextCloseAt }
  for (let start = 0; start < histories.length; start += chunkSize) {
    const chunk = histories.slice(start, start + chunkSize)
    const fitted: StoredForecast[] = []
    for (const item of chunk) {
      const location = adjustments.get(item.locationId) ?? NO_LOCATION_ADJUSTMENTS
      try {
        const forecast = model(series.get(item.itemId) ?? [], item.itemId, { smoothingAlpha: location.smoothingAlpha })
        fitted.push(toStored(item, forecast, now, location.trendFactor))
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
  result.removed = await db.transaction().execute((trx) =>
    removeForecastsExcept(
      trx,
      tenant,
      histories.map((item) => item.itemId),
    ),
  )
  return result
}

/** Whether a tenant's refit is due at `now`, and why; when it is not, how long until a history change makes it due. */
interface RefitDue {
  reason?: 'scheduled' | 'history_changed'
  /** Not due yet, but history changed: milliseconds (database time) until that change falls due. */
  waitMs?: number
}

/** What a tenant's stored forecasts reflect: usage up to the refit's watermark, before its first refit none. */
function watermarkOf(tenant: Tenant, refit: RefitRow | undefined): UsageWatermark {
  return { tenant, afterSequence: refit?.seen_sequence ?? '0', asOf: refit?.fitted_as_of ?? new Date() }
}

/**
 * When a history change is due for a refit: `delayMs` after the first change the stored forecasts do not
 * reflect yet (`late`, the first late usage row above the watermark), so the changes that follow it in a
 * burst (an import in thousands of requests) coalesce into that refit and never push it further out.
 * Timed on the database's clock, like the rows' recorded_at. Undefined when nothing changed.
 */
function historyChange(late: LateUsage | undefined, delayMs: number) {
  return late && { dueAt: new Date(late.recordedAt.getTime() + delayMs), waitMs: Math.max(0, delayMs - late.ageMs) }
}

/**
 * Whether each refit is due at `now`: a scheduled one without a read, the others by their history
 * changes, read for all of them in one statement (a pass looks at every tenant each minute).
 */
async function refitsDue(db: Db, refits: readonly RefitRow[], now: Date, delayMs: number): Promise<RefitDue[]> {
  const scheduled = (refit: RefitRow) => refit.next_attempt_at <= now || refit.fitted_as_of === null
  const watched = refits.filter((refit) => !scheduled(refit))
  const late = await firstLateUsages(
    db,
    watched.map((refit) => watermarkOf(tenantOf(refit), refit)),
  )
  const changes = new Map(watched.map((refit, index) => [refit, historyChange(late[index], delayMs)]))
  return refits.map((refit): RefitDue => {
    if (scheduled(refit)) return { reason: 'scheduled' }
    const change = changes.get(refit)
    if (!change) return {}
    return change.waitMs === 0 ? { reason: 'history_changed' } : { waitMs: change.waitMs }
  })
}

function tenantOf(refit: RefitRow): Tenant {
  return { accountId: refit.account_id, environment: refit.environment }
}

/**
 * When the tenant's stored forecasts are next refitted (what forecast_unavailable tells as
 * next_refit_at): the refit a history change not yet reflected makes due, or the scheduled one (a
 * business day closing, a retry), whichever comes first; in the past while it is about to run.
 * Undefined for a tenant without history that the worker has not seen yet.
 */
export async function nextRefitAt(db: Executor, tenant: Tenant, delayMs: number): Promise<Date | undefined> {
  const refit = await findRefit(db, tenant)
  const [late] = await firstLateUsages(db, [watermarkOf(tenant, refit)])
  const change = historyChange(late, delayMs)
  const due = [refit?.next_attempt_at, change?.dueAt].filter((date) => date !== undefined)
  return due.length > 0 ? new Date(Math.min(...due.map((date) => date.getTime()))) : undefined
}

export interface RefitRun {
  tenant: Tenant
  reason: 'scheduled' | 'history_changed'
  /** The refit's outcome; undefined when it crashed (`error`). */
  result?: RefitResult
  error?: string
}

export interface DueRefitOptions extends Omit<RefitOptions, 'onChunk'> {
  /** How long after the first change not yet reflected a history change is refitted (BARSTOCK_FORECAST_REFIT_DELAY_SECONDS). */
  refitDelayMs: number
  logger?: Pick<FastifyBaseLogger, 'warn' | 'error'>
  /** Where each refit's outcome and duration are reported. */
  metrics?: MetricsReporter
}

function retryAt(now: Date, failures: number, nextCloseAt?: Date): Date {
  const delay = Math.min(RETRY_DELAY_MS * 2 ** Math.max(0, failures - 1), RETRY_MAX_MS)
  const retry = new Date(now.getTime() + delay)
  return nextCloseAt && nextCloseAt < retry ? nextCloseAt : retry
}

/** What one pass over the tenants did. */
export interface RefitPass {
  /** The refit it ran; undefined when none was due (or every due tenant was taken by another worker). */
  run?: RefitRun
  /** When none ran: milliseconds until the first pending history change falls due, if one waits. */
  nextDueInMs?: number
}

/**
 * Runs the refit of one tenant whose forecasts are due at `now` (a business day closed since its last
 * refit, a retry is due, or history changed refitDelayMs ago without a refit since: see historyChange),
 * claimed so that it runs once across instances. A refit with failed items, or one that crashed, is
 * retried RETRY_DELAY_MS later (doubling per failure in a row); its items keep their previous forecasts.
 */
export async function runDueRefit(db: Db, now: Date, options: DueRefitOptions): Promise<RefitPass> {
  await seedRefits(db, now)
  let nextDueInMs: number | undefined
  const refits = await unclaimedRefits(db)
  const dues = await refitsDue(db, refits, now, options.refitDelayMs)
  for (const [index, refit] of refits.entries()) {
    const due = dues[index]!
    if (due.waitMs !== undefined) nextDueInMs = Math.min(nextDueInMs ?? Infinity, due.waitMs)
    if (!due.reason) continue
    const claim = await claimRefit(db, tenantOf(refit), REFIT_LEASE_MS)
    if (!claim) continue
    return { run: await refitClaimed(db, claim, due.reason, now, options) }
  }
  return { nextDueInMs }
}

/** Refits a claimed tenant and records the outcome, releasing the claim. */
async function refitClaimed(db: Db, claim: RefitRow, reason: RefitRun['reason'], now: Date, options: DueRefitOptions): Promise<RefitRun> {
  const tenant = tenantOf(claim)
  // Read before the history: usage recorded while the refit runs is newer and triggers the next one.
  const started = performance.now()
  const seenSequence = await latestUsageSequence(db, tenant)
  try {
    const result = await refitForecasts(db, tenant, now, { ...options, onChunk: (trx) => renewRefitLease(trx, claim, REFIT_LEASE_MS) })
    const failures = result.failed.length > 0 ? claim.failures + 1 : 0
    const lastError = result.failed[0] ? `${result.failed.length} item(s) failed, first ${result.failed[0].itemId}: ${result.failed[0].error}` : null
    if (lastError) options.logger?.warn({ tenant, failed: result.failed.length, error: lastError }, 'forecast refit: some items failed; retrying later')
    await finishRefit(db, claim, {
      dueAt: failures > 0 ? retryAt(now, failures, result.nextCloseAt) : result.nextCloseAt,
      fittedAsOf: now,
      seenSequence,
      failures,
      lastError,
    })
    options.metrics?.forecastRefit(lastError ? 'partial' : 'succeeded', performance.now() - started)
    return { tenant, reason, result }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    options.logger?.error({ err: error, tenant }, 'forecast refit failed; retrying later')
    await finishRefit(db, claim, { dueAt: retryAt(now, claim.failures + 1), failures: claim.failures + 1, lastError: message })
    options.metrics?.forecastRefit('failed', performance.now() - started)
    return { tenant, reason, error: message }
  }
}

/**
 * The background worker of stored forecasts: it runs the next due tenant's refit on the workers' clock
 * every minute (every BARSTOCK_FORECAST_REFIT_DELAY_SECONDS when that is shorter), right after each
 * refit, and when the first pending history change falls due.
 */
export async function startForecastWorker(deps: WorkerDependencies): Promise<BackgroundLoop> {
  const { db } = deps.database
  const clock = deps.clock ?? (() => new Date())
  const refitDelayMs = deps.config.forecastRefitDelayMs
  // `let`, not const: a tick can start a timer that reads `loop` before startJobLoop has returned it.
  let loop: BackgroundLoop | undefined
  let wakeWhenDue: NodeJS.Timeout | undefined
  // eslint-disable-next-line prefer-const
  loop = await startJobLoop({
    queue: REFIT_QUEUE,
    database: deps.database,
    logger: deps.logger,
    // A change is seen before it falls due; the timer below then runs its refit on time.
    intervalMs: Math.min(WORKER_INTERVAL_MS, refitDelayMs),
    async tick() {
      const pass = await runDueRefit(db, clock(), { refitDelayMs, logger: deps.logger, metrics: deps.metrics })
      if (pass.run) return true
      clearTimeout(wakeWhenDue)
      if (pass.nextDueInMs !== undefined) wakeWhenDue = setTimeout(() => loop?.wake(), pass.nextDueInMs)
      return false
    },
  })
  return {
    wake: loop.wake,
    async stop() {
      clearTimeout(wakeWhenDue)
      await loop?.stop()
    },
  }
}
