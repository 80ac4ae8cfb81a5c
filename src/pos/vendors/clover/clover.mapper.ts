import type Big from 'big.js'
import { PosAdapterError, type PosProduct, type PosSaleLine, type PosStaffMember, type SalesWindow } from '../../adapter.js'
import { decimal, MONEY_DECIMALS, sum } from '../../../platform/decimal.js'
import { readVendorDecimal, splitCheckTip } from '../sale-amounts.js'
import { CLOVER_VENDOR, type CloverEmployee, type CloverItem, type CloverLineItem, type CloverOrder, type CloverPayment } from './clover.client.js'

/**
 * Clover shapes to barstock's. Money is integer cents; a line item is one unit sold, or `unitQty`
 * thousandths of a unit for items sold by measure; refunded and exchanged lines are not consumption.
 */

const UNIT_QTY_SCALE = 1000

const ONE_CENT = decimal('0.01')

function centsToMoney(cents: unknown, field: string): string {
  const value = readVendorDecimal(CLOVER_VENDOR, cents, field)
  if (!value.round(0).eq(value)) throw new PosAdapterError('invalid_response', `${CLOVER_VENDOR} sent ${field} ${String(cents)}, not whole cents`)
  // Times 0.01 rather than divided by 100: the same exact value for whole cents, at a third of the cost.
  return value.times(ONE_CENT).toFixed(MONEY_DECIMALS)
}

export function toPosProduct(item: CloverItem): PosProduct {
  return {
    posItemId: item.id,
    name: item.name,
    category: item.categories?.elements[0]?.name ?? null,
    sku: item.sku || item.code || null,
    // A VARIABLE item is priced at the register; Clover's `price` is then not a price.
    price: item.priceType === 'VARIABLE' ? null : centsToMoney(item.price, 'item price'),
  }
}

export function toPosStaffMember(employee: CloverEmployee): PosStaffMember {
  // A merchant's own roles ("Bartender") say more than the system role behind them ("EMPLOYEE").
  const role = employee.roles?.elements[0]?.name ?? employee.role?.toLowerCase() ?? null
  return { staffId: employee.id, name: employee.name, role }
}

function successfulPayments(order: CloverOrder): CloverPayment[] {
  return (order.payments?.elements ?? []).filter((payment) => payment.result === undefined || payment.result === 'SUCCESS')
}

/**
 * When an order was closed: its last successful payment, or, for a locked order nobody paid for (all
 * comped), its last change. Undefined for an order still open.
 */
export function closedAtOf(order: CloverOrder): Date | undefined {
  const paidTimes = successfulPayments(order).map((payment) => payment.createdTime)
  if (paidTimes.length > 0) return new Date(Math.max(...paidTimes))
  if (order.state === 'locked' && order.modifiedTime !== undefined) return new Date(order.modifiedTime)
  return undefined
}

function quantityOf(line: CloverLineItem): Big {
  return line.unitQty === undefined ? decimal(1) : readVendorDecimal(CLOVER_VENDOR, line.unitQty, 'line unitQty').div(UNIT_QTY_SCALE)
}

function tipOf(order: CloverOrder): Big {
  return sum(successfulPayments(order).map((payment) => readVendorDecimal(CLOVER_VENDOR, payment.tipAmount ?? 0, 'payment tipAmount'))).div(100)
}

/** The consumption lines of an order closed inside the window; none for an open order or one closed outside. */
export function toPosSaleLines(order: CloverOrder, window: SalesWindow): PosSaleLine[] {
  const soldAt = closedAtOf(order)
  if (!soldAt || soldAt < window.start || soldAt >= window.end) return []
  const sold = (order.lineItems?.elements ?? []).filter((line) => !line.refunded && !line.exchanged && line.item?.id)
  const quantities = sold.map(quantityOf)
  const unitPrices = sold.map((line) => centsToMoney(line.price, 'line price'))
  const tipShares = sold.length > 0 ? splitCheckTip(tipOf(order), sold.map((_, index) => decimal(unitPrices[index]!).times(quantities[index]!))) : []
  const tipReported = order.payments !== undefined
  return sold.map((line, index) => ({
    lineId: line.id,
    posItemId: line.item!.id,
    name: line.name,
    quantity: quantities[index]!.toString(),
    unitPrice: unitPrices[index]!,
    soldAt,
    checkId: order.id,
    staffId: order.employee?.id ?? null,
    staffName: order.employee?.name ?? null,
    tip: tipReported ? tipShares[index]! : null,
  }))
}
