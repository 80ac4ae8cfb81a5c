import { invalidParameter } from '../platform/errors.js'
import type { OrderLineInput, ReceiveOrderBody, UpdateOrderBody } from './ordering.schemas.js'
import type { OrderStatus } from './ordering.tables.js'

/** Fields that only mean something with one target status. */
const FIELDS_OF_STATUS: Record<string, OrderStatus> = {
  tracking_number: 'shipped',
  carrier: 'shipped',
  estimated_delivery: 'shipped',
  received_by: 'delivered',
  received_at: 'delivered',
}

function checkStatusFields(input: UpdateOrderBody): void {
  for (const [field, status] of Object.entries(FIELDS_OF_STATUS)) {
    const value = input[field as keyof UpdateOrderBody]
    if (value !== undefined && input.status !== status) {
      throw invalidParameter(field, value, `${field} is only accepted with status ${status}`)
    }
  }
}

/** PUT items are order lines, or with status delivered received lines; each must have its own fields. */
function splitItems(input: UpdateOrderBody): { orderLines?: OrderLineInput[]; receipt?: ReceiveOrderBody } {
  if (input.status === 'delivered') {
    if (!input.received_by) throw invalidParameter('received_by', null, 'received_by is required to receive an order')
    if (!input.items) throw invalidParameter('items', null, 'items with quantity_received are required to receive an order')
    const receiptLines = input.items.map((line, index) => {
      if (line.quantity_received === undefined || line.quantity !== undefined || line.unit !== undefined) {
        throw invalidParameter(`items[${index}]`, line, 'a received line has inventory_item_id, quantity_received and quantity_damaged or units_damaged')
      }
      const { inventory_item_id, quantity_received, quantity_damaged, units_damaged } = line
      return { inventory_item_id, quantity_received, quantity_damaged, units_damaged }
    })
    return { receipt: { received_by: input.received_by, received_at: input.received_at, items: receiptLines } }
  }
  if (!input.items) return {}
  const orderLines = input.items.map((line, index) => {
    if (line.quantity === undefined || line.unit === undefined || line.quantity_received !== undefined || line.quantity_damaged !== undefined || line.units_damaged !== undefined) {
      throw invalidParameter(`items[${index}]`, line, 'an order line has inventory_item_id, quantity and unit')
    }
    return { inventory_item_id: line.inventory_item_id, quantity: line.quantity, unit: line.unit }
  })
  return { orderLines }
}

/** What a PUT asks besides its status: new order lines, or (with status delivered) a receipt. Throws invalid_parameter. */
export function parseUpdate(input: UpdateOrderBody): { orderLines?: OrderLineInput[]; receipt?: ReceiveOrderBody } {
  checkStatusFields(input)
  return splitItems(input)
}
