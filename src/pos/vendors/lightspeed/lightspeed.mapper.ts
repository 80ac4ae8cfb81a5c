import type Big from 'big.js'
import type { PosProduct, PosSaleLine, PosStaffMember } from '../adapter.js'
import { decimal, MONEY_DECIMALS, sum, ZERO } from '../../../platform/decimal.js'
import { readVendorDecimal, splitCheckTip, unitPriceOf } from '../sale-amounts.js'
import { LIGHTSPEED_VENDOR, type LightspeedItem, type LightspeedSale, type LightspeedSalesLine, type LightspeedStaffMember } from './lightspeed.wire.js'

/**
 * Lightspeed shapes to barstock's. Money and quantities of receipts are decimal strings; a line reports
 * its total, so the unit price is total / quantity. A sales line names its item only by SKU, so an
 * item's SKU is its POS item id; an item without a SKU goes by its numeric id, and its lines (which
 * carry no SKU) are matched to it by name. A line id is `receiptId:line id`.
 */

/** Finds the POS item id of a sales line. */
export type ItemIdOf = (line: LightspeedSalesLine) => string

export function toPosProduct(item: LightspeedItem): PosProduct {
  const price = item.prices?.[0]?.amount
  return {
    posItemId: item.sku || String(item.id),
    name: item.name,
    category: item.accountingGroup?.name ?? null,
    sku: item.sku || null,
    price: price === undefined ? null : decimal(price).toFixed(MONEY_DECIMALS),
  }
}

export function toPosStaffMember(member: LightspeedStaffMember): PosStaffMember {
  const name = [member.firstName, member.lastName].filter(Boolean).join(' ') || member.username || String(member.staffId)
  return { staffId: String(member.staffId), name, role: null }
}

export function closedAtOf(receipt: LightspeedSale): Date {
  return new Date(receipt.timeofCloseAndPaid)
}

function quantityOf(line: LightspeedSalesLine): Big {
  return readVendorDecimal(LIGHTSPEED_VENDOR, line.quantity, 'salesLines.quantity')
}

function amountOf(line: LightspeedSalesLine): Big {
  return readVendorDecimal(LIGHTSPEED_VENDOR, line.totalNetAmountWithTax, 'salesLines.totalNetAmountWithTax')
}

/** The lines of a sale receipt that were sold: not voided, a positive quantity, and (a modifier) on a sold parent. */
export function soldLinesOf(receipt: LightspeedSale): LightspeedSalesLine[] {
  const byId = new Map(receipt.salesLines.map((line) => [line.id, line]))
  const sold = (line: LightspeedSalesLine): boolean => {
    if (line.voidReason || !quantityOf(line).gt(ZERO)) return false
    const parent = line.parentLineId ? byId.get(line.parentLineId) : undefined
    return parent === undefined || sold(parent)
  }
  return receipt.salesLines.filter(sold)
}

/** `lines` of `receipt` as barstock lines, each with its share of the receipt's tip. */
function toPosLines(receipt: LightspeedSale, lines: LightspeedSalesLine[], itemIdOf: ItemIdOf): PosSaleLine[] {
  const amounts = lines.map(amountOf)
  // A correction's amounts are negative; its (negative) tip is split by their size.
  const tipShares =
    receipt.payments === undefined || lines.length === 0
      ? []
      : splitCheckTip(
          tipOf(receipt),
          amounts.map((amount) => amount.abs()),
        )
  return lines.map((line, index) => {
    const quantity = quantityOf(line)
    return {
      lineId: lineIdOf(receipt, line.id),
      posItemId: itemIdOf(line),
      name: line.name,
      quantity: quantity.toString(),
      unitPrice: unitPriceOf(amounts[index]!, quantity),
      soldAt: closedAtOf(receipt),
      checkId: receipt.receiptId,
      staffId: line.staffId === undefined || line.staffId === null ? null : String(line.staffId),
      staffName: line.staffName ?? null,
      tip: tipShares[index] ?? null,
    }
  })
}

export function lineIdOf(receipt: LightspeedSale, salesLineId: string): string {
  return `${receipt.receiptId}:${salesLineId}`
}

/** The sold lines of a sale receipt; a modifier names its parent line. */
export function toPosSaleLines(receipt: LightspeedSale, itemIdOf: ItemIdOf): PosSaleLine[] {
  const lines = soldLinesOf(receipt)
  return toPosLines(receipt, lines, itemIdOf).map((posLine, index) => {
    const parentLineId = lines[index]!.parentLineId
    // The spread last: spread first and then added to, each line would take V8's slow path and a hidden class of its own.
    return { parentLineId: parentLineId ? lineIdOf(receipt, parentLineId) : null, ...posLine }
  })
}

/**
 * The lines of a receipt that takes lines of `original` back (a refund, a recall, a cancellation), as
 * corrections naming the original lines. Lightspeed links the receipts, not the lines (⚠), so each
 * line taken back is matched to a sold line of the same item in `original` with that many units not
 * yet taken back (`takenBack`, by original line id, kept across a listing), a modifier to a modifier
 * of its parent's match. A line that matches nothing is left out.
 */
export function toPosCorrections(receipt: LightspeedSale, original: LightspeedSale, itemIdOf: ItemIdOf, takenBack: Map<string, Big>): PosSaleLine[] {
  const candidates = soldLinesOf(original)
  const matchOf = new Map<string, LightspeedSalesLine>()
  const matched: { line: LightspeedSalesLine; original: LightspeedSalesLine }[] = []
  // Parents before their modifiers, so a modifier can look for its parent's match.
  const returned = receipt.salesLines.filter((line) => quantityOf(line).lt(ZERO))
  const ordered = [...returned.filter((line) => !line.parentLineId), ...returned.filter((line) => line.parentLineId)]
  for (const line of ordered) {
    const units = quantityOf(line).abs()
    const parentMatch = line.parentLineId ? matchOf.get(line.parentLineId) : undefined
    if (line.parentLineId && !parentMatch) continue
    const match = candidates.find(
      (candidate) =>
        itemIdOf(candidate) === itemIdOf(line) &&
        (candidate.parentLineId ?? null) === (parentMatch?.id ?? null) &&
        quantityOf(candidate)
          .minus(takenBack.get(lineIdOf(original, candidate.id)) ?? ZERO)
          .gte(units),
    )
    if (!match) continue
    const originalLineId = lineIdOf(original, match.id)
    takenBack.set(originalLineId, (takenBack.get(originalLineId) ?? ZERO).plus(units))
    matchOf.set(line.id, match)
    matched.push({ line, original: match })
  }
  return toPosLines(
    receipt,
    matched.map(({ line }) => line),
    itemIdOf,
  ).map((posLine, index) => ({
    correctsLineId: lineIdOf(original, matched[index]!.original.id),
    ...posLine,
  }))
}

/** The receipt's tip: the sum of its payments' `tip`; a payment without one adds nothing. */
function tipOf(receipt: LightspeedSale): Big {
  return sum((receipt.payments ?? []).map((payment) => readVendorDecimal(LIGHTSPEED_VENDOR, payment.tip ?? '0', 'payments.tip')))
}
