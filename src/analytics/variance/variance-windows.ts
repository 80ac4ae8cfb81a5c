import type { Executor, Trx } from '../../platform/db/database.js'
import { type HistorySpan, movementsInSpans, type SpanMovement } from '../../inventory/index.js'
import { allLocations } from '../../locations/index.js'
import type { Tenant } from '../../platform/db/database.js'
import { type BusinessDaySplit, businessDaySplits, PERCENT_DECIMALS, shiftDate } from '../report-period.js'
import { type DayNet, type DaysTotal, type ItemDays, rolledUpDays } from '../rollups.repository.js'
import { type Decimal, decimal, percentShownAt, scaledOut, sum, toScaled, ZERO } from '../../platform/decimal.js'
import type { WindowFacts } from './variance-causes.js'
import { mayStoreWindows, storeWindows, type WindowNumbers, type WindowTotals } from './count-windows.repository.js'
import {
  type CountPoint,
  earlierClosedAt,
  earlierClosing,
  earlierCount,
  earlierCountIds,
  earlierOpenedAt,
  earlierOpening,
  earlierStored,
  type EarlierWindows,
} from './window-plan.repository.js'
import { DAY_MS } from '../../platform/zoned-time.js'

/**
 * Count windows: an item's usage between two of its counts. actual = opening + deliveries + transfers in
 * − transfers out − closing; expected = the usage of every sale line sold in the window; recorded waste
 * is usage explained apart (DECISIONS, Analytics → Variance).
 */

/** Earlier windows the cause rules look at. */
export const PREVIOUS_WINDOWS = 6
/** Decimals a window's quantities are exact to, as scaled integers (usage is stored with 8, counts and deliveries with 4). */
export const QUANTITY_PLACES = 8
/** Decimals of a window's costs: a quantity times a cost per unit (4 decimals). */
export const COST_PLACES = QUANTITY_PLACES + 4

export interface CountWindow {
  opening: CountPoint
  closing: CountPoint
}

export interface MeasuredWindow extends CountWindow {
  /** Exact figures in the item's unit, scaled to QUANTITY_PLACES. */
  expected: bigint
  actual: bigint
  /** Recorded waste: usage explained apart from sales. */
  waste: bigint
  /** Sale lines that used the item in the window. */
  saleLines: number
  /** As read or measured: the cause rules' walked facts reuse them when they hold the lowest net. */
  totals: WindowTotals
}

export interface WindowOfItem {
  item: { id: string; location_id: string }
  window: CountWindow
}

/** What measuring a window reads: its item and its two counts. */
interface WindowSpan {
  item: { id: string; location_id: string }
  openingCountId: string
  closingCountId: string
  openedAt: Date
  closedAt: Date
}

function spanOf({ item, window }: WindowOfItem): WindowSpan {
  return { item, openingCountId: window.opening.countId, closingCountId: window.closing.countId, openedAt: window.opening.countedAt, closedAt: window.closing.countedAt }
}

interface WindowParts {
  /** Raw spans at the edges: the rest of the opening count's business day, the start of the closing count's. */
  edges: HistorySpan[]
  /** The whole business days between them, from the daily rollup. */
  days: ItemDays | undefined
}

/** Splits a window at business-day boundaries: raw history for the partial days at its ends, rollups in between. */
function partsOf({ item, openedAt: from, closedAt: to }: WindowSpan, split: BusinessDaySplit): WindowParts {
  if (split.firstDay === split.lastDay) return { edges: [{ itemId: item.id, from, to }], days: undefined }
  // Raw spans exclude their start: the first runs to the last moment of its day, the second from the first of the closing day.
  const edges = [
    { itemId: item.id, from, to: new Date(split.firstDayEnd.getTime() - 1) },
    { itemId: item.id, from: new Date(split.lastDayStart.getTime() - 1), to },
  ]
  const firstWhole = shiftDate(split.firstDay, 1)
  const lastWhole = shiftDate(split.lastDay, -1)
  return { edges, days: firstWhole <= lastWhole ? { itemId: item.id, firstDay: firstWhole, lastDay: lastWhole } : undefined }
}

/** What came in less what went out in a span: deliveries and transfers in, less usage, transfers out and waste. */
function netOf(movement: Omit<WindowTotals, 'saleLines' | 'lowestNet' | 'wasteCost'>): Decimal {
  return decimal(movement.deliveries).plus(movement.transfersIn).minus(movement.transfersOut).minus(movement.waste).minus(movement.usage)
}

/**
 * The lowest that what came in less what went out took stock below the opening count, walking the window: exact
 * inside the partial days at its ends, at each day's end in between (a dip inside a whole day is not seen).
 */
function lowestNet(edges: SpanMovement[], days: DayNet[]): Decimal {
  let running = ZERO
  let lowest = ZERO
  const step = (edge: SpanMovement | undefined) => {
    if (!edge) return
    const dip = running.plus(edge.lowestNet)
    if (dip.lt(lowest)) lowest = dip
    running = running.plus(netOf(edge))
  }
  step(edges[0])
  for (const day of days) {
    running = running.plus(day.net)
    if (running.lt(lowest)) lowest = running
  }
  step(edges[1])
  return lowest
}

