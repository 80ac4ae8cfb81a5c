import { PosAdapterError, type PosProduct, type PosSaleLine, type PosStaffMember } from '../adapter.js'
import { readVendorDecimal } from '../sale-amounts.js'
import { REVEL_VENDOR } from './revel.client.js'
import type { RevelEmployee, RevelModifier, RevelOrder, RevelOrderItem, RevelProduct, RevelProductCategory, RevelReference } from './revel.resources.js'

/**
 * Revel shapes to barstock's. Money is a JSON number in dollars, quantity a number. An order item is a
 * line with its own id, sold when its order was last closed (the order's `updated_date`); each of its
 * `modifieritems` is a line of its own modifier, linked to the item. Two things take lines back, each as
 * corrections dated when they happened: a return (an item of negative quantity, created when the refund
 * was made) and an item voided after its order closed. Revel reports no tip on order items.
 */

const decimalField = (value: unknown, field: string) => readVendorDecimal(REVEL_VENDOR, value, field)

/** The id a foreign key points at, whether Revel sent the id or its resource URI. */
export function referencedId(reference: RevelReference | null | undefined): string | null {
  if (reference === null || reference === undefined) return null
  if (typeof reference === 'number') return String(reference)
  const id = /(\d+)\/?$/.exec(reference)?.[1]
  if (!id) throw new PosAdapterError('invalid_response', `${REVEL_VENDOR} sent a reference ${JSON.stringify(reference)} without an id`)
  return id
}

/** A modifier's POS item id: modifiers are a resource of their own, so their ids are kept apart from products'. */
function modifierItemId(modifier: RevelReference): string {
  return `modifier-${referencedId(modifier)}`
}

function dateField(value: string, field: string): Date {
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) throw new PosAdapterError('invalid_response', `${REVEL_VENDOR} sent ${field} ${JSON.stringify(value)}, not a date`)
  return date
}

const money = (value: number, field: string) => decimalField(value, field).toFixed(2)

/** The active products, then the active modifiers (items of their own, to map like any product). */
export function toPosProducts(products: RevelProduct[], categories: RevelProductCategory[], modifiers: RevelModifier[]): PosProduct[] {
  const categoryNames = new Map(categories.map((category) => [String(category.id), category.name]))
  const productItems = products
    .filter((product) => product.active)
    .map((product) => ({
      posItemId: String(product.id),
      name: product.name,
      category: categoryNames.get(referencedId(product.category) ?? '') ?? null,
      sku: product.sku || null,
      price: money(product.price, 'price'),
    }))
  const modifierItems = modifiers
    .filter((modifier) => modifier.active)
    .map((modifier) => ({ posItemId: modifierItemId(modifier.id), name: modifier.name, category: null, sku: null, price: money(modifier.price, 'price') }))
  return [...productItems, ...modifierItems]
}

export function toPosStaff(employees: RevelEmployee[]): PosStaffMember[] {
  return employees.map((employee) => ({
    staffId: String(employee.id),
    name: `${employee.first_name} ${employee.last_name}`.trim(),
    role: null,
  }))
}

/** Names for the ids order items carry: Revel items name neither their product, their modifiers nor their server. */
export interface RevelNames {
  /** By POS item id: products and modifiers. */
  items: Map<string, string>
  employees: Map<string, string>
}

export function revelNames(products: RevelProduct[], modifiers: RevelModifier[], employees: RevelEmployee[]): RevelNames {
  return {
    items: new Map(toPosProducts(products, [], modifiers).map((item) => [item.posItemId, item.name])),
    employees: new Map(toPosStaff(employees).map((member) => [member.staffId, member.name])),
  }
}

/** When an order was last closed. */
function closedAt(order: RevelOrder): Date {
  return dateField(order.updated_date, 'Order.updated_date')
}

/** Whether an item was sold when its order closed: rung (not a return) and not voided before the close. */
function soldAtClose(item: RevelOrderItem, order: RevelOrder): boolean {
  return item.quantity > 0 && (item.voided_date === null || dateField(item.voided_date, 'OrderItem.voided_date') > closedAt(order))
}

/** An item and its modifiers as lines at `soldAt`; the modifiers name the item as their parent. */
function itemLines(item: RevelOrderItem, order: RevelOrder, names: RevelNames, soldAt: Date): PosSaleLine[] {
  const posItemId = referencedId(item.product)
  if (!posItemId) throw new PosAdapterError('invalid_response', `${REVEL_VENDOR} order item ${item.id} names no product`)
  const staffId = referencedId(item.created_by) ?? referencedId(order.created_by)
  const common = { soldAt, checkId: String(order.id), staffId, staffName: staffId ? (names.employees.get(staffId) ?? null) : null, tip: null }
  const quantity = decimalField(item.quantity, 'quantity')
  // `common` spread last: spread first and then added to, each line would take V8's slow path and a hidden class of its own.
  const line: PosSaleLine = {
    lineId: String(item.id),
    posItemId,
    name: names.items.get(posItemId) ?? `Revel product ${posItemId}`,
    quantity: quantity.toString(),
    unitPrice: money(item.initial_price, 'initial_price'),
    ...common,
  }
  const modifiers = item.modifieritems.map((modifier): PosSaleLine => {
    const modifierId = modifierItemId(modifier.modifier)
    return {
      lineId: `${item.id}:${modifier.id}`,
      posItemId: modifierId,
      name: names.items.get(modifierId) ?? `Revel modifier ${modifierId}`,
      // ⚠ `qty` is per unit of the item (docs/pos-vendors.md).
      quantity: decimalField(modifier.qty, 'qty').times(quantity).toString(),
      unitPrice: money(modifier.modifier_price, 'modifier_price'),
      parentLineId: line.lineId,
      ...common,
    }
  })
  return [line, ...modifiers]
}

/** The lines an item sold when its order closed (none for a return or an item voided before the close). */
export function soldLines(item: RevelOrderItem, order: RevelOrder, names: RevelNames): PosSaleLine[] {
  return soldAtClose(item, order) ? itemLines(item, order, names, closedAt(order)) : []
}

/**
 * A return's lines as corrections: of the order's first sold item of the same product, and of that
 * item's modifiers. A return of an item the order never sold takes units back without naming a line.
 */
export function returnLines(returned: RevelOrderItem, order: RevelOrder, orderItems: RevelOrderItem[], names: RevelNames): PosSaleLine[] {
  const returnedAt = dateField(returned.created_date, 'OrderItem.created_date')
  const original = orderItems.find(
    (item) => referencedId(item.order) === String(order.id) && referencedId(item.product) === referencedId(returned.product) && soldAtClose(item, order),
  )
  const originalLines = original ? itemLines(original, order, names, returnedAt) : []
  return itemLines(returned, order, names, returnedAt).map((line) => ({
    ...line,
    parentLineId: null,
    correctsLineId: originalLines.find((sold) => sold.posItemId === line.posItemId)?.lineId ?? null,
  }))
}

/** An item voided after its order closed, with its modifiers, as corrections of what the order sold (none for one voided before). */
export function voidLines(item: RevelOrderItem, order: RevelOrder, names: RevelNames): PosSaleLine[] {
  if (item.voided_date === null || !soldAtClose(item, order)) return []
  return itemLines(item, order, names, dateField(item.voided_date, 'OrderItem.voided_date')).map((line) => ({
    ...line,
    lineId: `${line.lineId}:void`,
    quantity: decimalField(line.quantity, 'quantity').neg().toString(),
    parentLineId: null,
    correctsLineId: line.lineId,
  }))
}
