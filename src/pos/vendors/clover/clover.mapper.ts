import type Big from 'big.js'
import { PosAdapterError, type PosProduct, type PosSaleLine, type PosStaffMember, type SalesWindow } from '../adapter.js'
import { decimal, MONEY_DECIMALS } from '../../../platform/decimal.js'
import { minorUnitsToString, readVendorInteger, splitTipInMinorUnits } from '../sale-amounts.js'
import {
  CLOVER_VENDOR,
  type CloverEmployee,
  type CloverItem,
  type CloverLineItem,
  type CloverList,
  type CloverModifier,
  type CloverModifierGroup,
  type CloverOrder,
  type CloverPayment,
  type CloverRefund,
} from './clover.client.js'

/**
 * Clover shapes to barstock's. Money is integer cents; a line item is one unit sold, or `unitQty`
 * thousandths of a unit for items sold by measure. A line is sold when the payment that paid it was
 * taken, with its modifications as lines of their own modifier items; a refund naming line items takes
 * them back, as correction lines dated when it was made. Exchanged lines are not consumption.
 */

/** Which time of a payment says when it was taken (see CloverConfig.paidTimeField). */
export type CloverPaidTimeField = 'modifiedTime' | 'createdTime'

/** A line item's `unitQty` is in thousandths of a unit; one without it is one unit. */
const UNIT_QTY_SCALE = 1000
/** Times a thousandth rather than divided by 1000: the same exact value, cheaper. */
const ONE_THOUSANDTH = decimal('0.001')

function invalid(message: string): PosAdapterError {
  return new PosAdapterError('invalid_response', `${CLOVER_VENDOR} ${message}`)
}

/** Clover's integer cents; `field` names the value only when it is not one. */
function readCents(cents: unknown, field: () => string): number {
  return readVendorInteger(CLOVER_VENDOR, cents, field)
}

function centsToMoney(cents: unknown, field: () => string): string {
  return minorUnitsToString(readCents(cents, field), MONEY_DECIMALS)
}

function readTime(value: unknown, field: () => string): Date {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid(`sent ${field()} ${JSON.stringify(value)}, not epoch milliseconds`)
  return new Date(value)
}

/** An expanded collection's elements; Clover always wraps them as `{elements: [...]}`. */
function elementsOf<T>(list: CloverList<T> | undefined, field: () => string): T[] {
  if (list === undefined) return []
  if (!Array.isArray((list as Partial<CloverList<T>> | null)?.elements)) throw invalid(`${field()} is not an {elements} list`)
  return list.elements
}

export function toPosProduct(item: CloverItem): PosProduct {
  return {
    posItemId: item.id,
    name: item.name,
    category: elementsOf(item.categories, () => `item ${item.id} categories`)[0]?.name ?? null,
    sku: item.sku || item.code || null,
    // A VARIABLE item is priced at the register; Clover's `price` is then not a price.
    price: item.priceType === 'VARIABLE' ? null : centsToMoney(item.price, () => `item ${item.id} price`),
  }
}

/** The modifiers of a group as products: they are sold as modifications of line items, and use stock. */
export function toPosModifierProducts(group: CloverModifierGroup): PosProduct[] {
  return elementsOf(group.modifiers, () => `modifier group ${group.id} modifiers`).map((modifier: CloverModifier) => ({
    posItemId: modifier.id,
    name: modifier.name,
    category: group.name,
    sku: null,
    price: modifier.price === undefined ? null : centsToMoney(modifier.price, () => `modifier ${modifier.id} price`),
  }))
}

export function toPosStaffMember(employee: CloverEmployee): PosStaffMember {
  // A merchant's own roles ("Bartender") say more than the system role behind them ("EMPLOYEE").
  const role = elementsOf(employee.roles, () => `employee ${employee.id} roles`)[0]?.name ?? employee.role?.toLowerCase() ?? null
  return { staffId: employee.id, name: employee.name, role }
}

/** One stock-using unit of a line item: the line itself, or one of its modifications. */
interface SaleUnit {
  lineId: string
  posItemId: string
  name: string
  quantity: Big
  /** The quantity in thousandths of a unit, and the price in cents: integers for the tip's split. */
  thousandths: number
  unitCents: number
  parentLineId: string | null
}

/** A line item with the payment that paid it. */
interface PaidLine {
  line: CloverLineItem
  payment: CloverPayment
  paidAt: Date
  units: SaleUnit[]
}

/** A line item and its modifications (each as many units as its line; one without an item or modifier names no product). */
function unitsOf(line: CloverLineItem): SaleUnit[] {
  const thousandths = line.unitQty === undefined ? UNIT_QTY_SCALE : readVendorInteger(CLOVER_VENDOR, line.unitQty, () => `line item ${line.id} unitQty`)
  const quantity = decimal(thousandths).times(ONE_THOUSANDTH)
  const units: SaleUnit[] = []
  if (line.item?.id) {
    const unitCents = readCents(line.price, () => `line item ${line.id} price`)
    units.push({ lineId: line.id, posItemId: line.item.id, name: line.name, quantity, thousandths, unitCents, parentLineId: null })
  }
  for (const modification of elementsOf(line.modifications, () => `line item ${line.id} modifications`)) {
    if (!modification.modifier?.id) continue
    const unitCents = readCents(modification.amount ?? 0, () => `modification ${modification.id} amount`)
    units.push({ lineId: modification.id, posItemId: modification.modifier.id, name: modification.name, quantity, thousandths, unitCents, parentLineId: line.id })
  }
  return units
}

