import type { Tenant, Trx } from '../platform/db/database.js'
import { type Decimal, decimal, QUANTITY_STORED_DECIMALS, quantityOut, toDbNumeric, UNIT_COST_DECIMALS } from '../platform/decimal.js'
import { enqueue, outboxRow } from '../platform/outbox.js'
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
  /**
   * An absolute quantity (a count, starting stock, a PUT or batch quantity): the quantity it set as of
   * occurredAt. It becomes the item's anchor when it is the latest, and is written even when nothing changed.
   */
  anchorQuantity?: Decimal
  /** The cost per unit the rows keep; default the item's cost_per_unit (a delivery keeps the price it was received at). */
  unitCost?: Decimal
}

/** One step of a change written as several ledger rows at once (a day of sales each). */
export interface LedgerStep {
  delta: Decimal
  occurredAt: Date
}

/**
 * The recommended order when an item runs low: enough to bring it back to its par level, or without one
 * to twice its reorder point, rounded up to whole cases when the item has a case size.
 */
export function recommendedOrder(quantity: Decimal, reorderPoint: Decimal, parLevel: Decimal | null, caseSize: number | null): number {
  let amount = (parLevel ?? reorderPoint.times(2)).minus(quantity)
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
export async function setStock(trx: Trx, tenant: Tenant, item: ItemRow, quantity: Decimal, movement: StockMovement, baseline: ItemRow = item): Promise<ItemRow> {
  const delta = quantity.minus(decimal(item.quantity))
  if (delta.eq(0) && movement.anchorQuantity === undefined) return item
  return writeMovements(trx, tenant, item, [{ delta, occurredAt: movement.occurredAt ?? new Date() }], movement, baseline)
}

/**
 * Writes chained ledger rows for a locked item (each row's before is the last one's after), the item's
 * new quantity and anchor, and one `inventory.updated` for the whole change (plus `inventory.low_stock`
 * on crossing), in one statement. Data-modifying CTEs run whether or not the statement reads them: one round
 * trip for the whole change.
 */
export async function writeMovements(trx: Trx, tenant: Tenant, item: ItemRow, steps: LedgerStep[], movement: StockMovement, baseline: ItemRow = item): Promise<ItemRow> {
  const before = decimal(item.quantity)
  let running = before
  const rows = steps.map((step) => {
    // Rounded before chaining, so every row keeps quantity_after = quantity_before + delta exactly.
    const delta = step.delta.round(QUANTITY_STORED_DECIMALS)
    const rowBefore = running
    running = running.plus(delta)
    return {
      account_id: tenant.accountId,
      environment: tenant.environment,
      item_id: item.id,
      location_id: item.location_id,
      unit_cost: movement.unitCost === undefined ? item.cost_per_unit : toDbNumeric(movement.unitCost, UNIT_COST_DECIMALS),
      kind: movement.kind,
      delta: toDbNumeric(delta),
      quantity_before: toDbNumeric(rowBefore),
      quantity_after: toDbNumeric(running),
      actor: movement.actor,
      reference_id: movement.referenceId,
      occurred_at: step.occurredAt,
      anchor: movement.anchorQuantity !== undefined,
      anchor_quantity: movement.anchorQuantity === undefined ? null : toDbNumeric(movement.anchorQuantity),
    }
  })
  const after = toDbNumeric(running)
  const change = running.minus(before)
  const events = change.eq(0) ? [] : [updatedEvent(tenant, item, before, running, movement.actor)]
  const lowStock = newlyLowStock(baseline, { ...item, quantity: after })
  if (lowStock) events.push(outboxRow(tenant, 'inventory.low_stock', lowStock))
  const anchoredAt = movement.anchorQuantity !== undefined ? latest(item.anchored_at, steps) : item.anchored_at
  // An absolute quantity that changes nothing still confirms the item's stock: it moves last_updated.
  const touched = !change.eq(0) || movement.anchorQuantity !== undefined
  const itemFields = { quantity: after, anchored_at: anchoredAt, ...(touched && { last_updated: new Date() }) }
  if (events.length === 0) {
    // An anchor that changes nothing: its row, and the item's anchor, with no event.
    await trx.insertInto('stock_movements').values(rows).execute()
    return trx.updateTable('inventory_items').set(itemFields).where('id', '=', item.id).returningAll().executeTakeFirstOrThrow()
  }
  return trx
    .with('movement', (db) => db.insertInto('stock_movements').values(rows))
    .with('events', (db) => db.insertInto('outbox_events').values(events))
    .updateTable('inventory_items')
    .set(itemFields)
    .where('id', '=', item.id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

function updatedEvent(tenant: Tenant, item: ItemRow, before: Decimal, after: Decimal, actor: string) {
  return outboxRow(tenant, 'inventory.updated', {
    item_id: item.id,
    name: item.name,
    previous_quantity: quantityOut(before),
    new_quantity: quantityOut(after),
    change: quantityOut(after.minus(before)),
    location: item.location_id,
    updated_by: actor,
  })
}

/** The later of the current anchor and the steps' times: a back-dated count older than the anchor does not move it. */
function latest(anchoredAt: Date, steps: LedgerStep[]): Date {
  return steps.reduce((at, step) => (step.occurredAt > at ? step.occurredAt : at), anchoredAt)
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
    recommended_order: recommendedOrder(quantity, reorderPoint, after.par_level === null ? null : decimal(after.par_level), after.case_size),
  }
}

/** Emits inventory.low_stock when `after` is low and `before` was not (undefined before: a new item). */
export async function notifyIfNewlyLow(trx: Trx, tenant: Tenant, before: ItemRow | undefined, after: ItemRow): Promise<void> {
  const data = newlyLowStock(before, after)
  if (data) await enqueue(trx, tenant, 'inventory.low_stock', data)
}
