import { everyItem, type InventoryItem, skuUnitsPer } from '../inventory/index.js'
import type { Executor, Tenant } from '../platform/db/database.js'
import { type Decimal, decimal, moneyOut, quantityOut, sum, ZERO } from '../platform/decimal.js'
import type { DemandForecaster, ItemDemandForecast } from './demand-forecaster.js'
import { catalogFor } from './distributors.repository.js'
import { getDistributorRow } from './distributors.service.js'
import { type Catalog, catalogPrice, distributorSells } from './order-pricing.js'
import type { Recommendation, Recommendations, RecommendationsQuery } from './ordering.schemas.js'
import { quantitiesOnOrder } from './orders.repository.js'
import { safetyStock } from './safety-stock.js'
import { DAY_MS } from '../platform/zoned-time.js'

/** Past the stored forecast's days, each further day is the mean of its last this many days. */
export const EXTENSION_DAYS = 7

/** Every item (at `location`: location_not_found when it names none), by name: inventory's whole-catalogue read, by keyset. */
function allItems(db: Executor, tenant: Tenant, location: string | undefined): Promise<InventoryItem[]> {
  return everyItem(db, tenant, { location })
}

/** Rounds up to whole cases when the item has a case size, else to whole units. */
function roundUpToOrderable(units: Decimal, caseSize: number | null): Decimal {
  const pack = caseSize ?? 1
  return units.div(pack).round(0, 3).times(pack)
}

interface Context {
  horizonDays: number
  leadTimeDays: number
  onOrder: Map<string, string>
  catalog: Catalog
}

/** Price of one item unit: the distributor's catalog price when it lists the item, else its cost. */
function unitPrice(item: InventoryItem, context: Context): Decimal {
  return catalogPrice(item, context.catalog, item.unit, decimal(1))?.unitPrice ?? decimal(item.cost_per_unit)
}

/**
 * Forecast demand over `days` from the forecast's first day: the stored days, and past them (a horizon
 * over 30 days) the mean of the last EXTENSION_DAYS stored days for each further day.
 */
export function demandOver(daily: Decimal[], days: number): Decimal {
  const stored = sum(daily.slice(0, days))
  if (days <= daily.length) return stored
  const tail = daily.slice(-EXTENSION_DAYS)
  return stored.plus(
    sum(tail)
      .div(tail.length)
      .times(days - daily.length),
  )
}

/** What the forecast asks for over the horizon: its demand, and safety stock against its error. */
interface ForecastNeed {
  demand: Decimal
  safety: Decimal
  confidence: number
}

function forecastNeed(forecast: ItemDemandForecast, horizon: number): ForecastNeed {
  const demand = demandOver(forecast.daily, horizon)
  // At the stored forecasts' precision (6 decimals); the gamma percentile is computed in floating point.
  const safety = decimal(safetyStock(Number(demand), forecast.totalErrorStdDev(horizon)).toFixed(6))
  return { demand, safety, confidence: forecast.confidence }
}

/** Which target the order fills: the forecast need, or the par level where it asks for more (or there is no forecast). */
type OrderBasis = { kind: 'forecast'; need: ForecastNeed } | { kind: 'par'; par: Decimal; need: ForecastNeed | undefined }

function basisOf(need: ForecastNeed | undefined, parLevel: number | null): OrderBasis | undefined {
  if (parLevel === null) return need && { kind: 'forecast', need }
  const par = decimal(parLevel)
  if (need && need.demand.plus(need.safety).gte(par)) return { kind: 'forecast', need }
  return { kind: 'par', par, need }
}

/** The reason's sentence up to the stock it subtracts: what the order fills up to, and why that. */
function targetText(basis: OrderBasis, unit: string, context: Context): string {
  const forecastText = (need: ForecastNeed) => {
    const horizon = context.horizonDays
    const days = context.leadTimeDays > 0 ? `${horizon - context.leadTimeDays} days plus ${context.leadTimeDays} days lead time` : `${horizon} days`
    return `Forecast demand of ${quantityOut(need.demand)} ${unit} over ${days}, plus ${quantityOut(need.safety)} ${unit} safety stock (95 % service level)`
  }
  if (basis.kind === 'forecast') return forecastText(basis.need)
  const par = `${quantityOut(basis.par)} ${unit}`
  if (basis.need) return `${forecastText(basis.need)}, is under the par level of ${par}, so the order fills up to par: ${par}`
  return `No demand forecast yet (under 14 days of sales history): ordering up to the par level of ${par}`
}

