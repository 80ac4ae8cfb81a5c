import type { Tenant, Trx } from '../platform/db/database.js'
import { type Decimal, ZERO, decimal } from '../platform/decimal.js'
import { type ItemRow, lockItemRows, setStock, type StockMovement } from '../inventory/inventory.service.js'
import { stockUsed } from '../inventory/conversion.js'
import { type MappingRow, mappingsOf } from './mappings.repository.js'

export interface DepletionResult {
  /** POS items whose units took stock (mapped to a live item). */
  depletedPosItems: Set<string>
  /** Inventory items this depletion took from zero or more to below zero. */
  itemsBelowZero: number
}

/**
 * What a mapping takes from stock for `units` sold: today one item per mapping. Recipe mappings (a later
 * issue) return each ingredient here, and the rest of the depletion stays as it is.
 */
function stockDemands(mapping: MappingRow, units: Decimal, items: Map<string, ItemRow>): { itemId: string; amount: Decimal }[] {
  const item = items.get(mapping.inventory_item_id)
  if (!item) return []
  return [{ itemId: item.id, amount: stockUsed(units, mapping.conversion_factor, mapping.conversion_unit, item) }]
}

/**
 * Takes sold POS units from stock through the connection's mappings: the amounts are summed per
 * inventory item first, so each item gets ONE ledger row (kind sale) per call, whatever the number of
 * lines. Stock may go below zero. The caller holds the transaction.
 */
export async function depleteStock(
  trx: Trx,
  tenant: Tenant,
  connectionId: string,
  unitsByPosItem: Map<string, Decimal>,
  movement: Omit<StockMovement, 'kind'>,
): Promise<DepletionResult> {
  const mappings = await mappingsOf(trx, connectionId, [...unitsByPosItem.keys()])
  const items = await lockItemRows(trx, tenant, [...mappings.values()].map((mapping) => mapping.inventory_item_id))
  const totals = new Map<string, Decimal>()
  const depletedPosItems = new Set<string>()
  for (const [posItemId, units] of unitsByPosItem) {
    const mapping = mappings.get(posItemId)
    if (!mapping) continue
    for (const demand of stockDemands(mapping, units, items)) {
      totals.set(demand.itemId, (totals.get(demand.itemId) ?? ZERO).plus(demand.amount))
      depletedPosItems.add(posItemId)
    }
  }
  let itemsBelowZero = 0
  for (const itemId of [...totals.keys()].sort()) {
    const item = items.get(itemId) as ItemRow
    const before = decimal(item.quantity)
    const after = before.minus(totals.get(itemId) as Decimal)
    await setStock(trx, tenant, item, after, { ...movement, kind: 'sale' })
    if (before.gte(0) && after.round(4).lt(0)) itemsBelowZero++
  }
  return { depletedPosItems, itemsBelowZero }
}

/** Sums decimal strings per key. */
export function unitsByKey(entries: Iterable<{ key: string; quantity: string }>): Map<string, Decimal> {
  const totals = new Map<string, Decimal>()
  for (const entry of entries) totals.set(entry.key, (totals.get(entry.key) ?? ZERO).plus(entry.quantity))
  return totals
}
