import { parsePastTime } from '../platform/http/date-filter.js'
import { type DeliveredLine, inventoryErrors, parseQuantity, receiveDelivery } from '../inventory/index.js'
import type { Tenant, Trx } from '../platform/db/database.js'
import { type Decimal, decimal, toDbNumeric } from '../platform/decimal.js'
import { invalidParameter } from '../platform/errors.js'
import { enqueue } from '../platform/outbox.js'
import { checkTransition } from './order-status.js'
import { listOrderLines, type OrderLineRow, type OrderRow, setLineReceipt, updateOrderRow } from './orders.repository.js'
import type { ReceiptLineInput, ReceiveOrderBody } from './ordering.schemas.js'

/** What arrived of an order line: in the unit ordered, and the damaged part of it in the item's unit. */
interface LineReceipt {
  received: Decimal
  damagedUnits: Decimal
}

const NOTHING_RECEIVED: LineReceipt = { received: decimal(0), damagedUnits: decimal(0) }

/**
 * A received line's damage in the item's unit, from units_damaged or from quantity_damaged (in the unit
 * ordered), and the field it came from. Throws invalid_parameter when both are given, invalid_quantity.
 */
function parseDamage(line: ReceiptLineInput, orderLine: OrderLineRow, field: string): { units: Decimal; field: string; value: number } {
  if (line.units_damaged === undefined) {
    const value = line.quantity_damaged ?? 0
    const units = parseQuantity(value, `${field}.quantity_damaged`).times(orderLine.units_per_ordered_unit)
    return { units, field: `${field}.quantity_damaged`, value }
  }
  if (line.quantity_damaged !== undefined) {
    throw invalidParameter(`${field}.units_damaged`, line.units_damaged, 'give quantity_damaged (in the unit ordered) or units_damaged (in the item’s unit), not both')
  }
  return { units: parseQuantity(line.units_damaged, `${field}.units_damaged`), field: `${field}.units_damaged`, value: line.units_damaged }
}

function parseReceipts(items: ReceiptLineInput[], orderLines: Map<string, OrderLineRow>): Map<string, LineReceipt> {
  const receipts = new Map<string, LineReceipt>()
  for (const [index, line] of items.entries()) {
    const field = `items[${index}]`
    const orderLine = orderLines.get(line.inventory_item_id)
    if (!orderLine) {
      throw invalidParameter(`${field}.inventory_item_id`, line.inventory_item_id, `item ${line.inventory_item_id} is not on this order`)
    }
    if (receipts.has(line.inventory_item_id)) {
      throw invalidParameter(`${field}.inventory_item_id`, line.inventory_item_id, `item ${line.inventory_item_id} is received twice`)
    }
    const received = parseQuantity(line.quantity_received, `${field}.quantity_received`)
    const damage = parseDamage(line, orderLine, field)
    if (damage.units.gt(received.times(orderLine.units_per_ordered_unit))) {
      throw inventoryErrors.invalidQuantity(`${damage.field} exceeds quantity_received`, { parameter: damage.field, value: damage.value })
    }
    receipts.set(line.inventory_item_id, { received, damagedUnits: damage.units })
  }
  return receipts
}

/** What a received line brings into stock: the good units, at the line's price per item unit. */
function deliveredLine(line: OrderLineRow, receipt: LineReceipt): DeliveredLine {
  return {
    itemId: line.inventory_item_id,
    lineNo: line.position,
    units: receipt.received.times(line.units_per_ordered_unit).minus(receipt.damagedUnits),
    unitCost: decimal(line.unit_price).div(line.units_per_ordered_unit),
  }
}

/** Receives a locked shipped order (receiveOrder says what that records). */
export async function receiveLocked(trx: Trx, tenant: Tenant, order: OrderRow, input: ReceiveOrderBody): Promise<void> {
  checkTransition(order, 'delivered')
  const requestedAt = input.received_at === undefined ? undefined : parsePastTime(input.received_at, 'received_at')
  const lines = await listOrderLines(trx, order.id)
  const receipts = parseReceipts(input.items, new Map(lines.map((line) => [line.inventory_item_id, line])))
  const received = lines.map((line) => ({ line, receipt: receipts.get(line.inventory_item_id) ?? NOTHING_RECEIVED }))
  const delivered = received.map(({ line, receipt }) => deliveredLine(line, receipt)).filter((line) => line.units.gt(0))
  const deliveredAt = await receiveDelivery(trx, tenant, { referenceId: order.id, actor: input.received_by, receivedAt: requestedAt }, delivered)
  for (const { line, receipt } of received) {
    await setLineReceipt(trx, order.id, line.inventory_item_id, {
      quantity_received: toDbNumeric(receipt.received),
      quantity_damaged: toDbNumeric(receipt.damagedUnits.div(line.units_per_ordered_unit)),
      units_damaged: toDbNumeric(receipt.damagedUnits),
    })
  }
  await updateOrderRow(trx, order.id, { status: 'delivered', delivered_at: deliveredAt, received_by: input.received_by })
  const counted = [...receipts.values()]
  await enqueue(trx, tenant, 'order.delivered', {
    order_id: order.id,
    delivered_at: deliveredAt.toISOString(),
    received_by: input.received_by,
    items_received: counted.filter((receipt) => receipt.received.gt(0)).length,
    items_damaged: counted.filter((receipt) => receipt.damagedUnits.gt(0)).length,
  })
}
