import { inventoryErrors, type InventoryItem, isUnit, UNITS } from '../inventory/index.js'
import { type Decimal, decimal } from '../platform/decimal.js'

/** The units an item can be ordered or sold in: its own unit, and case when it has a case size. */
export function orderableUnits(item: Pick<InventoryItem, 'unit' | 'case_size'>): string[] {
  return item.case_size && item.unit !== 'case' ? [item.unit, 'case'] : [item.unit]
}

/** How many of the item's own units one `unit` holds (1, or case_size for a case); undefined if none. */
export function findUnitsPer(item: Pick<InventoryItem, 'unit' | 'case_size'>, unit: string): Decimal | undefined {
  if (unit === item.unit) return decimal(1)
  if (unit === 'case' && item.case_size) return decimal(item.case_size)
  return undefined
}

/**
 * How many of the item's own units one `unit` holds. Throws invalid_unit for an unknown unit or one the
 * item cannot be ordered in.
 */
export function unitsPerOrderedUnit(item: Pick<InventoryItem, 'id' | 'unit' | 'case_size'>, unit: string, field: string): Decimal {
  if (!isUnit(unit)) throw inventoryErrors.invalidUnit([unit, UNITS.join(', ')], { parameter: field, value: unit })
  const factor = findUnitsPer(item, unit)
  if (factor) return factor
  const allowed = orderableUnits(item)
  throw inventoryErrors.invalidUnit([unit, `${allowed.join(', ')} for item ${item.id}`], { parameter: field, value: unit })
}
