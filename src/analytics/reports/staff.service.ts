import type { Executor, Tenant } from '../../platform/db/database.js'
import { type Decimal, decimal, moneyOut, sum, toApiNumber, ZERO } from '../../platform/decimal.js'
import type { PageRequest } from '../../platform/http/pagination.js'
import { itemsInScope, lineUsageInSpans, type ReportItem } from '../../inventory/index.js'
import { saleLinesById, staffMembers } from '../../pos/index.js'
import { getSettings } from '../../settings/index.js'
import { analyticsErrors } from '../analytics.errors.js'
import type { PERFORMANCE_RATINGS, StaffPerformance, StaffQuery } from './metrics.schemas.js'
import { type PeriodLine, percentOf, percentOut, periodLines } from './period-facts.js'
import { locationBounds, PERCENT_DECIMALS, reportPeriod } from '../report-period.js'
import { type StaffWindow, staffWindows } from './staff-windows.js'

/** What one member did in the period. */
interface Activity {
  drinks: Decimal
  revenue: Decimal
  checks: Set<string>
  /** Revenue and tips of the lines whose POS reported a tip. */
  tippedRevenue: Decimal
  tips: Decimal
  tipped: boolean
  /** The member's units sold in each item window (by index in the report's windows). */
  sold: Map<number, Decimal>
}

const newActivity = (): Activity => ({ drinks: ZERO, revenue: ZERO, checks: new Set(), tippedRevenue: ZERO, tips: ZERO, tipped: false, sold: new Map() })

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
 * Each member's units sold in each item window: every line sold inside the window counts, also those
 * sold outside the period but inside the window, and those without a staff id (theirs stay unassigned).
 */
async function recordWindowSales(db: Executor, tenant: Tenant, windows: StaffWindow[], byStaff: Map<string, Activity>): Promise<void> {
  const usage = await lineUsageInSpans(
    db,
    windows.map((window) => ({ itemId: window.item.id, from: window.openedAt, to: window.closedAt })),
  )
  const lines = await saleLinesById(db, tenant, [...new Set(usage.map((row) => row.saleLine))])
  const staffOfLine = new Map(lines.map((line) => [line.line, line.staffId]))
  for (const row of usage) {
    const staffId = staffOfLine.get(row.saleLine)
    const activity = staffId ? byStaff.get(staffId) : undefined
    if (activity) activity.sold.set(row.span, (activity.sold.get(row.span) ?? ZERO).plus(row.units))
  }
}

/** A window's money: the variance it carries (none when explained) and its expected usage, at the cost of its time. */
function windowCosts(window: StaffWindow): { varianceCost: Decimal; expectedCost: Decimal } {
  const cost = window.unitCost
  return { varianceCost: window.explained ? ZERO : window.variance.times(cost), expectedCost: window.expected.times(cost) }
}

/** One item window the member sold in: their share of its units and so of its variance cost. */
interface WindowShare {
  window: StaffWindow
  share: Decimal
  varianceCost: Decimal
  expectedCost: Decimal
}

/** The member's windows of one item, and what everyone else who sold it carries in the item's windows that carry variance. */
interface ItemShare {
  item: ReportItem
  windows: WindowShare[]
  varianceCost: Decimal
  expectedCost: Decimal
  /** The item's expected cost in the windows the member sold in that carry variance. */
  windowsExpectedCost: Decimal
  othersVarianceCost: Decimal
  othersExpectedCost: Decimal
}

/** Per item: the variance cost and expected cost of its windows that carry variance. */
function itemTotals(windows: StaffWindow[]): Map<string, { varianceCost: Decimal; expectedCost: Decimal }> {
  const totals = new Map<string, { varianceCost: Decimal; expectedCost: Decimal }>()
  for (const window of windows) {
    if (window.explained || window.expected.eq(0)) continue
    const costs = windowCosts(window)
    const total = totals.get(window.item.id) ?? { varianceCost: ZERO, expectedCost: ZERO }
    totals.set(window.item.id, { varianceCost: total.varianceCost.plus(costs.varianceCost), expectedCost: total.expectedCost.plus(costs.expectedCost) })
  }
  return totals
}

