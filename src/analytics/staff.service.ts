import type { Executor, Tenant } from '../platform/db/database.js'
import { type Decimal, decimal, moneyOut, scaledDecimal, sum, toApiNumber, ZERO } from '../platform/decimal.js'
import type { PageRequest } from '../platform/http/pagination.js'
import { itemsInScope, lineUsageInSpans } from '../inventory/stock-history.js'
import { saleLinesById } from '../pos/sales-history.js'
import { staffMembers } from '../pos/staff-history.js'
import { getSettings } from '../settings/settings.service.js'
import { analyticsErrors } from './analytics.errors.js'
import type { PERFORMANCE_RATINGS, StaffPerformance, StaffQuery } from './metrics.schemas.js'
import { type ItemWindow, itemWindows, type PeriodLine, percentOf, percentOut, periodLines } from './period-facts.js'
import { locationBounds, PERCENT_DECIMALS, reportPeriod } from './report-period.js'
import { COST_PLACES, QUANTITY_PLACES } from './variance-windows.js'

/** What one member did in the period. */
interface Activity {
  drinks: Decimal
  revenue: Decimal
  checks: Set<string>
  /** Revenue and tips of the lines whose POS reported a tip. */
  tippedRevenue: Decimal
  tips: Decimal
  tipped: boolean
  /** In the count windows: Σ own units × the window's expected cost per unit, and Σ own share of each item's variance cost. */
  expectedCost: Decimal
  varianceCost: Decimal
  /** The rating's evidence: the item windows the member sold in (by index), and the expected cost of all of them. */
  windows: Set<number>
  windowsExpectedCost: Decimal
}

const newActivity = (): Activity => ({
  drinks: ZERO,
  revenue: ZERO,
  checks: new Set(),
  tippedRevenue: ZERO,
  tips: ZERO,
  tipped: false,
  expectedCost: ZERO,
  varianceCost: ZERO,
  windows: new Set(),
  windowsExpectedCost: ZERO,
})

/** Drinks, revenue, checks and tips per staff id of the period's lines; lines without a staff id are left out. */
function activityOf(lines: PeriodLine[]): Map<string, Activity> {
  const byStaff = new Map<string, Activity>()
  for (const { line, revenue } of lines) {
    if (line.staffId === null) continue
    const activity = byStaff.get(line.staffId) ?? newActivity()
    activity.drinks = activity.drinks.plus(line.quantity)
    activity.revenue = activity.revenue.plus(revenue)
    // A line without a check is a ticket of its own.
    activity.checks.add(line.checkId === null ? `line:${line.line}` : `check:${line.checkId}`)
    if (line.tip !== null) {
      activity.tipped = true
      activity.tips = activity.tips.plus(line.tip)
      activity.tippedRevenue = activity.tippedRevenue.plus(revenue)
    }
    byStaff.set(line.staffId, activity)
  }
  return byStaff
}

/**
 * Shares each item window's variance cost among the staff who sold the item inside the window, by their
 * share of its expected units (lines sold outside the period but inside the window count too).
 */
async function shareWindowVariance(db: Executor, tenant: Tenant, windows: ItemWindow[], byStaff: Map<string, Activity>): Promise<void> {
  const usage = await lineUsageInSpans(
    db,
    windows.map(({ item, window }) => ({ itemId: item.id, from: window.opening.countedAt, to: window.closing.countedAt })),
  )
  const lines = await saleLinesById(db, tenant, [...new Set(usage.map((row) => row.saleLine))])
  const staffOfLine = new Map(lines.map((line) => [line.line, line.staffId]))
  for (const row of usage) {
    const staffId = staffOfLine.get(row.saleLine)
    const activity = staffId ? byStaff.get(staffId) : undefined
    const window = windows[row.span] as ItemWindow
    if (!activity || window.measured.expected === 0n) continue
    const units = decimal(row.units)
    const expected = scaledDecimal(window.measured.expected, QUANTITY_PLACES)
    // The window's expected usage at the costs of its time, shared by units (its cost when it had one).
    activity.expectedCost = activity.expectedCost.plus(scaledDecimal(window.expectedCost, COST_PLACES).times(units).div(expected))
    activity.varianceCost = activity.varianceCost.plus(scaledDecimal(window.varianceCost, COST_PLACES).times(units).div(expected))
    if (!activity.windows.has(row.span)) {
      activity.windows.add(row.span)
      activity.windowsExpectedCost = activity.windowsExpectedCost.plus(scaledDecimal(window.expectedCost, COST_PLACES))
    }
  }
}