/**
 * Each line item with the payment that paid it: the first successful payment taken (its `paidTimeField`)
 * at or after the line was rung. A line rung after every payment (an order reopened, not paid again) is
 * not sold yet; Clover writes no time on the order for its close, so the payments are what say it.
 */
function paidLines(order: CloverOrder, paidTimeField: CloverPaidTimeField): PaidLine[] {
  const payments = elementsOf(order.payments, () => `order ${order.id} payments`)
    .filter((payment) => payment.result === undefined || payment.result === 'SUCCESS')
    .map((payment) => ({ payment, paidAt: readTime(payment[paidTimeField] ?? payment.createdTime, () => `payment ${payment.id} ${paidTimeField}`) }))
    .sort((a, b) => a.paidAt.getTime() - b.paidAt.getTime())
  return elementsOf(order.lineItems, () => `order ${order.id} lineItems`)
    .filter((line) => !line.exchanged)
    .flatMap((line) => {
      const rungAt = line.createdTime === undefined ? undefined : readTime(line.createdTime, () => `line item ${line.id} createdTime`)
      const paying = payments.find(({ paidAt }) => rungAt === undefined || paidAt >= rungAt)
      return paying ? [{ line, ...paying, units: unitsOf(line) }] : []
    })
}

function isIn(window: SalesWindow, time: Date): boolean {
  return time >= window.start && time < window.end
}

function toPosSaleLine(order: CloverOrder, unit: SaleUnit, soldAt: Date, tip: string | null): PosSaleLine {
  return {
    lineId: unit.lineId,
    posItemId: unit.posItemId,
    name: unit.name,
    quantity: unit.quantity.toString(),
    unitPrice: minorUnitsToString(unit.unitCents, MONEY_DECIMALS),
    soldAt,
    checkId: order.id,
    staffId: order.employee?.id ?? null,
    staffName: order.employee?.name ?? null,
    tip,
    parentLineId: unit.parentLineId,
  }
}

/** The lines paid in the window; each payment's tip is split over the lines (and modifications) it paid. */
function saleLines(order: CloverOrder, paid: PaidLine[], window: SalesWindow): PosSaleLine[] {
  const byPayment = new Map<CloverPayment, PaidLine[]>()
  for (const entry of paid) {
    const lines = byPayment.get(entry.payment)
    if (lines) lines.push(entry)
    else byPayment.set(entry.payment, [entry])
  }
  return [...byPayment].flatMap(([payment, lines]) => {
    const paidAt = lines[0]!.paidAt
    if (!isIn(window, paidAt)) return []
    const units = lines.flatMap((entry) => entry.units)
    const tip = readCents(payment.tipAmount ?? 0, () => `payment ${payment.id} tipAmount`)
    const tipShares = splitTipInMinorUnits(
      tip,
      units.map((unit) => BigInt(unit.unitCents) * BigInt(unit.thousandths)),
    )
    return units.map((unit, index) => toPosSaleLine(order, unit, paidAt, minorUnitsToString(tipShares[index]!, MONEY_DECIMALS)))
  })
}

/** A refund made in the window takes back each paid line item it names, and the line's modifications, at the price paid. */
function correctionLines(order: CloverOrder, paid: PaidLine[], window: SalesWindow): PosSaleLine[] {
  const paidById = new Map(paid.map((entry) => [entry.line.id, entry]))
  return elementsOf(order.refunds, () => `order ${order.id} refunds`).flatMap((refund: CloverRefund) => {
    const refundedAt = readTime(refund.createdTime, () => `refund ${refund.id} createdTime`)
    if (!isIn(window, refundedAt)) return []
    const taken = elementsOf(refund.lineItems, () => `refund ${refund.id} lineItems`).flatMap((ref) => paidById.get(ref.id)?.units ?? [])
    return taken.map((unit) => ({
      ...toPosSaleLine(order, { ...unit, quantity: unit.quantity.neg(), parentLineId: null }, refundedAt, null),
      lineId: `${refund.id}:${unit.lineId}`,
      correctsLineId: unit.lineId,
    }))
  })
}

/**
 * An order's lines for the window: those paid in it (refunded since or not: the refund is a correction
 * of its own) and the corrections of refunds made in it.
 */
export function toPosSaleLines(order: CloverOrder, window: SalesWindow, paidTimeField: CloverPaidTimeField): PosSaleLine[] {
  const paid = paidLines(order, paidTimeField)
  return [...saleLines(order, paid, window), ...correctionLines(order, paid, window)]
}
