import { dailyUsage, getItem, type InventoryItem, type ItemStock, itemStocks } from '../../inventory/index.js'
import type { Executor, Tenant } from '../../platform/db/database.js'
import { decimal, QUANTITY_STORED_DECIMALS, scaledOut, sumScaled, toScaled } from '../../platform/decimal.js'
import { analyticsErrors } from '../analytics.errors.js'
import { allItems, allLocations } from './catalog-reads.js'
import { BACKTEST_PLAN, holidayNames, totalErrorStdDev } from './index.js'
import { nextRefitAt } from './forecast-refit.js'
import { findForecasts, type StoredForecast } from './forecast.repository.js'
import { DEFAULT_FORECAST_DAYS, type DemandForecastReport, FORECAST_HISTORY_DAYS, type ForecastQuery, type ItemForecast, type ItemForecastSeries } from './forecast.schemas.js'
import { shiftDate } from '../report-period.js'
import type { Computed } from '../../platform/http/report-cache.js'

/** History the back-test needs (its first origin leaves 14 days of training and 14 held out). */
const BACKTEST_HISTORY_DAYS = BACKTEST_PLAN.minTraining + BACKTEST_PLAN.horizon
/** Confidence of a forecast without a back-test at full BACKTEST_HISTORY_DAYS: it was never checked. */
const UNTESTED_CONFIDENCE = 0.5

/**
 * confidence = 1 − back-test WAPE, clamped to [0, 1], 2 decimals. Without a back-test (under 28 days of
 * history, or nothing sold in the held-out days) 0.5 × the share of those 28 days the history covers.
 */
export function forecastConfidence(forecast: Pick<StoredForecast, 'backtestWape' | 'historyDays'>): number {
  const value =
    forecast.backtestWape === null ? UNTESTED_CONFIDENCE * Math.min(1, forecast.historyDays / BACKTEST_HISTORY_DAYS) : Math.min(1, Math.max(0, 1 - Number(forecast.backtestWape)))
  return Number(value.toFixed(2))
}

/** Entries a memo below keeps before it is emptied: far more than the days one answer names. */
const MEMO_LIMIT = 1000

/**
 * A pure function of days (and a country) remembered by its arguments: an answer's thousand items share
 * their first day, and parsing, shifting and labelling the same dates per item was about a third of the
 * endpoint's CPU in a profile. Emptied past MEMO_LIMIT entries, so a long-running server keeps no more.
 */
function remembered<Args extends (string | number | null)[], Result>(compute: (...args: Args) => Result): (...args: Args) => Result {
  const memo = new Map<string, Result>()
  return (...args) => {
    const key = args.join('|')
    let result = memo.get(key)
    if (result === undefined) {
      if (memo.size >= MEMO_LIMIT) memo.clear()
      result = compute(...args)
      memo.set(key, result)
    }
    return result
  }
}

const dayAfter = remembered(shiftDate)
const holidaysFrom = remembered(holidayNames)

/** The first forecast day: the day after the last day of history. */
export function firstForecastDay(forecast: Pick<StoredForecast, 'historyThrough'>): string {
  return dayAfter(forecast.historyThrough, 1)
}

/**
 * Stored forecasts keep 6 decimals (numeric(20, 6)): the endpoint adds and compares them as exact
 * integers of 10⁻⁶ units (a thousand items' 30 days made 100,000 big.js values a request) and answers
 * quantities at the API's 4 decimals.
 */
const FORECAST_PLACES = 6

/** An item's quantity as the API answers it (at most 4 decimals), scaled to FORECAST_PLACES. */
function scaledQuantity(value: number): bigint {
  // A number's shortest form is its decimal unless it is in exponent form, which big.js writes out.
  const text = String(value)
  return toScaled(text.includes('e') ? decimal(value).toFixed() : text, FORECAST_PLACES)
}

