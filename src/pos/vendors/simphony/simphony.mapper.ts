import { PosAdapterError, type PosProduct, type PosSaleLine, type PosStaffMember, type SalesWindow } from '../../adapter.js'
import { ZERO } from '../../../platform/decimal.js'
import { readVendorDecimal, splitCheckTip, unitPriceOf } from '../sale-amounts.js'
import {
  parseSimphonyUtc,
  SIMPHONY_VENDOR,
  type SimphonyDetailLine,
  type SimphonyEmployeeDimension,
  type SimphonyGuestCheck,
  type SimphonyMenuItemDimension,
  type SimphonyMenuItemPrice,
} from './simphony.client.js'

/**
 * Simphony shapes to barstock's. Menu items are numbered (`num`), priced per price level; a guest
 * check's detail lines hold the sold menu items with an aggregate quantity and total (JSON numbers).
 * Voided, error-corrected and returned lines never count.
 */

/** The price level read as the item's price: Simphony's level 1 is the default price. */
export const DEFAULT_PRICE_LEVEL = 1

const decimalField = (value: unknown, field: string) => readVendorDecimal(SIMPHONY_VENDOR, value, field)

export function toPosProducts(items: SimphonyMenuItemDimension[], prices: SimphonyMenuItemPrice[]): PosProduct[] {
  const defaultPrices = new Map(
    prices.filter((price) => price.prcLvlNum === DEFAULT_PRICE_LEVEL).map((price) => [price.num, decimalField(price.price, 'price').toFixed(2)]),
  )
  return items.map((item) => ({
    posItemId: String(item.num),
    name: item.name,
    category: item.majGrpName ?? null,
    sku: null,
    price: defaultPrices.get(item.num) ?? null,
  }))
}

export function toPosStaff(employees: SimphonyEmployeeDimension[]): PosStaffMember[] {
  return employees.map((employee) => ({ staffId: String(employee.num), name: `${employee.fName} ${employee.lName}`.trim(), role: null }))
}

export interface SimphonyNames {
  menuItems: Map<string, string>
  employees: Map<string, string>
}

export function simphonyNames(items: SimphonyMenuItemDimension[], employees: SimphonyEmployeeDimension[]): SimphonyNames {
  return {
    menuItems: new Map(items.map((item) => [String(item.num), item.name])),
    employees: new Map(toPosStaff(employees).map((member) => [member.staffId, member.name])),
  }
}

/** Sold lines of the checks closed inside the window (a business date reaches past midnight). */
export function toPosSaleLines(checks: SimphonyGuestCheck[], window: SalesWindow, names: SimphonyNames): PosSaleLine[] {
  return checks.flatMap((check) => {
    const closedAt = parseSimphonyUtc(check.clsdUTC)
    if (!check.clsdFlag || !closedAt) return []
    if (closedAt < window.start || closedAt >= window.end) return []
    return checkLines(check, closedAt, names)
  })
}

function isSold(line: SimphonyDetailLine): line is SimphonyDetailLine & { menuItem: { miNum: number } } {
  return line.menuItem !== null && !line.vdFlag && !line.errCorFlag && !line.rtnFlag && decimalField(line.aggQty, 'aggQty').gt(ZERO)
}

function checkLines(check: SimphonyGuestCheck, soldAt: Date, names: SimphonyNames): PosSaleLine[] {
  if (!Array.isArray(check.detailLines)) throw new PosAdapterError('invalid_response', `${SIMPHONY_VENDOR} check ${check.guestCheckId} has no detailLines`)
  const lines = check.detailLines.filter(isSold)
  const amounts = lines.map((line) => decimalField(line.aggTtl, 'aggTtl'))
  const tips = splitCheckTip(decimalField(check.tipTtl ?? 0, 'tipTtl'), amounts)
  const staffId = check.empNum === null || check.empNum === undefined ? null : String(check.empNum)
  return lines.map((line, index) => {
    const posItemId = String(line.menuItem.miNum)
    return {
      lineId: `${check.guestCheckId}:${line.dtlId}`,
      posItemId,
      name: names.menuItems.get(posItemId) ?? `Simphony menu item ${posItemId}`,
      quantity: decimalField(line.aggQty, 'aggQty').toString(),
      unitPrice: unitPriceOf(amounts[index]!, decimalField(line.aggQty, 'aggQty')),
      soldAt,
      checkId: String(check.guestCheckId),
      staffId,
      staffName: staffId ? (names.employees.get(staffId) ?? null) : null,
      tip: tips[index] ?? null,
    }
  })
}
