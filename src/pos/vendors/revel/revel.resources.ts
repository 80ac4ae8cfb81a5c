import { type Static, Type } from 'typebox'
import { Nullable } from '../../../platform/http/schemas.js'

/**
 * The shapes of the Revel resources barstock reads, as the client checks them and the simulator
 * renders them. Establishment, Product and Order follow the OpenAPI document (shared/spec/vendor-specs/
 * revel.yml); OrderItem, Modifier, ProductCategory and Employee are not in it, and their fields come from
 * pos-vendors.md and public integrations (docs/pos-vendors.md says which). Objects may carry more fields
 * than these: only the ones read are checked.
 */

/** An id or a resource URI ("/resources/Product/12/"), as Revel renders foreign keys. */
export const RevelReference = Type.Union([Type.Integer(), Type.String()])

export const RevelMeta = Type.Object({
  limit: Type.Integer(),
  offset: Type.Integer(),
  total_count: Type.Integer(),
  next: Nullable(Type.String()),
  previous: Nullable(Type.String()),
})

export const RevelEstablishment = Type.Object({ id: Type.Integer(), name: Type.String(), resource_uri: Type.String() })

export const RevelProduct = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  price: Type.Number(),
  cost: Nullable(Type.Number()),
  sku: Nullable(Type.String()),
  category: Nullable(RevelReference),
  active: Type.Boolean(),
  establishment: Nullable(RevelReference),
  resource_uri: Type.String(),
})

/** A modifier option (an extra shot, a mixer) that order items carry in `modifieritems`. */
export const RevelModifier = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  price: Type.Number(),
  active: Type.Boolean(),
  resource_uri: Type.String(),
})

export const RevelProductCategory = Type.Object({ id: Type.Integer(), name: Type.String(), resource_uri: Type.String() })

export const RevelEmployee = Type.Object({
  id: Type.Integer(),
  first_name: Type.String(),
  last_name: Type.String(),
  active: Type.Boolean(),
  resource_uri: Type.String(),
})

export const RevelOrder = Type.Object({
  id: Type.Integer(),
  uuid: Type.String(),
  establishment: RevelReference,
  created_by: Nullable(RevelReference),
  closed: Type.Boolean(),
  created_date: Type.String(),
  updated_date: Type.String(),
  resource_uri: Type.String(),
})

/** A modifier rung on an order item: `qty` of it on each unit of the item, at `modifier_price` each. */
export const RevelModifierItem = Type.Object({
  id: Type.Integer(),
  modifier: RevelReference,
  qty: Type.Number(),
  modifier_price: Type.Number(),
})

/** An order item; a return is one of negative `quantity`, created when the refund was made. */
export const RevelOrderItem = Type.Object({
  id: Type.Integer(),
  order: RevelReference,
  product: RevelReference,
  quantity: Type.Number(),
  initial_price: Type.Number(),
  price: Type.Number(),
  created_by: Nullable(RevelReference),
  created_date: Type.String(),
  voided_date: Nullable(Type.String()),
  modifieritems: Type.Array(RevelModifierItem),
  resource_uri: Type.String(),
})

export type RevelReference = Static<typeof RevelReference>
export type RevelMeta = Static<typeof RevelMeta>
export type RevelEstablishment = Static<typeof RevelEstablishment>
export type RevelProduct = Static<typeof RevelProduct>
export type RevelModifier = Static<typeof RevelModifier>
export type RevelProductCategory = Static<typeof RevelProductCategory>
export type RevelEmployee = Static<typeof RevelEmployee>
export type RevelOrder = Static<typeof RevelOrder>
export type RevelModifierItem = Static<typeof RevelModifierItem>
export type RevelOrderItem = Static<typeof RevelOrderItem>

/** Every resource read, by its path segment (`/resources/<name>/`). */
export const REVEL_RESOURCES = {
  Establishment: RevelEstablishment,
  Product: RevelProduct,
  Modifier: RevelModifier,
  ProductCategory: RevelProductCategory,
  Employee: RevelEmployee,
  Order: RevelOrder,
  OrderItem: RevelOrderItem,
}
export type RevelResource = keyof typeof REVEL_RESOURCES

export interface RevelList<T> {
  meta: RevelMeta
  objects: T[]
}

/** Revel's error body (Tastypie's), where it sends one. */
export interface RevelError {
  error: string
}
