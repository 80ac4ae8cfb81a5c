import type { Executor } from '../../platform/db/database.js'
import { type Decimal, decimal } from '../../platform/decimal.js'
import { movementsInSpans, type ReportItem } from '../../inventory/index.js'
import type { LocationBounds } from '../report-period.js'
import { planReportWindows } from '../variance/variance.service.js'
import { earlierClosedAt, earlierClosing, earlierCount, earlierOpenedAt, earlierOpening, type PlannedWindow, type WindowCosts } from '../variance/window-plan.repository.js'

/**
 * The count windows the staff report shares variance over (docs/metrics.md, "Staff"): each item's
 * consecutive windows inside the report's period (weekly counts in a month: four windows, as the variance
 * report's causes measure them), or its one window when the period holds two counts, and which of them a
 * transfer or recorded waste explains.
 */

/** A gain and a loss in consecutive windows are one move on the wrong side of a count when the smaller is at least this share of the larger. */
const PAIRED_SHARE = 0.5

export interface StaffWindow {
  item: ReportItem
  openedAt: Date
  closedAt: Date
  /** Usage of every sale line sold in the window, item units. */
  expected: Decimal
  /** actual − expected − recorded waste (transfers counted in actual): the variance report's, item units. */
  variance: Decimal
  /** Transfers in and out and recorded waste inside the window, item units. */
  movedApart: Decimal
  /** Its variance is a transfer or recorded waste dated on the other side of a count: it carries none. */
  explained: boolean
  /** The cost in force at its closing count: the window's money is at the cost of its time (docs/analytics.md). */
  unitCost: Decimal
}

interface CountSpan {
  openedAt: Date
  closedAt: Date
  opening: Decimal
  closing: Decimal
  unitCost: Decimal
}

/**
 * The cost in force at a count inside a period window: the cost part it closes or lies in (every count of
 * a part has the part's cost), or the window's closing cost when the cost did not change inside it.
 */
function costAtCount(costs: WindowCosts, countedAt: Date): Decimal {
  const part = costs.parts.find((candidate) => countedAt.getTime() <= candidate.closing.countedAt.getTime())
  return decimal(part?.unitCost ?? costs.closing)
}

/** The consecutive windows between a period window's opening and closing count: those of the plan inside it, else the window itself. */
function spansInside(window: PlannedWindow): CountSpan[] {
  const openedAt = window.opening.countedAt.getTime()
  // Planned with an earlier window (staffWindows): the list is there.
  const earlier = window.earlier ?? []
  const inside = Array.from({ length: earlierCount(earlier) }, (_, index) => index).filter((index) => Math.trunc(earlierClosedAt(earlier, index)) > openedAt)
  if (inside.length === 0) {
    const { opening, closing } = window
    return [
      { openedAt: opening.countedAt, closedAt: closing.countedAt, opening: decimal(opening.quantity), closing: decimal(closing.quantity), unitCost: decimal(window.costs.closing) },
    ]
  }
  return inside.map((index) => {
    const closedAt = new Date(earlierClosedAt(earlier, index))
    return {
      openedAt: new Date(earlierOpenedAt(earlier, index)),
      closedAt,
      opening: decimal(earlierOpening(earlier, index)),
      closing: decimal(earlierClosing(earlier, index)),
      unitCost: costAtCount(window.costs, closedAt),
    }
  })
}

/**
 * A move entered on the wrong side of a count (a transfer that arrived before the count and was entered
 * after it, a spill logged a day late) shows as a gain in one window and a loss of about its size in the
 * next. Two consecutive windows of an item, one a gain and the other a loss, the smaller at least
 * PAIRED_SHARE of the larger, one of them holding a transfer or recorded waste: both are explained.
 * `windows` are one item's, oldest first. An over-pour or a theft is never a gain, so never paired.
 */
function markExplained(windows: StaffWindow[]): void {
  for (let index = 0; index + 1 < windows.length; index++) {
    const [first, second] = [windows[index] as StaffWindow, windows[index + 1] as StaffWindow]
    if (first.explained || first.variance.eq(0) || second.variance.eq(0) || first.variance.s === second.variance.s) continue
    const [smaller, larger] = [first.variance.abs(), second.variance.abs()].sort((a, b) => a.cmp(b)) as [Decimal, Decimal]
    const moved = first.movedApart.gt(0) || second.movedApart.gt(0)
    if (moved && smaller.gte(larger.times(PAIRED_SHARE))) first.explained = second.explained = true
  }
}

/** Each item's count windows inside the period, oldest first per item, measured from inventory's history; items without two counts are left out. */
export async function staffWindows(db: Executor, items: ReportItem[], bounds: Map<string, LocationBounds>): Promise<StaffWindow[]> {
  const inScope = items.filter((item) => bounds.has(item.location_id))
  if (inScope.length === 0) return []
  // One earlier window: the plan then lists the windows inside each period window as well.
  const { planned } = await planReportWindows(db, inScope, bounds, 1)
  const spans = planned.flatMap(({ item, window }) => spansInside(window).map((span) => ({ item, ...span })))
  const movements = await movementsInSpans(
    db,
    spans.map((span) => ({ itemId: span.item.id, from: span.openedAt, to: span.closedAt })),
    { walk: false },
  )
  const windows = spans.map(({ item, openedAt, closedAt, opening, closing, unitCost }, index): StaffWindow => {
    const moved = movements[index] as (typeof movements)[number]
    const expected = decimal(moved.usage)
    const actual = opening.plus(moved.deliveries).plus(moved.transfersIn).minus(moved.transfersOut).minus(closing)
    return {
      item,
      openedAt,
      closedAt,
      expected,
      variance: actual.minus(expected).minus(moved.waste),
      movedApart: decimal(moved.transfersIn).plus(moved.transfersOut).plus(moved.waste),
      explained: false,
      unitCost,
    }
  })
  const byItem = new Map<ReportItem, StaffWindow[]>()
  for (const window of windows) {
    const itemWindows = byItem.get(window.item)
    if (itemWindows) itemWindows.push(window)
    else byItem.set(window.item, [window])
  }
  for (const itemWindows of byItem.values()) markExplained(itemWindows)
  return windows
}
