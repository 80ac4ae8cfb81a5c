import type Big from 'big.js'
import { PosAdapterError, type PosProduct, type PosSaleLine, type PosStaffMember } from '../adapter.js'
import { MONEY_DECIMALS, sum, ZERO } from '../../../platform/decimal.js'
import { readVendorDecimal, splitCheckTip, unitPriceOf } from '../sale-amounts.js'
import {
  TOAST_VENDOR,
  type ToastCheck,
  type ToastEmployee,
  type ToastJob,
  type ToastMenuGroup,
  type ToastOrder,
  type ToastPayment,
  type ToastRestaurantMenus,
  type ToastSelection,
} from './toast.client.js'

/**
 * Toast shapes to barstock's: money and quantities are JSON numbers in the major unit; a selection's
 * `price` and `preDiscountPrice` are for the whole selection (modifiers included), `receiptLinePrice`
 * for one unit of it alone. A selection is sold when its check closes; a modifier selection is a line
 * of its own item under its parent. A selection voided after its check closed, or refunded in full,
 * also yields a correction dated when that happened. Voided or deleted orders and checks, and
 * selections voided before their check closed, yield nothing.
 */

const decimalField = (value: unknown, field: string) => readVendorDecimal(TOAST_VENDOR, value, field)

function invalid(field: string, value: unknown): PosAdapterError {
  return new PosAdapterError('invalid_response', `${TOAST_VENDOR} sent ${field} ${JSON.stringify(value)}, which its orders API does not document`)
}

function dateField(value: unknown, field: string): Date {
  const time = typeof value === 'string' ? Date.parse(value) : Number.NaN
  if (Number.isNaN(time)) throw invalid(field, value)
  return new Date(time)
}

function menuPrice(price: unknown, field: string): string | null {
  // Open-priced and market-priced items have no menu price.
  return price === null || price === undefined ? null : decimalField(price, field).toFixed(MONEY_DECIMALS)
}

/**
 * Every menu item once (an item can sit in several menus and groups), with its sales category, and
 * every modifier option (a modifier selection names the option's `guid` as its item).
 */
export function mapMenus(restaurant: ToastRestaurantMenus): PosProduct[] {
  const products = new Map<string, PosProduct>()
  const visit = (group: ToastMenuGroup) => {
    for (const item of group.menuItems ?? []) {
      if (products.has(item.guid)) continue
      products.set(item.guid, {
        posItemId: item.guid,
        name: item.name,
        // The sales category is what Toast reports on; the menu group is only where the button sits.
        category: item.salesCategory?.name ?? group.name ?? null,
        sku: item.sku || null,
        price: menuPrice(item.price, 'menuItem.price'),
      })
    }
    for (const child of group.menuGroups ?? []) visit(child)
  }
  for (const menu of restaurant.menus) for (const group of menu.menuGroups ?? []) visit(group)
  for (const option of Object.values(restaurant.modifierOptionReferences ?? {})) {
    if (products.has(option.guid)) continue
    products.set(option.guid, {
      posItemId: option.guid,
      name: option.name,
      category: option.salesCategory?.name ?? null,
      sku: option.sku || null,
      price: menuPrice(option.price, 'modifierOption.price'),
    })
  }
  return [...products.values()]
}

export function mapEmployee(employee: ToastEmployee, jobs: ReadonlyMap<string, ToastJob>): PosStaffMember {
  const job = employee.jobReferences?.map((reference) => jobs.get(reference.guid)).find((candidate) => candidate && !candidate.deleted)
  return { staffId: employee.guid, name: employeeName(employee), role: job?.title ?? null }
}

/** The name staff go by: the chosen name in place of the first name where one is set. */
export function employeeName(employee: ToastEmployee): string {
  return [employee.chosenName || employee.firstName, employee.lastName].filter(Boolean).join(' ') || employee.guid
}

/** Who rang the order and the check's moments, shared by all its lines. */
interface CheckContext {
  closedAt: Date
  checkId: string
  staffId: string | null
  staffName: string | null
  payments: ToastPayment[]
}

/** A selection read: its sale line and, when it was taken back after closing, its correction. */
interface ReadSelection {
  sale: PosSaleLine
  correction: PosSaleLine | null
}

/**
 * The lines of an order's closed checks: every selection and modifier still on them, each check's tips
 * (the sum of its payments' `tipAmount`) shared over those, and the corrections. Open checks are left
 * for a later sync; the caller keeps the lines dated inside its window.
 */
export function mapOrderLines(order: ToastOrder, staffNames: ReadonlyMap<string, string>): PosSaleLine[] {
  if (order.voided || order.deleted) return []
  if (!Array.isArray(order.checks)) throw invalid('order.checks', order.checks)
  const staffId = order.server?.guid ?? null
  return order.checks.flatMap((check) => {
    const closed = check.closedDate ?? order.closedDate
    if (check.voided || check.deleted || !closed) return []
    const context: CheckContext = {
      closedAt: dateField(closed, 'check.closedDate'),
      checkId: check.guid,
      staffId,
      staffName: staffId ? (staffNames.get(staffId) ?? null) : null,
      payments: check.payments ?? [],
    }
    return checkLines(check, context)
  })
}

