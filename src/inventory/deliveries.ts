import type { Tenant, Trx } from '../platform/db/database.js'
import { type Decimal, decimal, toDbNumeric, UNIT_COST_DECIMALS } from '../platform/decimal.js'
import { inventoryErrors } from './inventory.errors.js'
import { type ItemRow, lockItemRows } from './inventory.repository.js'
import { latestCostChanges, recordCostChanges } from './item-costs.js'
import { insertOperationLines } from './operations.repository.js'
import { setStock } from './stock-ledger.js'
import { takesStock } from './stock-operations.js'

/**
 * Deliveries: what a received order brings into stock, and the price it brings. An item's cost_per_unit
 * is the price of its latest delivery by the time it was received: a bar's invoices change price, and the
 * last price paid is what the next bottle costs (a moving average would keep an old price alive for
 * months). A delivery received into the past, older than the item's latest cost change (a receipt or a
 * PUT of cost_per_unit), keeps its own price on its movement and in the item's cost history (the cost of
 * its time until the next change) and leaves the newer cost alone.
 */

/** One item's part of a delivery; a delivery has one line per item, as an order does. */
export interface DeliveredLine {
  itemId: string
  /** The delivery's line (the order line's position): a history line is recorded under it. */
  lineNo: number
  /** Added to stock, in the item's unit; greater than zero. */
  units: Decimal
  /** The price of one item unit as received. */
  unitCost: Decimal
}

export interface Delivery {
  /** The order received. */
  referenceId: string
  /** Who received it. */
  actor: string
  /** When it arrived; default now (taken once the items are locked). */
  receivedAt?: Date
}

/**
 * Receives a delivery's lines, the items locked in id order: each line's unit cost enters the item's cost
 * history at the time received, and becomes its cost_per_unit when nothing changed its cost later; then the units go to stock by the counts' rule. Received
 * after the item's anchor (its latest count or absolute quantity), a ledger row of kind delivery adds
 * them (inventory.updated, and inventory.low_stock if still low); received at or before it, the count
 * already saw them: a history line records them for analytics and current stock stays. Both keep the
 * unit cost as received. Answers the time the delivery was received at. Throws item_not_found for an
 * item deleted since it was ordered.
 */
export async function receiveDelivery(trx: Trx, tenant: Tenant, delivery: Delivery, lines: DeliveredLine[]): Promise<Date> {
  const items = await lockItemRows(
    trx,
    tenant,
    lines.map((line) => line.itemId),
  )
  // Taken under the lock, as a count's default time is: a count committed while this waited is before it.
  const receivedAt = delivery.receivedAt ?? new Date()
  const lastChanges = await latestCostChanges(trx, [...items.keys()])
  for (const line of lines) {
    const item = items.get(line.itemId)
    if (!item) throw inventoryErrors.itemNotFound(line.itemId)
    const last = lastChanges.get(item.id)
    const priced = last === undefined || receivedAt >= last ? await setCost(trx, item, line.unitCost) : item
    if (takesStock(priced, receivedAt)) {
      await setStock(trx, tenant, priced, decimal(priced.quantity).plus(line.units), {
        kind: 'delivery',
        actor: delivery.actor,
        referenceId: delivery.referenceId,
        occurredAt: receivedAt,
        unitCost: line.unitCost,
      })
    } else {
      await recordHistoryDelivery(trx, tenant, delivery.referenceId, priced, line, receivedAt)
    }
  }
  await recordCostChanges(
    trx,
    tenant,
    lines.map((line) => ({
      itemId: line.itemId,
      unitCost: toDbNumeric(line.unitCost, UNIT_COST_DECIMALS),
      effectiveAt: receivedAt,
      source: 'delivery' as const,
      referenceId: delivery.referenceId,
    })),
  )
  return receivedAt
}

async function setCost(trx: Trx, item: ItemRow, unitCost: Decimal): Promise<ItemRow> {
  return trx
    .updateTable('inventory_items')
    .set({ cost_per_unit: toDbNumeric(unitCost, UNIT_COST_DECIMALS), last_updated: new Date() })
    .where('id', '=', item.id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

/**
 * A delivery dated at or before the item's anchor: a line of kind delivery beside history transfers and
 * waste, which analytics reads as a delivery (variance windows, daily rollups) and theoretical stock
 * counts, while the ledger, which holds only what took current stock, gets no row.
 */
async function recordHistoryDelivery(trx: Trx, tenant: Tenant, orderId: string, item: ItemRow, line: DeliveredLine, receivedAt: Date): Promise<void> {
  await insertOperationLines(trx, [
    {
      account_id: tenant.accountId,
      environment: tenant.environment,
      operation_id: orderId,
      line_no: line.lineNo,
      kind: 'delivery',
      item_id: item.id,
      location_id: item.location_id,
      quantity: toDbNumeric(line.units),
      unit_cost: toDbNumeric(line.unitCost, UNIT_COST_DECIMALS),
      reason: null,
      entered_quantity: null,
      entered_unit: null,
      notes: null,
      occurred_at: receivedAt,
      applied: false,
    },
  ])
}
