import type { Executor, Tenant } from '../../platform/db/database.js'
import { type Decimal, decimal, sum, toApiNumber, ZERO } from '../../platform/decimal.js'
import { type ReportItem, usageOfSaleLines } from '../../inventory/index.js'
import { type SaleLine, saleLinesInSpans } from '../../pos/index.js'
import { type LocationBounds, PERCENT_DECIMALS } from '../report-period.js'
import { type PlannedItem, planReportWindows } from '../variance/variance.service.js'
import { type MeasuredWindow, measureWindows } from '../variance/variance-windows.js'
import { windowMoney, type WindowMoney } from '../variance/window-costs.js'
import { DAY_MS } from '../../platform/zoned-time.js'

/**
 * The facts the performance, staff and category reports share (docs/metrics.md): the period's sale lines
 * with the usage each recorded, and the items' count windows as the variance report measures them.
 */

/** One item's usage by one sale line, costed at the unit cost stored with the usage. */
export interface CostedUsage {
  itemId: string
  units: Decimal
  cost: Decimal
}

export interface PeriodLine {
  line: SaleLine
  /** quantity × unit_price. */
  revenue: Decimal
  /** Every item the line used (several for a recipe); empty for an unmapped line. */
  usage: CostedUsage[]
  /** Σ usage cost: the cost of the line's expected usage. */
  usageCost: Decimal
}

/** The lines sold at these locations in their business days, each with the usage it recorded. */
export async function periodLines(db: Executor, tenant: Tenant, bounds: LocationBounds[]): Promise<PeriodLine[]> {
  const lines = await saleLinesInSpans(db, tenant, bounds)
  const usage = await usageOfSaleLines(
    db,
    tenant,
    lines.map((entry) => entry.line),
  )
  const byLine = new Map<string, CostedUsage[]>()
  for (const row of usage) {
    const units = decimal(row.units)
    const list = byLine.get(row.saleLine) ?? []
    list.push({ itemId: row.itemId, units, cost: units.times(row.unitCost) })
    byLine.set(row.saleLine, list)
  }
  return lines.map((line) => {
    const used = byLine.get(line.line) ?? []
    return { line, revenue: decimal(line.quantity).times(line.unitPrice), usage: used, usageCost: sum(used.map((entry) => entry.cost)) }
  })
}

/**
 * A line's revenue split across the items it used, by their share of the line's usage cost (a recipe's
 * spirit takes more of the price than its mixer); evenly when every item cost 0.
 */
export function revenueByItem(line: PeriodLine): Map<string, Decimal> {
  const shares = new Map<string, Decimal>()
  if (line.usage.length === 0) return shares
  for (const entry of line.usage) {
    const share = line.usageCost.eq(0) ? decimal(1).div(line.usage.length) : entry.cost.div(line.usageCost)
    shares.set(entry.itemId, (shares.get(entry.itemId) ?? ZERO).plus(line.revenue.times(share)))
  }
  return shares
}

/** An item's window with its money at the costs of its time, as the variance report values it (window-costs.ts). */
export interface ItemWindow extends PlannedItem, WindowMoney {
  measured: MeasuredWindow
  /** Days between the opening and the closing count. */
  days: number
  /** (opening count × the cost in force then + closing count × the cost in force then) / 2. */
  averageValue: Decimal
}

/** The items' count windows for the period, measured and costed as the variance report does; items without two counts are left out. */
export async function itemWindows(db: Executor, tenant: Tenant, items: ReportItem[], bounds: Map<string, LocationBounds>): Promise<ItemWindow[]> {
  const inScope = items.filter((item) => bounds.has(item.location_id))
  if (inScope.length === 0) return []
  // No earlier windows: these reports read no causes.
  const { planned } = await planReportWindows(db, inScope, bounds, 0)
  const measured = await measureWindows(db, tenant, planned)
  const money = await windowMoney(
    db,
    tenant,
    planned.map((plan, index) => ({ ...plan, measured: measured[index] as MeasuredWindow })),
  )
  return planned.map((plan, index) => {
    const window = measured[index] as MeasuredWindow
    const { costs } = plan.window
    return {
      ...plan,
      ...(money[index] as WindowMoney),
      measured: window,
      days: (window.closing.countedAt.getTime() - window.opening.countedAt.getTime()) / DAY_MS,
      averageValue: decimal(window.opening.quantity).times(costs.opening).plus(decimal(window.closing.quantity).times(costs.closing)).div(2),
    }
  })
}

/** part / whole × 100, or null when whole is 0. */
export function percentOf(part: Decimal, whole: Decimal): Decimal | null {
  return whole.eq(0) ? null : part.div(whole).times(100)
}

/** A percentage as the API answers it (2 decimals), null kept. */
export function percentOut(value: Decimal | null): number | null {
  return value === null ? null : toApiNumber(value, PERCENT_DECIMALS)
}
