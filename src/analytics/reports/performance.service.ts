import type { Executor, Tenant } from '../../platform/db/database.js'
import { type Decimal, decimal, scaledDecimal, sum, sumScaled, toApiNumber } from '../../platform/decimal.js'
import { itemsInScope } from '../../inventory/index.js'
import { getLocation } from '../../locations/index.js'
import { getSettings } from '../../settings/index.js'
import { analyticsErrors } from '../analytics.errors.js'
import type { METRIC_STATUSES, PerformanceQuery, PerformanceReport, TRENDS } from './metrics.schemas.js'
import { itemWindows, percentOf, periodLines } from './period-facts.js'
import { COST_PLACES, varianceRate } from '../variance/variance-windows.js'
import { locationBounds, PERCENT_DECIMALS, periodLabel, previousPeriod, type ReportPeriod, reportPeriod } from '../report-period.js'

/** A value within this share of its target is on target. */
export const TARGET_TOLERANCE = 0.05
/** A change smaller than this share of the previous value is stable. */
export const TREND_DEAD_BAND = 0.05
const TURNOVER_DAYS = 30

type MetricName = 'pour_cost' | 'variance_rate' | 'inventory_turnover' | 'gross_margin'
type Figures = Record<MetricName, number | null>
const METRICS: MetricName[] = ['pour_cost', 'variance_rate', 'inventory_turnover', 'gross_margin']

const rounded = (value: Decimal | null) => (value === null ? null : toApiNumber(value, PERCENT_DECIMALS))

/** The four metrics over one period (2 decimals), each null when the period holds nothing to compute it from. */
async function figuresOf(db: Executor, tenant: Tenant, period: ReportPeriod, location: string | undefined): Promise<Figures> {
  const bounds = await locationBounds(db, tenant, period)
  const spans = [...bounds.values()].filter((entry) => location === undefined || entry.location === location)
  const mapped = (await periodLines(db, tenant, spans)).filter((entry) => entry.usage.length > 0)
  const revenue = sum(mapped.map((entry) => entry.revenue))
  const cost = sum(mapped.map((entry) => entry.usageCost))
  const windows = await itemWindows(db, tenant, await itemsInScope(db, tenant, { location }), bounds)
  const timed = windows.filter((entry) => entry.days > 0)
  const usagePer30Days = sum(timed.map((entry) => scaledDecimal(entry.actualCost, COST_PLACES).times(TURNOVER_DAYS).div(entry.days)))
  const averageValue = sum(timed.map((entry) => entry.averageValue))
  return {
    pour_cost: rounded(percentOf(cost, revenue)),
    variance_rate: windows.length === 0 ? null : varianceRate(sumScaled(windows.map((entry) => entry.varianceCost)), sumScaled(windows.map((entry) => entry.expectedCost))),
    inventory_turnover: averageValue.eq(0) ? null : rounded(usagePer30Days.div(averageValue)),
    gross_margin: rounded(percentOf(revenue.minus(cost), revenue)),
  }
}

/** on_target within TARGET_TOLERANCE × target of the target (both as answered, 2 decimals), else above or below. */
export function statusOf(value: number | null, target: number): (typeof METRIC_STATUSES)[number] {
  if (value === null) return 'no_data'
  const gap = decimal(value).minus(target)
  if (gap.abs().lte(decimal(target).abs().times(TARGET_TOLERANCE))) return 'on_target'
  return gap.gt(0) ? 'above_target' : 'below_target'
}

/** stable when either value is missing or the change is under TREND_DEAD_BAND of the previous value; from 0, any change counts. */
export function trendOf(current: number | null, previous: number | null): (typeof TRENDS)[number] {
  if (current === null || previous === null) return 'stable'
  const change = decimal(current).minus(previous)
  if (change.eq(0) || change.abs().lt(decimal(previous).abs().times(TREND_DEAD_BAND))) return 'stable'
  return change.gt(0) ? 'increasing' : 'decreasing'
}

/**
 * Performance metrics (DECISIONS, Analytics → Metrics; docs/metrics.md): pour cost and gross margin from
 * the period's mapped sale lines, variance rate and inventory turnover from the items' count windows, each
 * against the settings' target, and trends against the previous period of the same length. Throws
 * invalid_parameter, invalid_date_range, location_not_found, and insufficient_data when the period has
 * neither mapped sales nor a count window (no metric has a value).
 */
export async function performanceReport(db: Executor, tenant: Tenant, query: PerformanceQuery, now = new Date()): Promise<PerformanceReport> {
  const period = reportPeriod(query, now)
  if (query.location) await getLocation(db, tenant, query.location)
  const settings = await getSettings(db, tenant)
  const current = await figuresOf(db, tenant, period, query.location)
  if (METRICS.every((name) => current[name] === null)) {
    throw analyticsErrors.insufficientData(
      `No mapped sales and no item with two counts in ${periodLabel(period)}: import sales with mapped POS items, or count the items at the start and the end of the period`,
      { period: periodLabel(period) },
    )
  }
  const before = previousPeriod(period)
  const previous = await figuresOf(db, tenant, before, query.location)
  const metric = (name: MetricName) => ({ value: current[name], target: settings.targets[name], status: statusOf(current[name], settings.targets[name]) })
  return {
    period: periodLabel(period),
    previous_period: periodLabel(before),
    location: query.location ?? 'all',
    currency: settings.currency,
    metrics: { pour_cost: metric('pour_cost'), variance_rate: metric('variance_rate'), inventory_turnover: metric('inventory_turnover'), gross_margin: metric('gross_margin') },
    trends: {
      pour_cost: trendOf(current.pour_cost, previous.pour_cost),
      variance_rate: trendOf(current.variance_rate, previous.variance_rate),
      inventory_turnover: trendOf(current.inventory_turnover, previous.inventory_turnover),
      gross_margin: trendOf(current.gross_margin, previous.gross_margin),
    },
  }
}
