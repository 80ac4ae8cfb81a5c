import type Big from 'big.js'
import { PosAdapterError, type PosProduct, type PosSaleLine, type PosStaffMember } from '../adapter.js'
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
 * `guests[].items[]` plus its own `items[]`, each with its `subItems` (an add-on or a combo's part, a
 * menu item of its own showing the parent's quantity) as lines under it. `modifiers[]` name no menu
 * item and no quantity, and SpotOn exports no modifier catalog, so they cannot be mapped to stock and
 * are left out. Deleted and open orders yield nothing.
 *
 * The export keeps no void or refund time per item: an item voided or refunded after its order closed
 * just moves to `voidedItems[]`, and the order's `updatedAt` moves. So an order updated after it closed
 * lists its voided items as sold at the close and taken back at `updatedAt` (an item voided before the
 * close comes out as a sale and its correction, which net to nothing).
 */

/** ⚠ An order updated this long after its close was changed after closing (the close itself also updates it). */
export const SPOTON_UPDATED_AFTER_CLOSE_MS = 60_000

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

/** Every sale and correction line of the orders, in order; orders still open or deleted have none. */
export function toPosSaleLines(orders: SpotOnOrder[]): PosSaleLine[] {
  return orders.filter((order) => !order.deleted && order.closedAt).flatMap((order) => orderLines(order))
}

interface OrderContext {
  order: SpotOnOrder
  closedAt: Date
  /** When the order was changed after closing, if it was. */
  changedAt: Date | null
  lineIds: LineIds
}

function orderLines(order: SpotOnOrder): PosSaleLine[] {
  const closedAt = readTimestamp(order.closedAt, 'order.closedAt')
  const updatedAt = readTimestamp(order.updatedAt, 'order.updatedAt')
  const changedAt = updatedAt.getTime() - closedAt.getTime() >= SPOTON_UPDATED_AFTER_CLOSE_MS ? updatedAt : null
  if (!Array.isArray(order.checks)) throw new PosAdapterError('invalid_response', `${SPOTON_VENDOR} sent order.checks ${JSON.stringify(order.checks)}`)
  const context: OrderContext = { order, closedAt, changedAt, lineIds: new LineIds(order.id) }
  return order.checks.flatMap((check) => checkLines(check, context))
}

function checkLines(check: SpotOnOrderCheck, context: OrderContext): PosSaleLine[] {
  const guests = check.guests ?? []
  const sold = [...guests.flatMap((guest) => guest.items ?? []), ...(check.items ?? [])].flatMap((item) => itemLines(item, context))
  const voided = [...guests.flatMap((guest) => guest.voidedItems ?? []), ...(check.voidedItems ?? [])].flatMap((item) => itemLines(item, context))
  const tips = splitCheckTip(
    checkTip(check),
    sold.map((line) => decimalField(line.unitPrice, 'unitPrice').times(line.quantity)),
  )
  const tipped = sold.map((line, index) => ({ ...line, tip: tips[index] ?? null }))
  const { changedAt } = context
  if (!changedAt) return tipped
  return [...tipped, ...voided, ...voided.map((line) => correctionOf(line, changedAt))]
}

/** An item and its subitems as lines sold at the order's close; a zero quantity sells nothing. */
function itemLines(item: SpotOnOrderMenuItem, context: OrderContext, parentLineId: string | null = null): PosSaleLine[] {
  const quantity = decimalField(item.quantity, 'item.quantity')
  if (quantity.lte(ZERO)) return []
  const lineId = parentLineId ? context.lineIds.nextUnder(parentLineId, item) : context.lineIds.next(item)
  const { order } = context
  const line: PosSaleLine = {
    lineId,
    posItemId: item.menuItemId,
    name: item.name,
    quantity: quantity.toString(),
    unitPrice: unitPriceOf(decimalField(item.postDiscountsAmount, 'item.postDiscountsAmount'), quantity),
    soldAt: context.closedAt,
    checkId: order.id,
    staffId: order.createdByEmployeeId || null,
    staffName: order.createdByEmployeeName || null,
    tip: null,
    ...(parentLineId && { parentLineId }),
  }
  return [line, ...(item.subItems ?? []).flatMap((subItem) => itemLines(subItem, context, lineId))]
}

/** Takes a voided item's sale back when the order was changed after closing. */
function correctionOf(sale: PosSaleLine, changedAt: Date): PosSaleLine {
  return { ...sale, lineId: `${sale.lineId}:voided`, quantity: `-${sale.quantity}`, soldAt: changedAt, parentLineId: null, correctsLineId: sale.lineId }
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

  /** A subitem's id: its parent's, its menu item, numbered among its parent's subitems of that item. */
  nextUnder(parentLineId: string, item: SpotOnOrderMenuItem): string {
    const key = `${parentLineId}/${item.menuItemId}`
    const occurrence = this.seen.get(key) ?? 0
    this.seen.set(key, occurrence + 1)
    return `${key}:${occurrence}`
  }
}