/** Deliveries, usage and (with `walk`) lowest net of windows from history: raw ends, rolled-up days between. */
async function measureTotals(db: Executor, tenant: Tenant, windows: WindowSpan[], walk: boolean): Promise<WindowTotals[]> {
  const clocks = new Map((await allLocations(db, tenant)).map((location) => [location.id, { timezone: location.timezone, cutoff: location.business_day_cutoff }]))
  const splits = await businessDaySplits(
    db,
    windows.map(({ item, openedAt, closedAt }) => ({ from: openedAt, to: closedAt, clock: clocks.get(item.location_id) ?? UTC_CLOCK })),
  )
  const parts = windows.map((window, index) => partsOf(window, splits[index] as BusinessDaySplit))
  const wholeDays = parts.flatMap((part) => (part.days ? [part.days] : []))
  const [rawMovements, rolled] = await Promise.all([
    movementsInSpans(
      db,
      parts.flatMap((part) => part.edges),
      { walk },
    ),
    rolledUpDays(db, wholeDays, walk),
  ])
  let rawIndex = 0
  let rolledIndex = 0
  return parts.map((part) => {
    const edges = part.edges.map(() => rawMovements[rawIndex++] as SpanMovement)
    const middle = part.days ? (rolled[rolledIndex++] as DaysTotal) : undefined
    const total = (pick: (movement: SpanMovement | DaysTotal) => string) => sum([...edges.map((edge) => decimal(pick(edge))), decimal(middle ? pick(middle) : 0)]).toFixed()
    return {
      deliveries: total((movement) => movement.deliveries),
      usage: total((movement) => movement.usage),
      saleLines: edges.reduce((total, edge) => total + edge.saleLines, middle?.saleLines ?? 0),
      transfersIn: total((movement) => movement.transfersIn),
      transfersOut: total((movement) => movement.transfersOut),
      waste: total((movement) => movement.waste),
      wasteCost: total((movement) => movement.wasteCost),
      lowestNet: walk ? lowestNet(edges, middle?.days ?? []).toFixed() : null,
    }
  })
}

/**
 * Measures windows the store lacks and stores them when no change to the tenant's history is in flight
 * (mayStoreWindows: taken before measuring, held until the transaction commits). Inside a transaction
 * (a count) in it; otherwise in one of its own, whose commit does not wait for the disk.
 */
async function measureAndStore(db: Executor, tenant: Tenant, windows: WindowSpan[], walk: boolean): Promise<WindowTotals[]> {
  if (windows.length === 0) return []
  const measure = async (trx: Trx, storesOnly: boolean) => {
    const mayStore = await mayStoreWindows(trx, tenant, storesOnly)
    const totals = await measureTotals(trx, tenant, windows, walk)
    if (mayStore) {
      const stored = windows.map((window, index) => ({
        itemId: window.item.id,
        openingCountId: window.openingCountId,
        closingCountId: window.closingCountId,
        openingAt: window.openedAt,
        closingAt: window.closedAt,
        totals: totals[index] as WindowTotals,
      }))
      await storeWindows(trx, tenant, stored)
    }
    return totals
  }
  return db.isTransaction ? measure(db as Trx, false) : db.transaction().execute((trx) => measure(trx, true))
}

/**
 * A window's totals in numbers (the nearest double of each decimal), what the bar explains netted into
 * deliveries: summed exact as scaled integers (big.js did it at several times the cost, a thousand windows a report).
 */
function numbersOf(totals: WindowTotals): WindowNumbers {
  const scaled = (value: string) => toScaled(value, QUANTITY_PLACES)
  const explained = scaled(totals.deliveries) + scaled(totals.transfersIn) - scaled(totals.transfersOut) - scaled(totals.waste)
  return { deliveries: scaledOut(explained, QUANTITY_PLACES, QUANTITY_PLACES), usage: Number(totals.usage), saleLines: totals.saleLines }
}

/** A window's facts in numbers, as the cause rules read them. */
function factsOf(window: CountWindow, totals: WindowNumbers, lowestTheoretical: number): WindowFacts {
  return {
    opening: Number(window.opening.quantity),
    deliveries: totals.deliveries,
    closing: Number(window.closing.quantity),
    expected: totals.usage,
    saleLines: totals.saleLines,
    days: (window.closing.countedAt.getTime() - window.opening.countedAt.getTime()) / DAY_MS,
    lowestTheoretical,
  }
}

/** Earlier window `index`'s facts, as the cause rules read them: not walked, its lowest theoretical stock is taken as its opening. */
function earlierFactsOf(windows: EarlierWindows, index: number, totals: WindowNumbers): WindowFacts {
  const opening = earlierOpening(windows, index)
  // Whole milliseconds, as a Date keeps them.
  const days = (Math.trunc(earlierClosedAt(windows, index)) - Math.trunc(earlierOpenedAt(windows, index))) / DAY_MS
  return {
    opening,
    deliveries: totals.deliveries,
    closing: earlierClosing(windows, index),
    expected: totals.usage,
    saleLines: totals.saleLines,
    days,
    lowestTheoretical: opening,
  }
}

