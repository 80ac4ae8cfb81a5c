import type Big from 'big.js'
import { PosAdapterError, type PosProduct, type PosSaleLine, type PosStaffMember, type SalesWindow } from '../../adapter.js'
import { MONEY_DECIMALS, sum, ZERO } from '../../../platform/decimal.js'
import { readVendorDecimal, splitCheckTip, unitPriceOf } from '../sale-amounts.js'
import { LIGHTSPEED_VENDOR, type LightspeedItem, type LightspeedSale, type LightspeedSalesLine } from './lightspeed.client.js'
import type { LightspeedStaffMember } from './lightspeed.wire.js'

/**
 * Lightspeed shapes to barstock's. Money and quantities are decimal strings; a line reports its total,
 * so the unit price is total / quantity. Sales link to items by SKU (a sales line carries no item id),
 * so the SKU is the POS item id on both sides. VOID and REFUND receipts, cancelled receipts and voided
 * lines are not consumption.
 */

export function toPosProduct(item: LightspeedItem): PosProduct | undefined {
  // Without a SKU no sale can name the item.
  if (!item.sku) return undefined
  const price = item.prices?.[0]?.amount
  return {
    posItemId: item.sku,
    name: item.name,
    category: item.accountingGroup?.name ?? null,
    sku: item.sku,
    price: price === undefined ? null : readVendorDecimal(LIGHTSPEED_VENDOR, price, 'item price').toFixed(MONEY_DECIMALS),
  }
}

export function toPosStaffMember(member: LightspeedStaffMember): PosStaffMember {
  const name = [member.firstName, member.lastName].filter(Boolean).join(' ') || member.username || String(member.staffId)
  return { staffId: String(member.staffId), name, role: null }
}

/** ⚠ pos-vendors.md spells it `timeofCloseAndPaid`; Lightspeed's own documents write `timeOfCloseAndPaid`. Either is read. */
function closedAtOf(sale: LightspeedSale): Date {
  const raw = sale.timeofCloseAndPaid ?? (sale as { timeOfCloseAndPaid?: string }).timeOfCloseAndPaid
  const closedAt = typeof raw === 'string' ? new Date(raw) : new Date(Number.NaN)
  if (Number.isNaN(closedAt.getTime())) throw new PosAdapterError('invalid_response', `${LIGHTSPEED_VENDOR} receipt ${sale.receiptId} has no readable close time`)
  return closedAt
}

function isConsumption(line: LightspeedSalesLine): boolean {
  return !line.voidReason && readVendorDecimal(LIGHTSPEED_VENDOR, line.quantity, 'line quantity').gt(ZERO)
}

/** The consumption lines of one receipt closed inside the window. */
export function toPosSaleLines(sale: LightspeedSale, window: SalesWindow): PosSaleLine[] {
  if (sale.type !== 'SALE' || sale.cancelled) return []
  const soldAt = closedAtOf(sale)
  if (soldAt < window.start || soldAt >= window.end) return []
  const sold = (sale.salesLines ?? []).filter(isConsumption)
  const amounts = sold.map((line) => readVendorDecimal(LIGHTSPEED_VENDOR, line.totalNetAmountWithTax, 'line totalNetAmountWithTax'))
  const tipShares = sale.payments === undefined || sold.length === 0 ? [] : splitCheckTip(tipOf(sale), amounts)
  return sold.map((line, index) => {
    const quantity = readVendorDecimal(LIGHTSPEED_VENDOR, line.quantity, 'line quantity')
    return {
      lineId: `${sale.receiptId}:${line.id}`,
      posItemId: line.sku,
      name: line.name,
      quantity: quantity.toString(),
      unitPrice: unitPriceOf(amounts[index]!, quantity),
      soldAt,
      checkId: sale.receiptId,
      staffId: line.staffId === undefined ? null : String(line.staffId),
      staffName: line.staffName ?? null,
      tip: tipShares[index] ?? null,
    }
  })
}

/** ⚠ The tip field of a payment is unconfirmed (`tip`); a payment without it adds nothing. */
function tipOf(sale: LightspeedSale): Big {
  return sum((sale.payments ?? []).map((payment) => readVendorDecimal(LIGHTSPEED_VENDOR, payment.tip ?? '0', 'payment tip')))
}