/** What an item lacks over the horizon: its target (forecast need or par), less stock and what is on order. */
interface Shortfall {
  item: InventoryItem
  basis: OrderBasis
  need: ForecastNeed | undefined
  stock: Decimal
  onOrder: Decimal
  shortfall: Decimal
}

function shortfallOf(item: InventoryItem, forecast: ItemDemandForecast | undefined, context: Context): Shortfall | undefined {
  const need = forecast && forecastNeed(forecast, context.horizonDays)
  const basis = basisOf(need, item.par_level)
  if (!basis) return undefined
  const target = basis.kind === 'par' ? basis.par : basis.need.demand.plus(basis.need.safety)
  // Stock below zero means a delivery or count is missing, not that more must be bought.
  const stock = decimal(item.quantity).lt(0) ? ZERO : decimal(item.quantity)
  const onOrder = decimal(context.onOrder.get(item.id) ?? 0)
  const shortfall = target.minus(stock).minus(onOrder)
  return shortfall.gt(0) ? { item, basis, need, stock, onOrder, shortfall } : undefined
}

/** Stock of the same SKU that another location holds above what it needs, offered once per answer. */
interface Surplus {
  item: InventoryItem
  /** What is left to offer, in that item's unit. */
  left: Decimal
}

/** A transfer a recommendation proposes before buying: from where, and how much in the recommended item's unit. */
interface ProposedTransfer {
  location: string
  quantity: Decimal
}

/** Takes from the surpluses of the item's SKU elsewhere (largest first) up to its shortfall. */
function takeTransfers(short: Shortfall, surpluses: Surplus[]): ProposedTransfer[] {
  const transfers: ProposedTransfer[] = []
  let missing = short.shortfall
  const candidates = surpluses.filter((surplus) => surplus.item.sku === short.item.sku && surplus.item.location !== short.item.location && surplus.left.gt(0))
  for (const surplus of candidates.sort((a, b) => b.left.cmp(a.left))) {
    const per = skuUnitsPer(surplus.item, short.item)
    if (!per || missing.lte(0)) continue
    const quantity = surplus.left.times(per).gt(missing) ? missing : surplus.left.times(per)
    surplus.left = surplus.left.minus(quantity.div(per))
    missing = missing.minus(quantity)
    transfers.push({ location: surplus.item.location, quantity })
  }
  return transfers
}

function transferText(transfers: ProposedTransfer[], unit: string): string {
  if (transfers.length === 0) return ''
  return `; transfer ${transfers.map((transfer) => `${quantityOut(transfer.quantity)} ${unit} from ${transfer.location}`).join(' and ')} first (stock above its need there)`
}

function recommend(short: Shortfall, transfers: ProposedTransfer[], context: Context) {
  const { item, basis, need, stock, onOrder, shortfall } = short
  const transferred = sum(transfers.map((transfer) => transfer.quantity))
  const toBuy = shortfall.minus(transferred)
  const amount = toBuy.gt(0) ? roundUpToOrderable(toBuy, item.case_size) : ZERO
  const unit = item.unit
  const cases = item.case_size ? ` (${quantityOut(amount.div(item.case_size))} cases of ${item.case_size})` : ''
  const reason =
    `${targetText(basis, unit, context)}, less ${quantityOut(stock)} ${unit} in stock and ${quantityOut(onOrder)} ${unit} on order, ` +
    `leaves ${quantityOut(shortfall)} ${unit} short${transferText(transfers, unit)}: order ${quantityOut(amount)} ${unit}${cases}.`
  const recommendation: Recommendation = {
    inventory_item_id: item.id,
    name: item.name,
    current_stock: item.quantity,
    // Without a forecast (ordering up to par alone) there is no demand or back-test to show: 0 for both.
    forecasted_demand: quantityOut(need?.demand ?? ZERO),
    recommended_order: quantityOut(amount),
    unit,
    reason,
    confidence: need?.confidence ?? 0,
    par_level: item.par_level,
    transfer_from: transfers.map((transfer) => ({ location: transfer.location, quantity: quantityOut(transfer.quantity) })),
  }
  return { recommendation, cost: amount.times(unitPrice(item, context)) }
}

