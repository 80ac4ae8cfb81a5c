import type Big from 'big.js'
import { PosAdapterError, type PosProduct, type PosSaleLine, type PosStaffMember } from '../adapter.js'
import { decimal, ZERO } from '../../../platform/decimal.js'
import { minorUnitsToString, readVendorInteger, splitTipInMinorUnits } from '../sale-amounts.js'
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
const ONE = decimal(1)

function invalid(detail: string): PosAdapterError {
  return new PosAdapterError('invalid_response', `${SQUARE_VENDOR} sent ${detail}`)
}

/**
 * Where a value sits in Square's answer, for an error message: built only when a check fails, so the
 * lines that pass (all but a broken one) build no field names.
 */
type FieldName = () => string

/** Digits after the decimal point of the currency's major unit; an unreadable code is invalid_response. */
function currencyExponent(currency: unknown, field: FieldName): number {
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) throw invalid(`${field()}.currency ${JSON.stringify(currency)}, not an ISO 4217 code`)
  return MINOR_UNIT_EXPONENTS[currency] ?? DEFAULT_EXPONENT
}

/** Money's amount in minor units, its currency checked; absent money is zero. */
function minorUnitsOf(money: SquareMoney | undefined, field: FieldName): number {
  if (money === undefined) return 0
  currencyExponent(money.currency, field)
  return readVendorInteger(SQUARE_VENDOR, money.amount, () => `${field()}.amount`)
}

/** Money as barstock's decimal string, with the currency's own number of decimals ("7.50", "750", "0.750"). */
function moneyToString(money: SquareMoney, field: FieldName): string {
  return minorUnitsToString(minorUnitsOf(money, field), currencyExponent(money.currency, field))
}

/** Square sends quantities as decimal strings; anything else is a shape it never documented. */
function quantityOf(value: unknown, field: FieldName): Big {
  if (typeof value !== 'string' || !/^\d+(\.\d+)?$/.test(value)) throw invalid(`${field()} ${JSON.stringify(value)}, not a decimal string`)
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
      price: data.price_money ? moneyToString(data.price_money, () => `variation ${variation.id} price_money`) : null,
    })
  }
  for (const { modifier, listName } of modifiers.values()) {
    const data = modifier.modifier_data
    if (!data || !sold(modifier)) continue
    const price = data.price_money ? moneyToString(data.price_money, () => `modifier ${modifier.id} price_money`) : null
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
 * the register) name no product, so they cannot deplete stock. Each line is built as one object literal:
 * an object spread followed by more fields takes V8's slow path, many times the cost of the literal.
 */
export function mapOrderLines(order: SquareOrder, staff: OrderStaff): PosSaleLine[] {
  const soldAt = closedAtOf(order)
  const lines = (order.line_items ?? []).filter((line): line is CatalogLine => Boolean(line.catalog_object_id))
  const tips = tipShares(order, lines)
  const { staffId, staffName } = staff
  const mapped: PosSaleLine[] = []
  lines.forEach((line, index) => {
    const field = () => `order ${order.id} line_items[${line.uid}]`
    const lineQuantity = quantityOf(line.quantity, () => `${field()}.quantity`)
    const lineId = lineIdOf(order.id, line.uid)
    const unitPrice = unitPriceOf(line.base_price_money, () => `${field()}.base_price_money`)
    const name = line.name ?? line.catalog_object_id
    mapped.push({
      lineId,
      posItemId: line.catalog_object_id,
      name,
      quantity: lineQuantity.toString(),
      unitPrice,
      soldAt,
      checkId: order.id,
      staffId,
      staffName,
      tip: tips[index] ?? null,
    })
    for (const { uid, posItemId, name, quantity, unitPrice } of stockModifiers(line.modifiers ?? [], lineQuantity, field)) {
      mapped.push({
        lineId: lineIdOf(order.id, line.uid, uid),
        posItemId,
        name,
        quantity,
        unitPrice,
        soldAt,
        checkId: order.id,
        staffId,
        staffName,
        tip: null,
        parentLineId: lineId,
      })
    }
  })
  return mapped
}