function forecastOut(units: bigint): number {
  return scaledOut(units, FORECAST_PLACES, QUANTITY_STORED_DECIMALS)
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** `Thu 26 Nov` for 2026-11-26. */
const dayLabel = remembered((date: string): string => {
  const day = new Date(`${date}T00:00:00Z`)
  return `${WEEKDAYS[day.getUTCDay()]} ${day.getUTCDate()} ${MONTHS[day.getUTCMonth()]}`
})

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`
}

/**
 * The sentence for a manager, over the whole stored forecast (30 days) from its first day. Stock below
 * zero counts as 0. Cover: the whole days whose forecast demand the stock meets, one after the other.
 * Order by: the first day whose closing stock is forecast below the reorder point (the day the usual
 * reorder-point rule orders); already below it: order now.
 */
export function stockAdvice(item: Pick<InventoryItem, 'quantity' | 'reorder_point' | 'unit'>, daily: bigint[], firstDay: string): string {
  const quantity = scaledQuantity(item.quantity)
  const stock = quantity < 0n ? 0n : quantity
  const reorderPoint = scaledQuantity(item.reorder_point)
  const unit = item.unit
  let remaining = stock
  let coverDays = 0
  let covering = true
  let belowOn: number | undefined
  for (let index = 0; index < daily.length; index++) {
    remaining -= daily[index] as bigint
    covering &&= remaining >= 0n
    if (covering) coverDays++
    if (belowOn === undefined && remaining < reorderPoint) belowOn = index
  }
  const cover =
    coverDays === 0
      ? `Stock of ${forecastOut(stock)} ${unit} does not cover the ${forecastOut(daily[0] ?? 0n)} ${unit} forecast for ${dayLabel(firstDay)}`
      : coverDays === daily.length
        ? `Stock covers at least ${plural(coverDays, 'day')} at the forecast rate (through ${dayLabel(dayAfter(firstDay, daily.length - 1))})`
        : `Stock covers ${plural(coverDays, 'day')} at the forecast rate (through ${dayLabel(dayAfter(firstDay, coverDays - 1))})`
  const point = `the reorder point of ${forecastOut(reorderPoint)} ${unit}`
  if (stock < reorderPoint) return `${cover}; it is already below ${point}: order now.`
  if (belowOn === undefined) return `${cover}; it stays above ${point} for the next ${daily.length} days, so no order is needed yet.`
  return `${cover}; order by ${dayLabel(dayAfter(firstDay, belowOn))}, when it is forecast to fall below ${point}.`
}

/** What an answer reads of a stored forecast besides its stored fields: its days scaled, its first day, its confidence. */
interface ForecastFacts {
  daily: bigint[]
  firstDay: string
  confidence: number
}

/** Each read forecast's facts, made once (findForecasts keeps a forecast while its row is unchanged). */
const factsOfForecasts = new WeakMap<StoredForecast, ForecastFacts>()

function factsOf(stored: StoredForecast): ForecastFacts {
  let facts = factsOfForecasts.get(stored)
  if (facts === undefined) {
    facts = { daily: stored.daily.map((value) => toScaled(value, FORECAST_PLACES)), firstDay: firstForecastDay(stored), confidence: forecastConfidence(stored) }
    factsOfForecasts.set(stored, facts)
  }
  return facts
}

function itemForecast(item: ItemStock, stored: StoredForecast, daysAhead: number, country: string | null): ItemForecast {
  const { daily, firstDay, confidence } = factsOf(stored)
  const lastDay = dayAfter(firstDay, daysAhead - 1)
  return {
    inventory_item_id: item.id,
    name: item.name,
    current_stock: item.quantity,
    forecasted_demand: forecastOut(sumScaled(daily.slice(0, daysAhead))),
    confidence,
    factors: {
      seasonality: stored.seasonality,
      events: holidaysFrom(country, firstDay, daysAhead),
      holiday_effects: stored.holidayEffects.filter((effect) => effect.date <= lastDay),
      trend: stored.trend,
    },
    recommendation: stockAdvice(item, daily, firstDay),
  }
}

/**
 * Each read forecast's last answered line, with what else it was made from: the line is a pure function
 * of the forecast, the item's stock fields, its location's country and days_ahead, and from one answer to
 * the next most items' stock has not moved (a sale moves a few). Only the latest line per forecast is kept.
 */
const lastLines = new WeakMap<StoredForecast, { inputs: string; line: ItemForecast }>()

function forecastLine(item: ItemStock, stored: StoredForecast, daysAhead: number, country: string | null): ItemForecast {
  const inputs = JSON.stringify([item.id, item.name, item.unit, item.quantity, item.reorder_point, country, daysAhead])
  const last = lastLines.get(stored)
  if (last?.inputs === inputs) return last.line
  const line = itemForecast(item, stored, daysAhead, country)
  lastLines.set(stored, { inputs, line })
  return line
}

/**
 * forecast_unavailable for `missing` (what has no forecast), with when the next refit is due as
 * details.next_refit_at when one is: a client that just imported history knows when to ask again.
 */
async function forecastUnavailable(db: Executor, tenant: Tenant, refitDelayMs: number, missing: string, details: Record<string, unknown>) {
  const next = await nextRefitAt(db, tenant, refitDelayMs)
  const when = next ? `; the next refit is due at ${next.toISOString()}` : ''
  return analyticsErrors.forecastUnavailable(
    `${missing}: an item needs 14 days of sales history, and forecasts are refitted in the background when a business day closes and at most ${refitDelayMs / 1000} s after sales history changes${when}`,
    { ...details, ...(next && { next_refit_at: next.toISOString() }) },
  )
}

/**
 * The stored demand forecasts of the items in scope (location, category), over days_ahead business
 * days from each forecast's first day; never fits. Items without a stored forecast are left out.
 * Throws location_not_found, and forecast_unavailable when no item in scope has a stored forecast.
 */
export async function getDemandForecast(db: Executor, tenant: Tenant, query: ForecastQuery, refitDelayMs: number): Promise<DemandForecastReport> {
  return (await refreshableDemandForecast(db, tenant, query, refitDelayMs)).data
}

/** An item in the forecast's answer: its stock and its stored forecast. */
interface ShownForecast {
  item: ItemStock
  forecast: StoredForecast
}

/** The items that have a stored forecast, each with it, in the items' order. */
function withForecasts(items: ItemStock[], stored: Map<string, StoredForecast>): ShownForecast[] {
  return items.flatMap((item) => {
    const forecast = stored.get(item.id)
    return forecast ? [{ item, forecast }] : []
  })
}

/** What a forecast answer is made of, kept to make it again when only some of its items changed. */
interface ForecastMaking {
  query: ForecastQuery
  daysAhead: number
  /** Each location's country, by location id (its public holidays). */
  countries: Map<string, string | null>
  /** The items answered, by name. */
  shown: ShownForecast[]
}

/**
 * The forecast as the report cache keeps it: made of one line per item, each from the item's stock and
 * stored forecast alone, so a change that names its items (stock moved by a sale, a count or waste; an
 * item's reorder point; a forecast refitted) makes only their lines again. A change of what scopes or
 * orders the answer (an item's name, place or category, a new or deleted item, a location) names no item:
 * the answer is made again in its context (forecastInContext).
 */
export async function refreshableDemandForecast(db: Executor, tenant: Tenant, query: ForecastQuery, refitDelayMs: number): Promise<Computed<DemandForecastReport>> {
  // The locations (for their countries) do not depend on the items: read beside them, one round trip less.
  // Without a filter every live item is in scope: the tenant's forecasts are read beside them too (those of
  // items deleted since the last refit are left out below); with one, the forecasts of the items read.
  const unfiltered = query.location === undefined && query.category === undefined
  const [items, locations, everyForecast] = await Promise.all([
    allItems(db, tenant, { location: query.location, category: query.category }),
    allLocations(db, tenant),
    unfiltered ? findForecasts(db, tenant, 'all') : undefined,
  ])
  const stored =
    everyForecast ??
    (await findForecasts(
      db,
      tenant,
      items.map((item) => item.id),
    ))
  const shown = withForecasts(items, stored)
  if (shown.length === 0) {
    throw await forecastUnavailable(db, tenant, refitDelayMs, 'No item in scope has a demand forecast yet', {
      location: query.location ?? null,
      category: query.category ?? null,
    })
  }
  return madeForecast(db, tenant, { query, daysAhead: query.days_ahead ?? DEFAULT_FORECAST_DAYS, countries: countriesOf(locations), shown })
}

/** Each location's country, by location id. */
function countriesOf(locations: { id: string; country: string | null }[]): Map<string, string | null> {
  return new Map(locations.map((location) => [location.id, location.country]))
}

/** The forecast made of `making`, with how the cache makes it again: every change reaches it (it reads stock on hand). */
function madeForecast(db: Executor, tenant: Tenant, making: ForecastMaking): Computed<DemandForecastReport> {
  return {
    data: forecastOf(making),
    part: { again: (named, context) => (context ? forecastInContext(db, tenant, making, named) : forecastAgain(db, tenant, making, named)) },
  }
}

/**
 * The forecast made again after its context changed (a setting, a location, an item's name, place or
 * category, a new or deleted item, an unmapped sale): the items in scope and the locations are read again
 * (the lines' scope, order and countries), and the stored forecasts of the items answered before that no
 * change names are kept, the others read. A stored forecast is written only by a refit, whose changes name
 * their items (migration 20261128090000_tenant_changes_items.sql), so a kept one is the row as it stands.
 * An answer left without items is computed whole (forecast_unavailable names when the next refit is due).
 */
async function forecastInContext(db: Executor, tenant: Tenant, making: ForecastMaking, named: ReadonlySet<string>): Promise<Computed<DemandForecastReport> | undefined> {
  const { location, category } = making.query
  const [items, locations] = await Promise.all([allItems(db, tenant, { location, category }), allLocations(db, tenant)])
  const kept = new Map(making.shown.flatMap(({ item, forecast }) => (named.has(item.id) ? [] : [[item.id, forecast] as const])))
  const read = await findForecasts(
    db,
    tenant,
    items.filter((item) => !kept.has(item.id)).map((item) => item.id),
  )
  const shown = withForecasts(items, new Map([...kept, ...read]))
  return shown.length === 0 ? undefined : madeForecast(db, tenant, { ...making, countries: countriesOf(locations), shown })
}

/**
 * The forecast made again with the lines of the `named` items read again: an item gone from scope or
 * without a forecast now leaves; one that was not answered and now is makes it compute whole (undefined),
 * as does an answer left without items (forecast_unavailable names when the next refit is due).
 */
async function forecastAgain(db: Executor, tenant: Tenant, making: ForecastMaking, named: ReadonlySet<string>): Promise<Computed<DemandForecastReport> | undefined> {
  const ids = [...named]
  const { location, category } = making.query
  const [items, stored] = await Promise.all([itemStocks(db, tenant, { location, category }, ids), findForecasts(db, tenant, ids)])
  const now = new Map(withForecasts(items, stored).map((entry) => [entry.item.id, entry]))
  const answered = new Set(making.shown.map(({ item }) => item.id))
  // Its place among the lines is the catalogue's order by name, which the database gives.
  if ([...now.keys()].some((id) => !answered.has(id))) return undefined
  const shown = making.shown.flatMap((entry): ShownForecast[] => {
    if (!named.has(entry.item.id)) return [entry]
    const again = now.get(entry.item.id)
    return again ? [again] : []
  })
  return shown.length === 0 ? undefined : madeForecast(db, tenant, { ...making, shown })
}

/** The answer: each item's line (forecastLine), the period the lines cover, and when the oldest was fitted. */
function forecastOf({ query, daysAhead, countries, shown }: ForecastMaking): DemandForecastReport {
  const firstDays = shown.map(({ forecast }) => factsOf(forecast).firstDay).sort()
  const first = firstDays[0] as string
  const last = shiftDate(firstDays[firstDays.length - 1] as string, daysAhead - 1)
  const generatedAt = shown.reduce((oldest, { forecast }) => (forecast.fittedAt < oldest ? forecast.fittedAt : oldest), shown[0]!.forecast.fittedAt)
  return {
    forecast_period: `${first}/${last}`,
    location: query.location ?? 'all',
    forecasts: shown.map(({ item, forecast }) => forecastLine(item, forecast, daysAhead, countries.get(item.location) ?? null)),
    generated_at: generatedAt.toISOString(),
  }
}

/**
 * The stored forecasts as order recommendations use them (ordering's DemandForecaster): daily values
 * from the forecast's first day, the error of a total over any number of days from the back-test's
 * daily and 14-day errors (totalErrorStdDev), and the endpoint's confidence.
 */
export async function storedDemandForecasts(db: Executor, tenant: Tenant, itemIds: string[]) {
  const stored = await findForecasts(db, tenant, itemIds)
  return new Map(
    [...stored].map(([itemId, forecast]) => [
      itemId,
      {
        daily: forecast.daily.map((value) => decimal(value)),
        totalErrorStdDev: (days: number) =>
          totalErrorStdDev(Number(forecast.dailyErrorStdDev), forecast.horizonErrorStdDev === null ? null : Number(forecast.horizonErrorStdDev), days),
        confidence: forecastConfidence(forecast),
      },
    ]),
  )
}

/** Half-width of the forecast band in back-test error spreads: about 95 % of days if errors were normal. */
const BAND_SPREADS = 1.96

const fourDecimals = (value: number) => Number(value.toFixed(4))

/**
 * One item's recent daily usage and its stored forecast with a band, for a chart. Throws item_not_found,
 * and forecast_unavailable when the item has no stored forecast (under 14 days of sales history).
 */
export async function getItemForecastSeries(db: Executor, tenant: Tenant, itemId: string, refitDelayMs: number): Promise<ItemForecastSeries> {
  const item = await getItem(db, tenant, itemId)
  const stored = (await findForecasts(db, tenant, [itemId])).get(itemId)
  if (!stored) throw await forecastUnavailable(db, tenant, refitDelayMs, `${item.name} has no demand forecast yet`, { inventory_item_id: itemId })
  const from = shiftDate(stored.historyThrough, 1 - FORECAST_HISTORY_DAYS)
  const used = new Map((await dailyUsage(db, tenant, { itemIds: [itemId], from, to: stored.historyThrough })).map((row) => [row.day, Number(row.units)]))
  const spread = BAND_SPREADS * Number(stored.dailyErrorStdDev)
  const firstDay = firstForecastDay(stored)
  return {
    inventory_item_id: item.id,
    name: item.name,
    unit: item.unit,
    history: Array.from({ length: FORECAST_HISTORY_DAYS }, (_, index) => {
      const date = shiftDate(from, index)
      return { date, quantity: fourDecimals(used.get(date) ?? 0) }
    }),
    forecast: stored.daily.map((value, index) => {
      const quantity = Number(value)
      return { date: shiftDate(firstDay, index), quantity: fourDecimals(quantity), low: fourDecimals(Math.max(0, quantity - spread)), high: fourDecimals(quantity + spread) }
    }),
    fitted_at: stored.fittedAt.toISOString(),
  }
}