function checkLines(check: ToastCheck, context: CheckContext): PosSaleLine[] {
  if (!Array.isArray(check.selections)) throw invalid('check.selections', check.selections)
  const read = check.selections.filter((selection) => !voidedBeforeClose(selection, context)).flatMap((selection) => readWithModifiers(selection, context))
  const sales = read.map(({ sale }) => sale)
  const tip = sum(context.payments.map((payment) => decimalField(payment.tipAmount ?? 0, 'payment.tipAmount')))
  const tips = splitCheckTip(
    tip,
    sales.map((sale) => decimalField(sale.unitPrice, 'unitPrice').times(sale.quantity)),
  )
  const tipped = sales.map((sale, index) => ({ ...sale, tip: tips[index] ?? null }))
  return [...tipped, ...read.flatMap(({ correction }) => (correction ? [correction] : []))]
}

/** Voided while the check was open: never sold. A void dated after the close is a correction. */
function voidedBeforeClose(selection: ToastSelection, context: CheckContext): boolean {
  if (!selection.voided) return false
  return selection.voidDate === undefined || dateField(selection.voidDate, 'selection.voidDate') <= context.closedAt
}

function readWithModifiers(selection: ToastSelection, context: CheckContext): ReadSelection[] {
  const parent = readSelection(selection, context, null)
  if (!parent) return []
  const modifiers = (selection.modifiers ?? []).flatMap((modifier) => readSelection(modifier, context, parent.sale.lineId) ?? [])
  return [parent, ...modifiers]
}

function readSelection(selection: ToastSelection, context: CheckContext, parentLineId: string | null): ReadSelection | null {
  // Gift cards and special requests name no menu item: nothing leaves the bar's stock.
  if (!selection.item?.guid) return null
  const quantity = decimalField(selection.quantity, 'selection.quantity')
  if (quantity.lte(ZERO)) return null
  const sale: PosSaleLine = {
    lineId: selection.guid,
    posItemId: selection.item.guid,
    name: selection.displayName,
    quantity: quantity.toString(),
    unitPrice: unitPriceOfSelection(selection, quantity),
    soldAt: context.closedAt,
    checkId: context.checkId,
    staffId: context.staffId,
    staffName: context.staffName,
    tip: null,
    ...(parentLineId && { parentLineId }),
  }
  const takenBackAt = takenBackAtOf(selection, context)
  return { sale, correction: takenBackAt ? correctionOf(sale, takenBackAt.kind, takenBackAt.at) : null }
}

/**
 * One unit's price before discounts and tax, without its modifiers: `receiptLinePrice`, or where Toast
 * leaves it out, the gross price over the quantity less the modifiers' gross prices.
 */
function unitPriceOfSelection(selection: ToastSelection, quantity: Big): string {
  if (selection.receiptLinePrice !== undefined) return decimalField(selection.receiptLinePrice, 'selection.receiptLinePrice').toFixed(MONEY_DECIMALS)
  const modifiers = sum((selection.modifiers ?? []).map((modifier) => decimalField(modifier.preDiscountPrice, 'modifier.preDiscountPrice')))
  return unitPriceOf(decimalField(selection.preDiscountPrice, 'selection.preDiscountPrice').minus(modifiers), quantity)
}

/** When a sold selection was taken back: voided after its check closed, or refunded in full. */
function takenBackAtOf(selection: ToastSelection, context: CheckContext): { kind: 'void' | 'refund'; at: Date } | null {
  if (selection.voided && selection.voidDate !== undefined) return { kind: 'void', at: dateField(selection.voidDate, 'selection.voidDate') }
  const refunded = selection.refundDetails
  if (!refunded) return null
  // A partial refund returns money (a courtesy), not the drink: the selection was still poured.
  const refundAmount = decimalField(refunded.refundAmount ?? 0, 'refundDetails.refundAmount')
  if (refundAmount.lte(ZERO) || refundAmount.lt(decimalField(selection.price, 'selection.price'))) return null
  return { kind: 'refund', at: refundDate(selection, context) }
}

/**
 * A refund's date is on the payment refunded in the same transaction (`refund.refundTransaction`). A
 * payment shows one refund, so for an earlier one of several we fall back to the selection's
 * `modifiedDate` (⚠ assumed to be the refund's time).
 */
function refundDate(selection: ToastSelection, context: CheckContext): Date {
  const transaction = selection.refundDetails?.refundTransaction?.guid
  const payment = context.payments.find((candidate) => transaction && candidate.refund?.refundTransaction?.guid === transaction)
  if (payment?.refund?.refundDate) return dateField(payment.refund.refundDate, 'payment.refund.refundDate')
  return dateField(selection.modifiedDate, 'selection.modifiedDate')
}

/** Takes the whole sale back at `at`, at the price it was sold for. */
function correctionOf(sale: PosSaleLine, kind: 'void' | 'refund', at: Date): PosSaleLine {
  return {
    ...sale,
    lineId: `${sale.lineId}:${kind}`,
    quantity: `-${sale.quantity}`,
    soldAt: at,
    tip: null,
    correctsLineId: sale.lineId,
  }
}
