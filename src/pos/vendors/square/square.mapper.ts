import type Big from 'big.js'
import { PosAdapterError, type PosProduct, type PosSaleLine, type PosStaffMember } from '../../adapter.js'
import { decimal, MONEY_DECIMALS, ZERO } from '../../../platform/decimal.js'
import { readVendorDecimal, splitCheckTip } from '../sale-amounts.js'
import {
  SQUARE_VENDOR,
  type SquareCatalogObject,
  type SquareMoney,
  type SquareOrder,
  type SquareOrderLineItem,
  type SquareTeamMember,
} from './square.client.js'

/**
 * Square shapes to barstock's: money arrives as integer cents (`{amount: 750, currency: "USD"}`),
 * quantities as decimal strings, sold lines reference an ITEM_VARIATION id. Voided lines never reach a
 * COMPLETED order; refunded goods come back as return line items on a separate return order, which the
 * adapter subtracts (see returnedQuantities).
 */

const ONE_CENT = decimal('0.01')

/** Integer minor units to a decimal in the major unit (Square's USD amounts are cents). */
export function moneyToDecimal(money: SquareMoney | undefined, field: string): Big {
  if (money === undefined) return ZERO
  if (!Number.isInteger(money.amount)) {
    throw new PosAdapterError('invalid_response', `${SQUARE_VENDOR} sent ${field} ${JSON.stringify(money.amount)}, not integer cents`)
  }
  // Times 0.01 rather than divided by 100: the same exact value for whole cents, at a third of the cost.
  return decimal(money.amount).times(ONE_CENT)
}

/** The menu: one product per item variation (what sales reference), named after its item. */
export function mapCatalog(objects: readonly SquareCatalogObject[]): PosProduct[] {
  const categories = new Map<string, string>()
  const items = new Map<string, SquareCatalogObject>()
  const variations = new Map<string, SquareCatalogObject>()
  for (const object of objects) {
    if (object.is_deleted) continue
    if (object.type === 'CATEGORY' && object.category_data) categories.set(object.id, object.category_data.name)
    if (object.type === 'ITEM' && object.item_data) {
      items.set(object.id, object)
      // ListCatalog nests an item's variations inside it; top-level ones (types=ITEM_VARIATION) are the same objects.
      for (const variation of object.item_data.variations ?? []) variations.set(variation.id, variation)
    }
    if (object.type === 'ITEM_VARIATION' && object.item_variation_data) variations.set(object.id, object)
  }
  const products: PosProduct[] = []
  for (const variation of variations.values()) {
    const data = variation.item_variation_data
    const item = data ? items.get(data.item_id)?.item_data : undefined
    if (!data || !item || item.is_archived || variation.is_deleted) continue
    const categoryId = item.categories?.[0]?.id ?? item.reporting_category?.id
    products.push({
      posItemId: variation.id,
      name: variationName(item.name, data.name, item.variations?.length ?? 1),
      category: (categoryId && categories.get(categoryId)) || null,
      sku: data.sku || null,
      // Variable-priced variations are priced at the register; there is no menu price to report.
      price: data.price_money ? moneyToDecimal(data.price_money, 'price_money').toFixed(MONEY_DECIMALS) : null,
    })
  }
  return products
}

/** An item with one variation is sold under its own name; several variations are told apart ("Wine (Glass)"). */
function variationName(itemName: string, variation: string | undefined, variationCount: number): string {
  return variationCount > 1 && variation ? `${itemName} (${variation})` : itemName
}

export function mapTeamMember(member: SquareTeamMember): PosStaffMember {
  return {
    staffId: member.id,
    name: teamMemberName(member),
    role: member.wage_setting?.job_assignments?.[0]?.job_title ?? null,
  }
}

export function teamMemberName(member: SquareTeamMember): string {
  return [member.given_name, member.family_name].filter(Boolean).join(' ') || member.id
}

/** The line id barstock keeps: Square's line uid is unique only within its order. */
export function lineIdOf(orderId: string, lineUid: string): string {
  return `${orderId}:${lineUid}`
}

/** Quantities a return order gives back, per sold line id (a return may give back part of a line). */
export function returnedQuantities(order: SquareOrder): Map<string, Big> {
  const returned = new Map<string, Big>()
  for (const orderReturn of order.returns ?? []) {
    // An unlinked return names no sale: there is no sold line to take it from.
    if (!orderReturn.source_order_id) continue
    for (const line of orderReturn.return_line_items ?? []) {
      if (!line.source_line_item_uid) continue
      const lineId = lineIdOf(orderReturn.source_order_id, line.source_line_item_uid)
      const quantity = readVendorDecimal(SQUARE_VENDOR, line.quantity, 'return quantity')
      returned.set(lineId, (returned.get(lineId) ?? ZERO).plus(quantity))
    }
  }
  return returned
}

export interface OrderStaff {
  staffId: string | null
  staffName: string | null
}

/**
 * The sold lines of a completed order, with the order's tip shared over them. Lines without a catalog
 * variation (custom amounts typed at the register) name no product, so they cannot deplete stock.
 */
export function mapOrderLines(order: SquareOrder, staff: OrderStaff): PosSaleLine[] {
  if (!order.closed_at || Number.isNaN(Date.parse(order.closed_at))) {
    throw new PosAdapterError('invalid_response', `${SQUARE_VENDOR} order ${order.id} has no readable closed_at`)
  }
  const soldAt = new Date(order.closed_at)
  const lines = (order.line_items ?? []).filter((line): line is SquareOrderLineItem & { catalog_object_id: string } =>
    Boolean(line.catalog_object_id),
  )
  const amounts = lines.map((line) => moneyToDecimal(line.total_money, 'total_money'))
  const tips = splitCheckTip(moneyToDecimal(order.total_tip_money, 'total_tip_money'), amounts)
  return lines.map((line, index) => ({
    lineId: lineIdOf(order.id, line.uid),
    posItemId: line.catalog_object_id,
    name: line.name ?? line.catalog_object_id,
    quantity: readVendorDecimal(SQUARE_VENDOR, line.quantity, 'quantity').toString(),
    unitPrice: moneyToDecimal(line.base_price_money, 'base_price_money').toFixed(MONEY_DECIMALS),
    soldAt,
    checkId: order.id,
    staffId: staff.staffId,
    staffName: staff.staffName,
    tip: tips[index] ?? null,
  }))
}

/** A sold line less what was returned of it; undefined when all of it came back. */
export function withoutReturned(line: PosSaleLine, returned: Big | undefined): PosSaleLine | undefined {
  if (!returned) return line
  const kept = decimal(line.quantity).minus(returned)
  return kept.gt(ZERO) ? { ...line, quantity: kept.toString() } : undefined
}