/** The lowest theoretical stock of a walked window: its opening count plus its lowest net, exact, then in a number. */
function lowestTheoreticalOf(window: CountWindow, totals: WindowTotals & { lowestNet: string }): number {
  return scaledOut(toScaled(window.opening.quantity, QUANTITY_PLACES) + toScaled(totals.lowestNet, QUANTITY_PLACES), QUANTITY_PLACES, QUANTITY_PLACES)
}

/** actual − expected − recorded waste (positive: a loss nobody explained), scaled to QUANTITY_PLACES. */
export function unexplainedUsage(window: MeasuredWindow): bigint {
  return window.actual - window.expected - window.waste
}

/** A window's figures from its counts and what moved between them, exact. */
function measuredWindow(window: CountWindow, totals: WindowTotals): MeasuredWindow {
  const scaled = (value: string) => toScaled(value, QUANTITY_PLACES)
  const actual = scaled(window.opening.quantity) + scaled(totals.deliveries) + scaled(totals.transfersIn) - scaled(totals.transfersOut) - scaled(window.closing.quantity)
  return { opening: window.opening, closing: window.closing, expected: scaled(totals.usage), actual, waste: scaled(totals.waste), saleLines: totals.saleLines, totals }
}

/**
 * Measures windows of items, in order, exact. A window the store holds (`stored`, as read with the plan)
 * costs nothing more, whatever its length or sales; the others are measured from inventory's raw
 * history for the partial business days at their ends and analytics' daily rollup for the whole days
 * between, O(days), and stored; with `walk`, walked as well (their lowest net, which walkedFacts reads).
 */
export async function measureWindows(
  db: Executor,
  tenant: Tenant,
  windows: (WindowOfItem & { window: { stored: WindowTotals | undefined } })[],
  walk = false,
): Promise<MeasuredWindow[]> {
  const missing = windows.filter((entry) => entry.window.stored === undefined)
  const measured = await measureAndStore(db, tenant, missing.map(spanOf), walk)
  let measuredIndex = 0
  return windows.map(({ window }) => measuredWindow(window, window.stored ?? (measured[measuredIndex++] as WindowTotals)))
}

/**
 * The facts the cause rules read of each item's earlier windows, in order: from the store where it holds
 * them, the others measured (and stored).
 */
export async function earlierFacts(db: Executor, tenant: Tenant, items: { item: { id: string; location_id: string }; earlier: EarlierWindows }[]): Promise<WindowFacts[][]> {
  // Indexed reads of the flat lists, no array per window: ten thousand windows a report.
  const missing: WindowSpan[] = []
  for (const { item, earlier } of items) {
    for (let index = 0; index < earlierCount(earlier); index++) {
      if (earlierStored(earlier, index) === undefined)
        missing.push({
          item,
          ...earlierCountIds(earlier, index),
          openedAt: new Date(earlierOpenedAt(earlier, index)),
          closedAt: new Date(earlierClosedAt(earlier, index)),
        })
    }
  }
  const measured = await measureAndStore(db, tenant, missing, false)
  let measuredIndex = 0
  return items.map(({ earlier }) => {
    const facts: WindowFacts[] = []
    for (let index = 0; index < earlierCount(earlier); index++) {
      // The store's totals where it holds the window, as the plan read them (deliveries already net of transfers and waste).
      facts.push(earlierFactsOf(earlier, index, earlierStored(earlier, index) ?? numbersOf(measured[measuredIndex++] as WindowTotals)))
    }
    return facts
  })
}

/**
 * The cause rules' facts of measured windows, with their lowest theoretical stock: from the totals they
 * were measured with where those were walked, the others walked now (and stored).
 */
export async function walkedFacts(db: Executor, tenant: Tenant, windows: (WindowOfItem & { measured: MeasuredWindow })[]): Promise<WindowFacts[]> {
  const unwalked = windows.filter((window) => window.measured.totals.lowestNet === null)
  const walked = await measureAndStore(db, tenant, unwalked.map(spanOf), true)
  let walkedIndex = 0
  return windows.map((window) => {
    const totals = (window.measured.totals.lowestNet === null ? walked[walkedIndex++] : window.measured.totals) as WindowTotals & { lowestNet: string }
    return factsOf(window.window, numbersOf(totals), lowestTheoreticalOf(window.window, totals))
  })
}

const UTC_CLOCK = { timezone: 'UTC', cutoff: '04:00' }

/**
 * variance / expected × 100 (DECISIONS): 100 when nothing was expected but something was used, 0 when
 * neither. The same rule for one item's units and for a report's costs (both scaled alike). As answered:
 * rounded to PERCENT_DECIMALS, exactly, and compared with thresholds only so rounded.
 */
export function varianceRate(variance: bigint, expected: bigint): number {
  if (expected === 0n) return variance === 0n ? 0 : 100
  return percentShownAt(PERCENT_DECIMALS, variance, expected)
}
