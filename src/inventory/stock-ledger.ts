import type { Tenant, Trx } from '../platform/db/database.js'
import { type Decimal, decimal, quantityOut, toDbNumeric } from '../platform/decimal.js'
import { enqueue, notifyOutbox, outboxRow } from '../platform/outbox.js'
import type { InventoryLowStockData } from './inventory.events.js'
import type { ItemRow } from './inventory.repository.js'
import type { MovementKind } from './inventory.tables.js'

export interface StockMovement {
  kind: MovementKind
  /** Who caused it: an API key id, a counter's name, a sync. */
  actor: string
  /** The count, batch, order or sync it belongs to. */
  referenceId: string | null
  occurredAt?: Date
}

/**
 * The recommended order when an item runs low: enough to bring it back to twice its reorder point (the
 * par level), rounded up to whole cases when the item has a case size.
 */
export function recommendedOrder(quantity: Decimal, reorderPoint: Decimal, caseSize: number | null): number {
  let amount = reorderPoint.times(2).minus(quantity)
  if (amount.lte(0)) return 0
  if (caseSize) amount = amount.div(caseSize).round(0, 3).times(caseSize)
  return quantityOut(amount)
}

/** Below its reorder point; an item with no reorder point is never low. */
export function isLowStock(quantity: Decimal, reorderPoint: Decimal): boolean {
  return quantity.lt(reorderPoint)
}

/**
 * Sets a locked item's quantity: one ledger row, the item row, `inventory.updated`, and
 * `inventory.low_stock` when the item crosses below its reorder point (not on every change below it),
 * all in one statement. The caller holds the row lock (lockItemRows) and the transaction. `baseline` is
 * the item as it was before the caller's whole change, when other fields (the reorder point) changed
 * first. Returns the updated row.
 */
export async function setStock(
  trx: Trx,
  tenant: Tenant,
  item: ItemRow,
  quantity: Decimal,
  movement: StockMovement,
  baseline: ItemRow = item,
): Promise<ItemRow> {
  const before = decimal(item.quantity)
  const delta = quantity.minus(before)
  if (delta.eq(0)) return item
  const after = toDbNumeric(quantity)
  const events = [
    outboxRow(tenant, 'inventory.updated', {
      item_id: item.id,
      name: item.name,
      previous_quantity: quantityOut(before),
      new_quantity: quantityOut(quantity),
      change: quantityOut(delta),
      location: item.location_id,
      updated_by: movement.actor,
    }),
  ]
  const lowStock = newlyLowStock(baseline, { ...item, quantity: after })
  if (lowStock) events.push(outboxRow(tenant, 'inventory.low_stock', lowStock))
  // Data-modifying CTEs all run, whatever the final SELECT reads: one round trip for the whole change.
  return trx
    .with('movement', (db) =>
      db.insertInto('stock_movements').values({
        account_id: tenant.accountId,
        environment: tenant.environment,
        item_id: item.id,
        kind: movement.kind,
        delta: toDbNumeric(delta),
        quantity_before: toDbNumeric(before),
        quantity_after: after,
        actor: movement.actor,
        reference_id: movement.referenceId,
        occurred_at: movement.occurredAt ?? new Date(),
      }),
    )
    .with('events', (db) => db.insertInto('outbox_events').values(events))
    .with('updated', (db) =>
      db.updateTable('inventory_items').set({ quantity: after, last_updated: new Date() }).where('id', '=', item.id).returningAll(),
    )
    .selectFrom('updated')
    .selectAll()
    .select(notifyOutbox.as('notified'))
    .executeTakeFirstOrThrow()
    .then(({ notified: _, ...row }) => row)
}

/** The low-stock event's data when `after` is low and `before` was not (undefined before: a new item). */
function newlyLowStock(before: ItemRow | undefined, after: ItemRow): InventoryLowStockData | undefined {
  const wasLow = before !== undefined && isLowStock(decimal(before.quantity), decimal(before.reorder_point))
  const quantity = decimal(after.quantity)
  const reorderPoint = decimal(after.reorder_point)
  if (wasLow || !isLowStock(quantity, reorderPoint)) return undefined
  return {
    item_id: after.id,
    name: after.name,
    current_quantity: quantityOut(quantity),
    reorder_point: quantityOut(reorderPoint),
    location: after.location_id,
    recommended_order: recommendedOrder(quantity, reorderPoint, after.case_size),
  }
}

/** Emits inventory.low_stock when `after` is low and `before` was not (undefined before: a new item). */
export async function notifyIfNewlyLow(trx: Trx, tenant: Tenant, before: ItemRow | undefined, after: ItemRow): Promise<void> {
  const data = newlyLowStock(before, after)
  if (data) await enqueue(trx, tenant, 'inventory.low_stock', data)
}
