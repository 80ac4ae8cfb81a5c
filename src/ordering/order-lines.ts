import type { Tenant, Trx } from '../platform/db/database.js'
import { MONEY_DECIMALS, toDbNumeric, UNIT_COST_DECIMALS } from '../platform/decimal.js'
import { getDistributorRow } from './distributors.service.js'
import { type PricedLine, priceLines } from './order-pricing.js'
import { type OrderRow, replaceOrderLines, updateOrderRow } from './orders.repository.js'
import { orderingErrors } from './ordering.errors.js'
import type { OrderLineInput } from './ordering.schemas.js'

/** An order's priced lines as rows, in the order given. */
export function lineRows(orderId: string, lines: PricedLine[]) {
  return lines.map((line, position) => ({
    order_id: orderId,
    position,
    inventory_item_id: line.itemId,
    quantity: toDbNumeric(line.quantity),
    unit: line.unit,
    units_per_ordered_unit: toDbNumeric(line.unitsPerOrderedUnit),
    unit_price: toDbNumeric(line.unitPrice, UNIT_COST_DECIMALS),
    total: toDbNumeric(line.total, MONEY_DECIMALS),
  }))
}

/** Re-prices a locked draft's lines; items change only in draft (invalid_status). */
export async function replaceItems(trx: Trx, tenant: Tenant, order: OrderRow, items: OrderLineInput[]): Promise<void> {
  if (order.status !== 'draft') {
    throw orderingErrors.invalidStatus(`Order ${order.id} is ${order.status}; items change only in draft`, { status: order.status })
  }
  const distributor = await getDistributorRow(trx, tenant, order.distributor_id)
  const { lines, total } = await priceLines(trx, tenant, distributor, order.location_id, items)
  await replaceOrderLines(trx, order.id, lineRows(order.id, lines))
  order.total_amount = toDbNumeric(total, MONEY_DECIMALS)
  await updateOrderRow(trx, order.id, { total_amount: order.total_amount })
}
