import type { Executor, Tenant } from '../../platform/db/database.js'
import { toScaled } from '../../platform/decimal.js'
import { COST_PLACES, type MeasuredWindow, measureWindows, QUANTITY_PLACES, unexplainedUsage } from './variance-windows.js'
import type { PlannedWindow } from './window-plan.repository.js'

/**
 * A count window valued at the costs of its time (docs/analytics.md, "Costs of their time"): at the cost
 * in force at its closing count, the last price paid when the loss was counted. A window whose item's
 * cost changed between its counts (a report's window over several counts) is the sum of its parts, each
 * from one count to a later one and valued at the cost in force at that part's closing count; the
 * quantities of the parts add up to the window's exactly, so only the money differs from one cost.
 */

/** A window's money, exact, scaled to COST_PLACES. */
export interface WindowMoney {
  /** Expected usage, actual usage, and variance (actual − expected − recorded waste), each at the costs of its time. */
  expectedCost: bigint
  actualCost: bigint
  varianceCost: bigint
}

interface CostedEntry {
  item: { id: string; location_id: string }
  window: PlannedWindow
  measured: MeasuredWindow
}

function moneyAt(measured: MeasuredWindow, unitCost: string): WindowMoney {
  const cost = toScaled(unitCost, COST_PLACES - QUANTITY_PLACES)
  return { expectedCost: measured.expected * cost, actualCost: measured.actual * cost, varianceCost: unexplainedUsage(measured) * cost }
}

function sumOf(moneys: WindowMoney[]): WindowMoney {
  return moneys.reduce(
    (total, money) => ({
      expectedCost: total.expectedCost + money.expectedCost,
      actualCost: total.actualCost + money.actualCost,
      varianceCost: total.varianceCost + money.varianceCost,
    }),
    { expectedCost: 0n, actualCost: 0n, varianceCost: 0n },
  )
}

/**
 * The money of measured windows, in order. A window whose cost did not change costs nothing more; the
 * parts of the others are read from the store or measured (and stored) together.
 */
export async function windowMoney(db: Executor, tenant: Tenant, entries: CostedEntry[]): Promise<WindowMoney[]> {
  const parts = entries.flatMap(({ item, window }) => window.costs.parts.map((part) => ({ item, window: part })))
  const measuredParts = await measureWindows(db, tenant, parts)
  let partIndex = 0
  return entries.map(({ window, measured }) => {
    if (window.costs.parts.length === 0) return moneyAt(measured, window.costs.closing)
    return sumOf(window.costs.parts.map((part) => moneyAt(measuredParts[partIndex++] as MeasuredWindow, part.unitCost)))
  })
}