/** The member's item windows by item (windows oldest first), each window's variance cost shared by the member's share of its units. */
function itemSharesOf(activity: Activity, windows: StaffWindow[], totals: ReturnType<typeof itemTotals>): ItemShare[] {
  const byItem = new Map<string, ItemShare>()
  for (const index of [...activity.sold.keys()].sort((a, b) => a - b)) {
    const window = windows[index] as StaffWindow
    if (window.expected.eq(0)) continue
    const share = (activity.sold.get(index) as Decimal).div(window.expected)
    const costs = windowCosts(window)
    const entry: WindowShare = { window, share, varianceCost: costs.varianceCost.times(share), expectedCost: costs.expectedCost.times(share) }
    const item = byItem.get(window.item.id) ?? {
      item: window.item,
      windows: [],
      varianceCost: ZERO,
      expectedCost: ZERO,
      windowsExpectedCost: ZERO,
      othersVarianceCost: ZERO,
      othersExpectedCost: ZERO,
    }
    item.windows.push(entry)
    if (!window.explained) {
      item.varianceCost = item.varianceCost.plus(entry.varianceCost)
      item.expectedCost = item.expectedCost.plus(entry.expectedCost)
      item.windowsExpectedCost = item.windowsExpectedCost.plus(costs.expectedCost)
    }
    byItem.set(window.item.id, item)
  }
  return [...byItem.values()].map((item) => {
    const total = totals.get(item.item.id) ?? { varianceCost: ZERO, expectedCost: ZERO }
    return { ...item, othersVarianceCost: total.varianceCost.minus(item.varianceCost), othersExpectedCost: total.expectedCost.minus(item.expectedCost) }
  })
}

const rateOf = (varianceCost: Decimal, expectedCost: Decimal) => (expectedCost.eq(0) ? 0 : toApiNumber(varianceCost.div(expectedCost).times(100), PERCENT_DECIMALS))

type Evidence = StaffPerformance['comparison']['rating_evidence']
type ItemEvidence = Evidence['by_item'][number]

function itemEvidence(item: ItemShare): ItemEvidence {
  const counted = item.windows.filter((entry) => !entry.window.explained)
  return {
    item_id: item.item.id,
    name: item.item.name,
    location: item.item.location_id,
    windows: item.windows.map((entry) => ({
      opened_at: entry.window.openedAt.toISOString(),
      closed_at: entry.window.closedAt.toISOString(),
      sales_share_percentage: toApiNumber(entry.share.times(100), PERCENT_DECIMALS),
      variance_cost: moneyOut(entry.varianceCost),
      explained: entry.window.explained,
    })),
    windows_counted: counted.length,
    sales_share_percentage: percentOut(percentOf(item.expectedCost, item.windowsExpectedCost)) ?? 0,
    variance_cost: moneyOut(item.varianceCost),
    expected_cost: moneyOut(item.expectedCost),
    variance_rate: rateOf(item.varianceCost, item.expectedCost),
    others_variance_rate: item.othersExpectedCost.eq(0) ? null : rateOf(item.othersVarianceCost, item.othersExpectedCost),
  }
}

/** The numbers behind a member's variance rate and rating: the item windows they share, by how much, and each item's figures. */
function ratingEvidence(items: ItemShare[]): Evidence {
  const all = items.flatMap((item) => item.windows)
  const varianceCost = sum(items.map((item) => item.varianceCost))
  const expectedCost = sum(items.map((item) => item.expectedCost))
  const byItem = [...items].sort((a, b) => b.varianceCost.cmp(a.varianceCost) || (a.item.id < b.item.id ? -1 : a.item.id > b.item.id ? 1 : 0))
  return {
    items: items.length,
    windows: all.filter((entry) => !entry.window.explained).length,
    windows_explained: all.filter((entry) => entry.window.explained).length,
    sales_share_percentage: percentOut(percentOf(expectedCost, sum(items.map((item) => item.windowsExpectedCost)))) ?? 0,
    variance_cost: moneyOut(varianceCost),
    expected_cost: moneyOut(expectedCost),
    by_item: byItem.map(itemEvidence),
  }
}

