import type Big from 'big.js'
import { PosAdapterError, type PosProduct, type PosSaleLine, type PosStaffMember } from '../../adapter.js'
import { ZERO, sum } from '../../../platform/decimal.js'
import { readVendorDecimal, splitCheckTip, unitPriceOf } from '../sale-amounts.js'
import {
  SPOTON_VENDOR,
  type SpotOnEmployee,
  type SpotOnMenuItem,
  type SpotOnOrder,
  type SpotOnOrderCheck,
  type SpotOnOrderMenuItem,
  type SpotOnReportCategory,
} from './spoton.client.js'

/**
 * SpotOn shapes to barstock's. Money and quantities are decimal strings. Sold lines are a check's
 * `guests[].items[]` plus its own `items[]`; `voidedItems[]` never count, and neither do deleted
 * orders. Subitems (the parts of a combo) carry the parent's quantity and are not sold on their own,
 * so only top-level items are lines.
 */

const decimalField = (value: unknown, field: string) => readVendorDecimal(SPOTON_VENDOR, value, field)

export function toPosProducts(items: SpotOnMenuItem[], categories: SpotOnReportCategory[]): PosProduct[] {
  const categoryNames = new Map(categories.map((category) => [category.id, category.name]))
  return items
    .filter((item) => !item.deleted)
    .map((item) => ({
      posItemId: item.id,
      name: item.name,
      category: categoryNames.get(item.reportCategoryId) ?? null,
      sku: item.plu || null,
      price: item.standardPriceAmount ? decimalField(item.standardPriceAmount, 'standardPriceAmount').toFixed(2) : null,
    }))
}

export function toPosStaff(employees: SpotOnEmployee[]): PosStaffMember[] {
  return employees
    .filter((employee) => !employee.deleted)
    .map((employee) => ({
      staffId: employee.id,
      name: `${employee.firstName} ${employee.lastName}`.trim(),
      role: employee.jobPositions?.find((position) => !position.deleted)?.name ?? null,
    }))
}

/** Every sold line of the orders, in order; orders still open or deleted have none. */
export function toPosSaleLines(orders: SpotOnOrder[]): PosSaleLine[] {
  return orders.filter((order) => !order.deleted && order.closedAt).flatMap((order) => orderLines(order))
}

function orderLines(order: SpotOnOrder): PosSaleLine[] {
  const soldAt = readTimestamp(order.closedAt, 'closedAt')
  const lineIds = new LineIds(order.id)
  return order.checks.flatMap((check) => {
    const sold = soldItems(check)
      .map((item) => ({ item, quantity: decimalField(item.quantity, 'quantity'), amount: decimalField(item.postDiscountsAmount, 'postDiscountsAmount') }))
      .filter(({ quantity }) => quantity.gt(ZERO))
    const tips = splitCheckTip(checkTip(check), sold.map(({ amount }) => amount))
    return sold.map(({ item, quantity, amount }, index): PosSaleLine => ({
      lineId: lineIds.next(item),
      posItemId: item.menuItemId,
      name: item.name,
      quantity: quantity.toString(),
      unitPrice: unitPriceOf(amount, quantity),
      soldAt,
      checkId: order.id,
      staffId: order.createdByEmployeeId || null,
      staffName: order.createdByEmployeeName || null,
      tip: tips[index] ?? null,
    }))
  })
}

function soldItems(check: SpotOnOrderCheck): SpotOnOrderMenuItem[] {
  return [...(check.guests ?? []).flatMap((guest) => guest.items ?? []), ...(check.items ?? [])]
}

function checkTip(check: SpotOnOrderCheck): Big {
  return sum((check.payments ?? []).map((payment) => decimalField(payment.tipAmount ?? '0', 'tipAmount')))
}

function readTimestamp(value: string | null, field: string): Date {
  const date = new Date(value ?? '')
  if (Number.isNaN(date.getTime())) throw new PosAdapterError('invalid_response', `${SPOTON_VENDOR} sent ${field} ${value}`)
  return date
}

/**
 * SpotOn order lines have no id of their own. A line is named by its order, menu item and the time it
 * was rung in, numbered when the same item was rung in twice at once: unlike a position in the list,
 * this survives another line of the order being voided between two syncs.
 */
class LineIds {
  private readonly seen = new Map<string, number>()

  constructor(private readonly orderId: string) {}

  next(item: SpotOnOrderMenuItem): string {
    const key = `${this.orderId}:${item.menuItemId}:${item.createdAt}`
    const occurrence = this.seen.get(key) ?? 0
    this.seen.set(key, occurrence + 1)
    return `${key}:${occurrence}`
  }
}
