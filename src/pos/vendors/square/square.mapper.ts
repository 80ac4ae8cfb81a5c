import type Big from 'big.js'
import { PosAdapterError, type PosProduct, type PosSaleLine, type PosStaffMember } from '../../adapter.js'
import { decimal, ZERO } from '../../../platform/decimal.js'
import { splitCheckTip } from '../sale-amounts.js'
import {
  SQUARE_VENDOR,
  type SquareCatalogObject,
  type SquareMoney,
  type SquareOrder,
  type SquareOrderLineItem,
  type SquareOrderReturn,
  type SquareReturnLineItem,
  type SquareTeamMember,
} from './square.client.js'

/**
 * Square shapes to barstock's: money arrives as an integer in the currency's minor unit
 * (`{amount: 750, currency: "USD"}` is $7.50, `{amount: 750, currency: "JPY"}` ¥750), quantities as
 * decimal strings, sold lines reference an ITEM_VARIATION id and their modifiers a MODIFIER id. Voided
 * lines never reach a COMPLETED order; goods taken back come as return line items on a return order of
 * their own, which become corrections of the lines they name.
 */

/**
 * ISO 4217 minor-unit exponents other than 2 (Square's Money is "in the smallest denomination of the
 * currency"). A table rather than Intl.NumberFormat: Intl gives CLDR's display digits, which differ
 * from ISO's minor units for some currencies (HUF, IDR, IQD show 0 digits there).
 */
const MINOR_UNIT_EXPONENTS: Readonly<Record<string, number>> = {
  ...Object.fromEntries(['BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'].map((code) => [code, 0])),
  ...Object.fromEntries(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'].map((code) => [code, 3])),
  CLF: 4,
  UYW: 4,
}
const DEFAULT_EXPONENT = 2
/** One minor unit in the major unit per exponent (0.01 for 2): multiplying is exact and cheaper than dividing. */
const MINOR_UNIT = [0, 1, 2, 3, 4].map((exponent) => decimal(1).div(10 ** exponent))

function invalid(detail: string): PosAdapterError {
  return new PosAdapterError('invalid_response', `${SQUARE_VENDOR} sent ${detail}`)
}

/** Digits after the decimal point of the currency's major unit; an unreadable code is invalid_response. */
export function currencyExponent(currency: unknown, field: string): number {
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) throw invalid(`${field}.currency ${JSON.stringify(currency)}, not an ISO 4217 code`)
  return MINOR_UNIT_EXPONENTS[currency] ?? DEFAULT_EXPONENT
}

/** Money in minor units as a decimal in the major unit; absent money is zero. */
export function moneyToDecimal(money: SquareMoney | undefined, field: string): Big {
  if (money === undefined) return ZERO
  const exponent = currencyExponent(money.currency, field)
  if (!Number.isInteger(money.amount)) throw invalid(`${field}.amount ${JSON.stringify(money.amount)}, not an integer in minor units`)
  return decimal(money.amount).times(MINOR_UNIT[exponent] as Big)
}

/** Money as barstock's decimal string, with the currency's own number of decimals ("7.50", "750", "0.750"). */
export function moneyToString(money: SquareMoney, field: string): string {
  return moneyToDecimal(money, field).toFixed(currencyExponent(money.currency, field))
}

/** Square sends quantities as decimal strings; anything else is a shape it never documented. */
function quantityOf(value: unknown, field: string): Big {
  if (typeof value !== 'string' || !/^\d+(\.\d+)?$/.test(value)) throw invalid(`${field} ${JSON.stringify(value)}, not a decimal string`)
  return decimal(value)
}

/** Whether a catalog object is at the location: everywhere but `absent_at_location_ids` unless `present_at_all_locations` is false, then only at `present_at_location_ids`. */
export function presentAt(object: SquareCatalogObject, locationId: string): boolean {
  if (object.present_at_all_locations === false) return object.present_at_location_ids?.includes(locationId) ?? false
  return !(object.absent_at_location_ids?.includes(locationId) ?? false)
}

/**
 * The location's menu: one product per item variation (what sales reference), named after its item, and
 * one per modifier (what line item modifiers reference), in its modifier list's name as category.
 * Deleted, archived and objects not present at the location are left out.
 */