const mean = (values: number[]) => (values.length === 0 ? ZERO : sum(values.map((value) => decimal(value))).div(values.length))

/** Windows of one item a loss must recur in before it is the member's. */
const RECURRING_WINDOWS = 2

/**
 * An item whose loss follows the member: above 2 × the target on the member's share, in at least
 * RECURRING_WINDOWS windows that carry variance, and above what everyone else who sold it carries there
 * (sharing by sales gives the member more of the windows in which they sold more of the item).
 */
export function lossFollows(item: ItemEvidence, target: number): boolean {
  const others = item.others_variance_rate
  return item.windows_counted >= RECURRING_WINDOWS && item.variance_rate > 2 * target && (others === null || item.variance_rate > others)
}

/**
 * needs_attention when |variance_rate| is above 2 × the target or the loss of one item follows the member
 * (lossFollows); otherwise excellent at most the target with drinks at or above the mean; good at most the
 * target with fewer drinks, or at most 2 × the target with drinks at or above the mean; average otherwise.
 */
export function ratingOf(varianceRate: number, target: number, drinks: number, meanDrinks: Decimal, evidence: Evidence): (typeof PERFORMANCE_RATINGS)[number] {
  const rate = Math.abs(varianceRate)
  const busy = meanDrinks.lte(drinks)
  if (rate > 2 * target || evidence.by_item.some((item) => lossFollows(item, target))) return 'needs_attention'
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
  const windows = await staffWindows(db, await itemsInScope(db, tenant, {}), bounds)
  await recordWindowSales(db, tenant, windows, byStaff)
  const totals = itemTotals(windows)
  const members = await staffMembers(db, tenant, [...byStaff.keys()])
  const measured = [...byStaff.entries()].map(([staffId, activity]) => {
    const items = itemSharesOf(activity, windows, totals)
    const evidence = ratingEvidence(items)
    const varianceRate = rateOf(sum(items.map((item) => item.varianceCost)), sum(items.map((item) => item.expectedCost)))
    return { staffId, activity, evidence, varianceRate, drinks: toApiNumber(activity.drinks, 0) }
  })
  const meanRate = mean(measured.map((entry) => entry.varianceRate))
  const meanDrinks = mean(measured.map((entry) => entry.drinks))
  const target = settings.targets.variance_rate
  const all = measured
    .sort((a, b) => b.drinks - a.drinks || (a.staffId < b.staffId ? -1 : a.staffId > b.staffId ? 1 : 0))
    .filter((entry) => query.staff_id === undefined || entry.staffId === query.staff_id)
  const staff = all.slice(page.offset, page.offset + page.perPage).map(({ staffId, activity, evidence, varianceRate, drinks }): StaffPerformance => {
    const member = members.get(staffId)
    return {
      staff_id: staffId,
      name: member?.name ?? null,
      role: member?.role ?? null,
      metrics: {
        variance_rate: varianceRate,
        drinks_served: drinks,
        average_ticket: moneyOut(activity.revenue.div(activity.checks.size)),
        customer_satisfaction: !activity.tipped || activity.tippedRevenue.eq(0) ? null : toApiNumber(activity.tips.div(activity.tippedRevenue).times(100), PERCENT_DECIMALS),
      },
      comparison: {
        variance_rate_vs_avg: toApiNumber(decimal(varianceRate).minus(meanRate), PERCENT_DECIMALS),
        drinks_served_vs_avg: toApiNumber(decimal(drinks).minus(meanDrinks), PERCENT_DECIMALS),
        performance_rating: ratingOf(varianceRate, target, drinks, meanDrinks, evidence),
        rating_evidence: evidence,
      },
    }
  })
  return { staff, total: all.length }
}