/**
 * Days until what is at hand and on order runs out at the horizon's mean rate: the most urgent come
 * first, and items without a forecast (whose cover is unknown) last.
 */
function coverOf(short: Shortfall, context: Context): Decimal {
  const meanDaily = (short.need?.demand ?? ZERO).div(context.horizonDays)
  return meanDaily.gt(0) ? short.stock.plus(short.onOrder).div(meanDaily) : decimal(Number.MAX_SAFE_INTEGER)
}

/**
 * The stock each item of these SKUs holds above what it needs over the horizon: above its par, or
 * without one above its forecast need (demand and safety stock); items with neither offer nothing.
 */
async function surplusesOf(db: Executor, tenant: Tenant, skus: Set<string>, forecastDemand: DemandForecaster, context: Context): Promise<Surplus[]> {
  if (skus.size === 0) return []
  const candidates = (await allItems(db, tenant, undefined)).filter((item) => skus.has(item.sku))
  const forecasts = await forecastDemand(
    db,
    tenant,
    candidates.filter((item) => item.par_level === null).map((item) => item.id),
  )
  return candidates.flatMap((item) => {
    const forecast = forecasts.get(item.id)
    const need = item.par_level !== null ? decimal(item.par_level) : forecast && demandAndSafety(forecastNeed(forecast, context.horizonDays))
    const left = need === undefined ? ZERO : decimal(item.quantity).minus(need)
    return left.gt(0) ? [{ item, left }] : []
  })
}

function demandAndSafety(need: ForecastNeed): Decimal {
  return need.demand.plus(need.safety)
}

/**
 * What to order: per item with a stored demand forecast (`forecastDemand`, injected), forecast demand
 * over days_ahead plus the distributor's lead time, plus safety stock (the 95th percentile of demand
 * over the horizon less its forecast, from the forecast's error over that many days: safetyStock), or its par level where that is more, minus stock (below zero counts as 0) and what is on
 * order (submitted, processing, shipped), rounded up to whole cases (or units). An item without a
 * forecast is ordered up to its par level, and left out without one. Where another location holds the
 * SKU above its own need (transfer_from), the order covers only what transfers cannot. With distributor_id only items it
 * sells, priced from its catalog. Throws distributor_not_found, location_not_found.
 */
export async function recommendOrders(db: Executor, tenant: Tenant, query: RecommendationsQuery, forecastDemand: DemandForecaster, now = new Date()): Promise<Recommendations> {
  const daysAhead = query.days_ahead ?? 7
  const distributor = query.distributor_id ? await getDistributorRow(db, tenant, query.distributor_id) : undefined
  let items = await allItems(db, tenant, query.location)
  const catalog = distributor
    ? await catalogFor(
        db,
        distributor.id,
        items.map((item) => item.id),
      )
    : { rows: [], hasCatalog: false }
  if (distributor) items = items.filter((item) => distributorSells(item, distributor, catalog))
  const ids = items.map((item) => item.id)
  const [forecasts, onOrder] = await Promise.all([forecastDemand(db, tenant, ids), quantitiesOnOrder(db, tenant, ids)])
  const leadTimeDays = distributor?.lead_time_days ?? 0
  const context: Context = { horizonDays: daysAhead + leadTimeDays, leadTimeDays, onOrder, catalog }
  const shortfalls = items.flatMap((item) => {
    const short = shortfallOf(item, forecasts.get(item.id), context)
    return short ? [{ short, cover: coverOf(short, context) }] : []
  })
  shortfalls.sort((a, b) => a.cover.cmp(b.cover) || a.short.item.name.localeCompare(b.short.item.name))
  // The most urgent item takes another location's surplus first.
  const surpluses = await surplusesOf(db, tenant, new Set(shortfalls.map(({ short }) => short.item.sku)), forecastDemand, context)
  const results = shortfalls.map(({ short }) => recommend(short, takeTransfers(short, surpluses), context))
  const until = new Date(now.getTime() + daysAhead * DAY_MS)
  return {
    location: query.location ?? 'all',
    forecast_period: `${now.toISOString().slice(0, 10)}/${until.toISOString().slice(0, 10)}`,
    recommendations: results.map((result) => result.recommendation),
    total_recommended_amount: moneyOut(sum(results.map((result) => result.cost))),
  }
}
