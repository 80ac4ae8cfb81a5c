import { PosAdapterError, type PosProduct, type PosSaleLine, type PosStaffMember } from '../../adapter.js'
import { MONEY_DECIMALS, sum, ZERO } from '../../../platform/decimal.js'
import { readVendorDecimal, splitCheckTip, unitPriceOf } from '../sale-amounts.js'
import {
  TOAST_VENDOR,
  type ToastCheck,
  type ToastEmployee,
  type ToastJob,
  type ToastMenuGroup,
  type ToastOrder,
  type ToastRestaurantMenus,
  type ToastSelection,
} from './toast.client.js'

/**
 * Toast shapes to barstock's: money and quantities are JSON numbers in the major unit; a selection's
 * `price` and `preDiscountPrice` are for the whole selection, not per unit. Voided orders, checks and
 * selections, deleted ones, and fully refunded selections are dropped.
 */

/** Every menu item once (an item can sit in several menus and groups), with its sales category. */
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
        // Open-priced and market-priced items have no menu price.
        price: item.price === null || item.price === undefined ? null : readVendorDecimal(TOAST_VENDOR, item.price, 'price').toFixed(MONEY_DECIMALS),
      })
    }
    for (const child of group.menuGroups ?? []) visit(child)
  }
  for (const menu of restaurant.menus) for (const group of menu.menuGroups ?? []) visit(group)
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

/** A selection still sold: not voided, not refunded in full, and naming a menu item. */
function isSold(selection: ToastSelection): selection is ToastSelection & { item: { guid: string } } {
  if (selection.voided || !selection.item?.guid) return false
  const refunded = selection.refundDetails ? readVendorDecimal(TOAST_VENDOR, selection.refundDetails.refundAmount ?? 0, 'refundAmount') : ZERO
  // A partial refund returns money (a courtesy), not the drink: the selection was still poured.
  return refunded.lte(ZERO) || refunded.lt(readVendorDecimal(TOAST_VENDOR, selection.price, 'price'))
}

function closedAtOf(order: ToastOrder, check: ToastCheck): Date | undefined {
  const closed = check.closedDate ?? order.closedDate
  if (!closed) return undefined
  const time = Date.parse(closed)
  if (Number.isNaN(time)) throw new PosAdapterError('invalid_response', `${TOAST_VENDOR} check ${check.guid} has closedDate ${closed}`)
  return new Date(time)
}

/**
 * The sold lines of an order's closed checks, each check's tips (the sum of its payments'
 * `tipAmount`) shared over its lines. Open checks are left for a later sync.
 */
export function mapOrderLines(order: ToastOrder, staffNames: ReadonlyMap<string, string>): PosSaleLine[] {
  if (order.voided || order.deleted) return []
  const staffId = order.server?.guid ?? null
  return (order.checks ?? []).flatMap((check) => {
    const soldAt = closedAtOf(order, check)
    if (check.voided || check.deleted || !soldAt) return []
    const sold = (check.selections ?? []).filter(isSold)
    const amounts = sold.map((selection) => readVendorDecimal(TOAST_VENDOR, selection.preDiscountPrice ?? selection.price, 'preDiscountPrice'))
    const tip = sum((check.payments ?? []).map((payment) => readVendorDecimal(TOAST_VENDOR, payment.tipAmount ?? 0, 'tipAmount')))
    const tips = splitCheckTip(tip, amounts)
    return sold.flatMap((selection, index): PosSaleLine[] => {
      const quantity = readVendorDecimal(TOAST_VENDOR, selection.quantity, 'quantity')
      if (quantity.lte(ZERO)) return []
      return [
        {
          lineId: selection.guid,
          posItemId: selection.item.guid,
          name: selection.displayName,
          quantity: quantity.toString(),
          unitPrice: unitPriceOf(amounts[index] ?? ZERO, quantity),
          soldAt,
          checkId: check.guid,
          staffId,
          staffName: staffId ? (staffNames.get(staffId) ?? null) : null,
          tip: tips[index] ?? null,
        },
      ]
    })
  })
}
