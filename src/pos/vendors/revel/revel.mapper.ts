import { PosAdapterError, type PosProduct, type PosSaleLine, type PosStaffMember } from '../../adapter.js'
import { ZERO } from '../../../platform/decimal.js'
import { readVendorDecimal } from '../sale-amounts.js'
import {
  REVEL_VENDOR,
  type RevelEmployee,
  type RevelOrder,
  type RevelOrderItem,
  type RevelProduct,
  type RevelProductCategory,
  type RevelReference,
} from './revel.client.js'

/**
 * Revel shapes to barstock's. Money is a JSON number in dollars, quantity a number; an order item is
 * one line with its own id. Items with a `voided_date` never count (nor do returns, rendered as a
 * negative quantity). Revel reports no tip on order items, so lines carry none.
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

export function toPosProducts(products: RevelProduct[], categories: RevelProductCategory[]): PosProduct[] {
  const categoryNames = new Map(categories.map((category) => [String(category.id), category.name]))
  return products
    .filter((product) => product.active !== false)
    .map((product) => ({
      posItemId: String(product.id),
      name: product.name,
      category: categoryNames.get(referencedId(product.category) ?? '') ?? null,
      sku: product.sku || null,
      price: product.price === null || product.price === undefined ? null : decimalField(product.price, 'price').toFixed(2),
    }))
}

export function toPosStaff(employees: RevelEmployee[]): PosStaffMember[] {
  return employees.map((employee) => ({
    staffId: String(employee.id),
    name: `${employee.first_name} ${employee.last_name}`.trim(),
    role: null,
  }))
}

/** Names for the ids order items carry: Revel items name neither their product nor their server. */
export interface RevelNames {
  products: Map<string, string>
  employees: Map<string, string>
}

export function revelNames(products: RevelProduct[], employees: RevelEmployee[]): RevelNames {
  return {
    products: new Map(products.map((product) => [String(product.id), product.name])),
    employees: new Map(toPosStaff(employees).map((member) => [member.staffId, member.name])),
  }
}

/** The sold lines of one closed order, sold when it was closed (its `updated_date`). */
export function toPosSaleLines(order: RevelOrder, items: RevelOrderItem[], names: RevelNames): PosSaleLine[] {
  const soldAt = new Date(order.updated_date)
  if (Number.isNaN(soldAt.getTime())) throw new PosAdapterError('invalid_response', `${REVEL_VENDOR} sent updated_date ${order.updated_date}`)
  return items
    .filter((item) => !item.voided_date && decimalField(item.quantity, 'quantity').gt(ZERO))
    .map((item) => {
      const posItemId = referencedId(item.product)
      if (!posItemId) throw new PosAdapterError('invalid_response', `${REVEL_VENDOR} order item ${item.id} names no product`)
      const staffId = referencedId(item.created_by) ?? referencedId(order.created_by)
      return {
        lineId: String(item.id),
        posItemId,
        name: names.products.get(posItemId) ?? `Revel product ${posItemId}`,
        quantity: decimalField(item.quantity, 'quantity').toString(),
        unitPrice: decimalField(item.initial_price, 'initial_price').toFixed(2),
        soldAt,
        checkId: String(order.id),
        staffId,
        staffName: staffId ? (names.employees.get(staffId) ?? null) : null,
        tip: null,
      }
    })
}