/** The order's tip shared over its lines in proportion to their totals, in the tip's currency. */
function tipShares(order: SquareOrder, lines: readonly CatalogLine[]): string[] {
  const tip = order.total_tip_money
  const tipField = () => `order ${order.id} total_tip_money`
  const amounts = lines.map((line) => minorUnitsOf(line.total_money, () => `order ${order.id} line_items[${line.uid}].total_money`))
  const exponent = tip ? currencyExponent(tip.currency, tipField) : DEFAULT_EXPONENT
  return splitTipInMinorUnits(minorUnitsOf(tip, tipField), amounts).map((share) => minorUnitsToString(share, exponent))
}

/** What a modifier or return modifier carries that barstock reads. */
interface ModifierLike {
  uid?: string
  catalog_object_id?: string
  name?: string
  quantity?: string
  base_price_money?: SquareMoney
}

/** A stock-using modifier of a line, read: its uid and what its own line will say. */
interface StockModifier {
  uid: string
  posItemId: string
  name: string
  quantity: string
  unitPrice: string
}

/**
 * A line's catalog modifiers, each to become a line of its own: a modifier's quantity is per unit of its
 * line (extra cheese, 2 per burger), so the units are the line's quantity times it. The parent's tip
 * share covers its modifiers.
 */
function stockModifiers(modifiers: readonly ModifierLike[], lineQuantity: Big, lineField: FieldName): StockModifier[] {
  const read: StockModifier[] = []
  for (const modifier of modifiers) {
    if (!modifier.catalog_object_id) continue
    const field = () => `${lineField()}.modifiers[${modifier.uid}]`
    if (typeof modifier.uid !== 'string') throw invalid(`${field()}.uid ${JSON.stringify(modifier.uid)}, not a uid`)
    // ⚠ An unset quantity is taken as 1, the modifier applied once per unit.
    const perUnit = modifier.quantity === undefined ? ONE : quantityOf(modifier.quantity, () => `${field()}.quantity`)
    if (perUnit.eq(ZERO)) continue
    read.push({
      uid: modifier.uid,
      posItemId: modifier.catalog_object_id,
      name: modifier.name ?? modifier.catalog_object_id,
      quantity: lineQuantity.times(perUnit).toString(),
      unitPrice: unitPriceOf(modifier.base_price_money, () => `${field()}.base_price_money`),
    })
  }
  return read
}

function unitPriceOf(money: SquareMoney | undefined, field: FieldName): string {
  if (!money) throw invalid(`${field()} missing`)
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
  const field = () => `order ${order.id} return_line_items[${line.uid}]`
  const returnedQuantity = quantityOf(line.quantity, () => `${field()}.quantity`).neg()
  const unitPrice = unitPriceOf(line.base_price_money, () => `${field()}.base_price_money`)
  const corrections: PosSaleLine[] = [
    {
      lineId: lineIdOf(order.id, line.uid),
      correctsLineId: lineIdOf(sourceOrderId, sourceLineUid),
      posItemId: line.catalog_object_id,
      name: line.name ?? line.catalog_object_id,
      quantity: returnedQuantity.toString(),
      unitPrice,
      soldAt: returnedAt,
      checkId: order.id,
      staffId: null,
      staffName: null,
      tip: null,
    },
  ]
  const sourceModifierUids = new Map((line.return_modifiers ?? []).map((modifier) => [modifier.uid, modifier.source_modifier_uid]))
  const modifiers = (line.return_modifiers ?? []).filter((modifier) => modifier.source_modifier_uid)
  for (const { uid, posItemId, name, quantity, unitPrice } of stockModifiers(modifiers, returnedQuantity, field)) {
    const lineId = lineIdOf(order.id, line.uid, uid)
    const correctsLineId = lineIdOf(sourceOrderId, sourceLineUid, sourceModifierUids.get(uid))
    corrections.push({ lineId, correctsLineId, posItemId, name, quantity, unitPrice, soldAt: returnedAt, checkId: order.id, staffId: null, staffName: null, tip: null })
  }
  return corrections
}
