import { inventoryErrors } from '../inventory/inventory.errors.js'
import { lockItemRows, setStock } from '../inventory/inventory.service.js'
import type { Tenant, Trx } from '../platform/db/database.js'
import { type Decimal, decimal } from '../platform/decimal.js'

export interface StockAddition {
  itemId: string
  /** In the item's own unit. */
  units: Decimal
}

/**
 * Adds delivered stock through the ledger: the items are locked in id order, then each gets a 'delivery'
 * movement referencing the order, which emits inventory.updated (and inventory.low_stock if still low).
 * Throws item_not_found for an item deleted since it was ordered.
 */
export async function addDeliveredStock(
  trx: Trx,
  tenant: Tenant,
  additions: StockAddition[],
  movement: { actor: string; orderId: string; occurredAt: Date },
): Promise<void> {
  const items = await lockItemRows(trx, tenant, additions.map((addition) => addition.itemId))
  for (const addition of additions) {
    const item = items.get(addition.itemId)
    if (!item) throw inventoryErrors.itemNotFound(addition.itemId)
    await setStock(trx, tenant, item, decimal(item.quantity).plus(addition.units), {
      kind: 'delivery',
      actor: movement.actor,
      referenceId: movement.orderId,
      occurredAt: movement.occurredAt,
    })
  }
}