/** The numbers behind a member's variance rate: which item windows they share, and by how much. */
function ratingEvidence(activity: Activity, windows: ItemWindow[]): StaffPerformance['comparison']['rating_evidence'] {
  const items = new Set([...activity.windows].map((index) => (windows[index] as ItemWindow).item.id))
  return {
    items: items.size,
    windows: activity.windows.size,
    sales_share_percentage: percentOut(percentOf(activity.expectedCost, activity.windowsExpectedCost)) ?? 0,
    variance_cost: moneyOut(activity.varianceCost),
    expected_cost: moneyOut(activity.expectedCost),
  }
}

const mean = (values: number[]) => (values.length === 0 ? ZERO : sum(values.map((value) => decimal(value))).div(values.length))

/**
 * needs_attention when |variance_rate| is above 2 × the target; excellent at most the target with drinks
 * at or above the mean; good at most the target with fewer drinks, or at most 2 × the target with drinks at
 * or above the mean; average otherwise.
 */
export function ratingOf(varianceRate: number, target: number, drinks: number, meanDrinks: Decimal): (typeof PERFORMANCE_RATINGS)[number] {
  const rate = Math.abs(varianceRate)
  const busy = meanDrinks.lte(drinks)
  if (rate > 2 * target) return 'needs_attention'
  if (rate <= target) return busy ? 'excellent' : 'good'
  return busy ? 'good' : 'average'
}

/**
 * Staff performance (DECISIONS, Analytics → Metrics; docs/metrics.md): every staff id with sale lines in
 * the period, its variance rate from the items' count windows, drinks served, average ticket and tips,
 * compared with the mean of all of them, busiest first. Throws invalid_parameter, invalid_date_range, and
 * staff_not_found for a staff_id no POS employee list or sale line knows. Names are never logged.
 */
export async function staffPerformance(
  db: Executor,
  tenant: Tenant,
  query: StaffQuery,
  page: PageRequest,
  now = new Date(),
): Promise<{ staff: StaffPerformance[]; total: number }> {
  const period = reportPeriod(query, now)
  if (query.staff_id !== undefined && !(await staffMembers(db, tenant, [query.staff_id])).has(query.staff_id)) {
    throw analyticsErrors.staffNotFound(query.staff_id)
  }
  const settings = await getSettings(db, tenant)
  const bounds = await locationBounds(db, tenant, period)
  const byStaff = activityOf(await periodLines(db, tenant, [...bounds.values()]))
  const windows = await itemWindows(db, tenant, await itemsInScope(db, tenant, {}), bounds)
  await shareWindowVariance(db, tenant, windows, byStaff)
  const members = await staffMembers(db, tenant, [...byStaff.keys()])
  const measured = [...byStaff.entries()].map(([staffId, activity]) => ({
    staffId,
    activity,
    varianceRate: activity.expectedCost.eq(0) ? 0 : toApiNumber(activity.varianceCost.div(activity.expectedCost).times(100), PERCENT_DECIMALS),
    drinks: toApiNumber(activity.drinks, 0),
  }))
  const meanRate = mean(measured.map((entry) => entry.varianceRate))
  const meanDrinks = mean(measured.map((entry) => entry.drinks))
  const target = settings.targets.variance_rate
  const all = measured
    .sort((a, b) => b.drinks - a.drinks || (a.staffId < b.staffId ? -1 : a.staffId > b.staffId ? 1 : 0))
    .filter((entry) => query.staff_id === undefined || entry.staffId === query.staff_id)
  const staff = all.slice(page.offset, page.offset + page.perPage).map(({ staffId, activity, varianceRate, drinks }): StaffPerformance => {
    const member = members.get(staffId)
    return {
      staff_id: staffId,
      name: member?.name ?? null,
      role: member?.role ?? null,
      metrics: {
        variance_rate: varianceRate,
        drinks_served: drinks,
        average_ticket: moneyOut(activity.revenue.div(activity.checks.size)),
        customer_satisfaction:
          !activity.tipped || activity.tippedRevenue.eq(0) ? null : toApiNumber(activity.tips.div(activity.tippedRevenue).times(100), PERCENT_DECIMALS),
      },
      comparison: {
        variance_rate_vs_avg: toApiNumber(decimal(varianceRate).minus(meanRate), PERCENT_DECIMALS),
        drinks_served_vs_avg: toApiNumber(decimal(drinks).minus(meanDrinks), PERCENT_DECIMALS),
        performance_rating: ratingOf(varianceRate, target, drinks, meanDrinks),
        rating_evidence: ratingEvidence(activity, windows),
      },
    }
  })
  return { staff, total: all.length }
}
