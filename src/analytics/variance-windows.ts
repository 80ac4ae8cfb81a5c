import type { Executor } from '../platform/db/database.js'
import { type CountPoint, type HistorySpan, movementsInSpans } from '../inventory/stock-history.js'
import { type Decimal, decimal, ZERO } from '../platform/decimal.js'
import { measureWindow, type WindowFacts, type WindowVariance } from './variance-causes.js'

/**
 * Count windows: an item's usage between two of its counts. actual = opening + deliveries − closing;
 * expected = the usage of every sale line sold in the window (DECISIONS, Analytics → Variance).
 */

const DAY_MS = 86_400_000
/** Earlier windows the cause rules look at. */
export const PREVIOUS_WINDOWS = 6

export interface CountWindow {
  opening: CountPoint
  closing: CountPoint
}

export interface MeasuredWindow extends CountWindow {
  /** Exact figures in the item's unit (decimal strings from the database, summed as decimals). */
  deliveries: Decimal
  expected: Decimal
  actual: Decimal
  /** Sale lines that used the item in the window. */
  saleLines: number
  /** The same in numbers, for the cause rules. */
  measured: WindowVariance
}

/**
 * The window a report over [start, end] reads for one item: from its latest count at or before start
 * (else its earliest inside the period) to its latest count at or before end; undefined without two.
 * `counts` are the item's counts at or before end, oldest first.
 */
export function reportWindow(counts: CountPoint[], start: Date, end: Date): { window: CountWindow; openingIndex: number } | undefined {
  const closingIndex = counts.findLastIndex((count) => count.countedAt <= end)
  const before = counts.findLastIndex((count) => count.countedAt <= start)
  const openingIndex = before >= 0 ? before : counts.findIndex((count) => count.countedAt > start)
  if (closingIndex < 0 || openingIndex < 0 || openingIndex >= closingIndex) return undefined
  return { window: { opening: counts[openingIndex] as CountPoint, closing: counts[closingIndex] as CountPoint }, openingIndex }
}

/** The consecutive windows of counts ending at index `last`, the latest PREVIOUS_WINDOWS of them, oldest first. */
export function windowsBefore(counts: CountPoint[], last: number): CountWindow[] {
  const windows: CountWindow[] = []
  for (let index = Math.max(1, last - PREVIOUS_WINDOWS + 1); index <= last; index++) {
    windows.push({ opening: counts[index - 1] as CountPoint, closing: counts[index] as CountPoint })
  }
  return windows
}

/** Measures windows of items (deliveries, usage and lowest theoretical stock from inventory's history), in order. */
export async function measureWindows(db: Executor, windows: { itemId: string; window: CountWindow }[]): Promise<MeasuredWindow[]> {
  const spans: HistorySpan[] = windows.map(({ itemId, window }) => ({ itemId, from: window.opening.countedAt, to: window.closing.countedAt }))
  const movements = await movementsInSpans(db, spans)
  return windows.map(({ window }, index) => {
    const movement = movements[index] as (typeof movements)[number]
    const opening = Number(window.opening.quantity)
    const facts: WindowFacts = {
      opening,
      deliveries: Number(movement.deliveries),
      closing: Number(window.closing.quantity),
      expected: Number(movement.usage),
      saleLines: movement.saleLines,
      days: (window.closing.countedAt.getTime() - window.opening.countedAt.getTime()) / DAY_MS,
      lowestTheoretical: opening + Number(movement.lowestNet),
    }
    const actual = decimal(window.opening.quantity).plus(movement.deliveries).minus(window.closing.quantity)
    return { ...window, deliveries: decimal(movement.deliveries), expected: decimal(movement.usage), actual, saleLines: facts.saleLines, measured: measureWindow(facts) }
  })
}

/** variance / expected × 100; 100 when expected is 0 and actual is not, 0 when both are (DECISIONS). */
export function variancePercentage(actual: Decimal, expected: Decimal): Decimal {
  if (expected.eq(0)) return actual.eq(0) ? ZERO : decimal(100)
  return actual.minus(expected).div(expected).times(100)
}