export function mapCatalog(objects: readonly SquareCatalogObject[], locationId: string): PosProduct[] {
  const sold = (object: SquareCatalogObject) => !object.is_deleted && presentAt(object, locationId)
  const categories = new Map<string, string>()
  const items = new Map<string, SquareCatalogObject>()
  const variations = new Map<string, SquareCatalogObject>()
  const modifiers = new Map<string, { modifier: SquareCatalogObject; listName: string | null }>()
  for (const object of objects) {
    if (object.type === 'CATEGORY' && object.category_data) categories.set(object.id, object.category_data.name)
    if (!sold(object)) continue
    if (object.type === 'ITEM' && object.item_data) {
      items.set(object.id, object)
      // ListCatalog nests an item's variations inside it; top-level ones (types=ITEM_VARIATION) are the same objects.
      for (const variation of object.item_data.variations ?? []) variations.set(variation.id, variation)
    }
    if (object.type === 'ITEM_VARIATION' && object.item_variation_data) variations.set(object.id, object)
    if (object.type === 'MODIFIER_LIST' && object.modifier_list_data) {
      for (const modifier of object.modifier_list_data.modifiers ?? []) modifiers.set(modifier.id, { modifier, listName: object.modifier_list_data.name })
    }
    if (object.type === 'MODIFIER' && object.modifier_data && !modifiers.has(object.id)) modifiers.set(object.id, { modifier: object, listName: null })
  }
  const products: PosProduct[] = []
  for (const variation of variations.values()) {
    const data = variation.item_variation_data
    const item = data ? items.get(data.item_id)?.item_data : undefined
    if (!data || !item || item.is_archived || !sold(variation)) continue
    const categoryId = item.categories?.[0]?.id ?? item.reporting_category?.id
    products.push({
      posItemId: variation.id,
      name: variationName(item.name, data.name, item.variations?.length ?? 1),
      category: (categoryId && categories.get(categoryId)) || null,
      sku: data.sku || null,
      // Variable-priced variations are priced at the register; there is no menu price to report.
      price: data.price_money ? moneyToString(data.price_money, `variation ${variation.id} price_money`) : null,
    })
  }
  for (const { modifier, listName } of modifiers.values()) {
    const data = modifier.modifier_data
    if (!data || !sold(modifier)) continue
    const price = data.price_money ? moneyToString(data.price_money, `modifier ${modifier.id} price_money`) : null
    products.push({ posItemId: modifier.id, name: data.name, category: listName, sku: null, price })
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

/** The line id barstock keeps: Square's uids are unique only within their order (a modifier's within its line's). */
export function lineIdOf(orderId: string, lineUid: string, modifierUid?: string): string {
  return modifierUid === undefined ? `${orderId}:${lineUid}` : `${orderId}:${lineUid}:${modifierUid}`
}

/** When the order closed; an order without a readable closed_at is invalid_response. */
export function closedAtOf(order: SquareOrder): Date {
  const time = Date.parse(order.closed_at ?? '')
  if (Number.isNaN(time)) throw invalid(`order ${order.id} without a readable closed_at (${JSON.stringify(order.closed_at)})`)
  return new Date(time)
}

export interface OrderStaff {
  staffId: string | null
  staffName: string | null
}

type CatalogLine = SquareOrderLineItem & { catalog_object_id: string }

/**
 * The sold lines of a completed order, with the order's tip shared over them, each followed by its
 * stock-using modifiers as lines of their own. Lines without a catalog variation (custom amounts typed at
 * the register) name no product, so they cannot deplete stock.
 */
export function mapOrderLines(order: SquareOrder, staff: OrderStaff): PosSaleLine[] {
  const soldAt = closedAtOf(order)
  const lines = (order.line_items ?? []).filter((line): line is CatalogLine => Boolean(line.catalog_object_id))
  const tips = splitCheckTip(
    moneyToDecimal(order.total_tip_money, `order ${order.id} total_tip_money`),
    lines.map((line) => moneyToDecimal(line.total_money, `line ${line.uid} total_money`)),
  )
  const common = { soldAt, checkId: order.id, staffId: staff.staffId, staffName: staff.staffName }
  return lines.flatMap((line, index) => {
    const field = `order ${order.id} line_items[${line.uid}]`
    const quantity = quantityOf(line.quantity, `${field}.quantity`)
    const sold: PosSaleLine = {
      ...common,
      lineId: lineIdOf(order.id, line.uid),
      posItemId: line.catalog_object_id,
      name: line.name ?? line.catalog_object_id,
      quantity: quantity.toString(),
      unitPrice: unitPriceOf(line.base_price_money, `${field}.base_price_money`),
      tip: tips[index] ?? null,
    }
    return [sold, ...modifierLines(line.modifiers ?? [], quantity, field, (modifier) => ({ ...common, lineId: lineIdOf(order.id, line.uid, modifier), parentLineId: sold.lineId }))]
  })
}

/** What a modifier or return modifier carries that barstock reads. */
interface ModifierLike {
  uid?: string
  catalog_object_id?: string
  name?: string
  quantity?: string
  base_price_money?: SquareMoney
}

/**
 * A line's catalog modifiers as lines of their own: a modifier's quantity is per unit of its line
 * (extra cheese, 2 per burger), so the units are the line's quantity times it. The parent's tip share
 * covers its modifiers. `linkOf` gives each its ids and sale or correction fields, by the modifier's uid.
 */
function modifierLines(
  modifiers: readonly ModifierLike[],
  lineQuantity: Big,
  field: string,
  linkOf: (modifierUid: string) => Omit<PosSaleLine, 'posItemId' | 'name' | 'quantity' | 'unitPrice' | 'tip'>,
): PosSaleLine[] {
  return modifiers.flatMap((modifier) => {
    if (!modifier.catalog_object_id) return []
    const modifierField = `${field}.modifiers[${modifier.uid}]`
    if (typeof modifier.uid !== 'string') throw invalid(`${modifierField}.uid ${JSON.stringify(modifier.uid)}, not a uid`)
    // ⚠ An unset quantity is taken as 1, the modifier applied once per unit.
    const perUnit = modifier.quantity === undefined ? decimal(1) : quantityOf(modifier.quantity, `${modifierField}.quantity`)
    if (perUnit.eq(ZERO)) return []
    return [
      {
        ...linkOf(modifier.uid),
        posItemId: modifier.catalog_object_id,
        name: modifier.name ?? modifier.catalog_object_id,
        quantity: lineQuantity.times(perUnit).toString(),
        unitPrice: unitPriceOf(modifier.base_price_money, `${modifierField}.base_price_money`),
        tip: null,
      },
    ]
  })
}

function unitPriceOf(money: SquareMoney | undefined, field: string): string {
  if (!money) throw invalid(`${field} missing`)
  return moneyToString(money, field)
}

/**
 * The corrections a return order makes: each return line item (and its modifiers) taking units back
 * from the sale line it names, dated when the return closed. An unlinked return (no source order or
 * line) names no sold line and is left out.
 */
export function mapReturnLines(order: SquareOrder): PosSaleLine[] {
  if (!order.returns?.length) return []
  const returnedAt = closedAtOf(order)
  return order.returns.flatMap((orderReturn) => orderReturn.return_line_items?.flatMap((line) => returnLineCorrections(order, orderReturn, line, returnedAt)) ?? [])
}

function returnLineCorrections(order: SquareOrder, orderReturn: SquareOrderReturn, line: SquareReturnLineItem, returnedAt: Date): PosSaleLine[] {
  const sourceOrderId = orderReturn.source_order_id
  const sourceLineUid = line.source_line_item_uid
  if (!sourceOrderId || !sourceLineUid || !line.catalog_object_id) return []
  const field = `order ${order.id} return_line_items[${line.uid}]`
  const quantity = quantityOf(line.quantity, `${field}.quantity`)
  const common = { soldAt: returnedAt, checkId: order.id, staffId: null, staffName: null }
  const correction: PosSaleLine = {
    ...common,
    lineId: lineIdOf(order.id, line.uid),
    correctsLineId: lineIdOf(sourceOrderId, sourceLineUid),
    posItemId: line.catalog_object_id,
    name: line.name ?? line.catalog_object_id,
    quantity: quantity.neg().toString(),
    unitPrice: unitPriceOf(line.base_price_money, `${field}.base_price_money`),
    tip: null,
  }
  const sourceModifierUids = new Map((line.return_modifiers ?? []).map((modifier) => [modifier.uid, modifier.source_modifier_uid]))
  const modifiers = (line.return_modifiers ?? []).filter((modifier) => modifier.source_modifier_uid)
  const modifierCorrections = modifierLines(modifiers, quantity.neg(), field, (modifierUid) => ({
    ...common,
    lineId: lineIdOf(order.id, line.uid, modifierUid),
    correctsLineId: lineIdOf(sourceOrderId, sourceLineUid, sourceModifierUids.get(modifierUid) as string),
  }))
  return [correction, ...modifierCorrections]
}
