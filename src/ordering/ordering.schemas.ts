import { type Static, Type } from 'typebox'
import { CATEGORIES, UNITS } from '../inventory/units.js'
import { domainMinimum, NOT_BLANK, Nullable, NUMBER_LIMITS, PageQuery, Timestamp } from '../platform/http/schemas.js'
import { StringEnum } from '../platform/http/types.js'
import { DISPATCH_STATUSES, ORDER_STATUSES } from './ordering.tables.js'


const Category = StringEnum(CATEGORIES)
// Plain strings: an unknown unit is the domain error invalid_unit, not a schema violation.
const UnitField = Type.String({ description: `One of ${UNITS.join(', ')}; for an item, its own unit or case (invalid_unit otherwise)` })
const OrderedQuantity = Type.Number({ ...domainMinimum(0, true), maximum: NUMBER_LIMITS.quantity, description: 'Greater than zero, up to 3 decimals (invalid_quantity otherwise), at most 1,000,000,000' })
const ReceivedQuantity = Type.Number({ ...domainMinimum(0), maximum: NUMBER_LIMITS.quantity, description: 'Zero or more, up to 3 decimals, in the unit ordered (invalid_quantity otherwise), at most 1,000,000,000' })
const Money = Type.Number({ minimum: 0, maximum: NUMBER_LIMITS.money, description: 'At most 2 decimals; 0 to 1,000,000,000' })
const UnitPrice = Type.Number({ minimum: 0, maximum: NUMBER_LIMITS.money, description: 'At most 4 decimals; 0 to 1,000,000,000' })
const DateQuery = Type.String({ description: 'ISO 8601 date or date-time in the years 0001 to 9999; a bare date_to includes that whole day (UTC)' })

export const IdParams = Type.Object({ id: Type.String() })

// ---- Distributors ----

export const Distributor = Type.Object({
  id: Type.String({ examples: ['dist_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  name: Type.String(),
  distributor_code: Type.String(),
  region: Type.String(),
  contact_email: Type.String({ description: 'Where purchase orders are e-mailed; personal data, never logged' }),
  min_order_amount: Type.Number(),
  lead_time_days: Type.Integer(),
  supported_categories: Type.Array(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Distributor = Static<typeof Distributor>

/** The list shape of the spec: no contact details. */
export const DistributorSummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  region: Type.String(),
  supported_categories: Type.Array(Type.String()),
  min_order_amount: Type.Number(),
  lead_time_days: Type.Integer(),
})
export type DistributorSummary = Static<typeof DistributorSummary>

const distributorFields = {
  name: Type.String({ minLength: 1, maxLength: 200, pattern: NOT_BLANK }),
  distributor_code: Type.String({ minLength: 1, maxLength: 100 }),
  region: Type.String({ minLength: 1, maxLength: 100 }),
  contact_email: Type.String({ format: 'email', maxLength: 254 }),
  min_order_amount: Money,
  lead_time_days: Type.Integer({ minimum: 0, maximum: 365 }),
  supported_categories: Type.Array(Category, {
    minItems: 1,
    uniqueItems: true,
    description: `Categories this distributor sells; default all: ${CATEGORIES.join(', ')}`,
  }),
}

export const CreateDistributorBody = Type.Object(
  {
    name: distributorFields.name,
    distributor_code: distributorFields.distributor_code,
    region: distributorFields.region,
    contact_email: distributorFields.contact_email,
    min_order_amount: Type.Optional(distributorFields.min_order_amount),
    lead_time_days: Type.Optional(distributorFields.lead_time_days),
    supported_categories: Type.Optional(distributorFields.supported_categories),
  },
  { additionalProperties: false },
)
export type CreateDistributorBody = Static<typeof CreateDistributorBody>

export const UpdateDistributorBody = Type.Object(
  {
    name: Type.Optional(distributorFields.name),
    distributor_code: Type.Optional(distributorFields.distributor_code),
    region: Type.Optional(distributorFields.region),
    contact_email: Type.Optional(distributorFields.contact_email),
    min_order_amount: Type.Optional(distributorFields.min_order_amount),
    lead_time_days: Type.Optional(distributorFields.lead_time_days),
    supported_categories: Type.Optional(distributorFields.supported_categories),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateDistributorBody = Static<typeof UpdateDistributorBody>

export const ListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false })
export type ListQuery = Static<typeof ListQuery>

export const CatalogEntry = Type.Object({
  inventory_item_id: Type.String(),
  name: Type.String({ description: 'The inventory item name' }),
  unit: Type.String(),
  unit_price: Type.Number(),
  available_quantity: Nullable(Type.Number({ description: 'In `unit`; null when the distributor does not say' })),
})
export type CatalogEntry = Static<typeof CatalogEntry>

export const CatalogBody = Type.Array(
  Type.Object(
    {
      inventory_item_id: Type.String(),
      unit: UnitField,
      unit_price: UnitPrice,
      available_quantity: Type.Optional(Nullable(Type.Number({ ...domainMinimum(0), maximum: NUMBER_LIMITS.quantity, description: 'Zero or more, in `unit`, at most 1,000,000,000' }))),
    },
    { additionalProperties: false },
  ),
  { maxItems: 1000, description: 'The whole catalog; it replaces the previous one. An empty list removes the catalog.' },
)
export type CatalogBody = Static<typeof CatalogBody>

// ---- Orders ----

export const PurchaseOrderDispatch = Type.Object(
  {
    status: StringEnum(DISPATCH_STATUSES),
    attempts: Type.Integer(),
    last_error: Nullable(Type.String()),
    sent_at: Nullable(Timestamp),
  },
  { description: 'The purchase-order e-mail to the distributor; null before submission' },
)

export const OrderItem = Type.Object({
  inventory_item_id: Type.String(),
  name: Type.String(),
  quantity: Type.Number(),
  unit: Type.String(),
  unit_price: Type.Number(),
  total: Type.Number(),
  quantity_received: Nullable(Type.Number({ description: 'Set on delivery, in `unit`' })),
  quantity_damaged: Nullable(Type.Number({ description: 'Set on delivery, in `unit`' })),
})
export type OrderItem = Static<typeof OrderItem>

export const Order = Type.Object({
  id: Type.String({ examples: ['ord_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  distributor_id: Type.String(),
  distributor_name: Type.String(),
  status: StringEnum(ORDER_STATUSES),
  location: Type.String(),
  total_amount: Type.Number(),
  estimated_delivery: Nullable(Timestamp),
  tracking_number: Nullable(Type.String()),
  carrier: Nullable(Type.String()),
  items: Type.Array(OrderItem),
  notes: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
  submitted_at: Nullable(Timestamp),
  confirmation_number: Nullable(Type.String()),
  delivered_at: Nullable(Timestamp),
  received_by: Nullable(Type.String()),
  purchase_order: Nullable(PurchaseOrderDispatch),
})
export type Order = Static<typeof Order>

export const OrderSummary = Type.Object({
  id: Type.String(),
  distributor_id: Type.String(),
  distributor_name: Type.String(),
  status: StringEnum(ORDER_STATUSES),
  location: Type.String(),
  total_amount: Type.Number(),
  estimated_delivery: Nullable(Timestamp),
  created_at: Timestamp,
})
export type OrderSummary = Static<typeof OrderSummary>

const OrderLineInput = Type.Object(
  { inventory_item_id: Type.String(), quantity: OrderedQuantity, unit: UnitField },
  { additionalProperties: false },
)
export type OrderLineInput = Static<typeof OrderLineInput>

const OrderLines = Type.Array(OrderLineInput, { minItems: 1, maxItems: 500, description: 'One line per item' })

export const CreateOrderBody = Type.Object(
  {
    distributor_id: Type.String(),
    location: Type.String({ minLength: 1 }),
    items: OrderLines,
    notes: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
)
export type CreateOrderBody = Static<typeof CreateOrderBody>

const ReceiptLineInput = Type.Object(
  {
    inventory_item_id: Type.String(),
    quantity_received: ReceivedQuantity,
    quantity_damaged: Type.Optional(ReceivedQuantity),
  },
  { additionalProperties: false },
)
export type ReceiptLineInput = Static<typeof ReceiptLineInput>

export const ReceiveOrderBody = Type.Object(
  {
    received_by: Type.String({ minLength: 1, maxLength: 200, description: 'Who took the delivery' }),
    items: Type.Array(ReceiptLineInput, { minItems: 1, maxItems: 500, description: 'Lines not listed count as not delivered' }),
  },
  { additionalProperties: false },
)
export type ReceiveOrderBody = Static<typeof ReceiveOrderBody>

export const UpdateOrderBody = Type.Object(
  {
    status: Type.Optional(StringEnum(ORDER_STATUSES)),
    items: Type.Optional(
      Type.Array(
        Type.Object(
          {
            inventory_item_id: Type.String(),
            quantity: Type.Optional(OrderedQuantity),
            unit: Type.Optional(UnitField),
            quantity_received: Type.Optional(ReceivedQuantity),
            quantity_damaged: Type.Optional(ReceivedQuantity),
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: 500,
          description:
            'Order lines {inventory_item_id, quantity, unit} (draft only), or with status delivered the received lines {inventory_item_id, quantity_received, quantity_damaged?}',
        },
      ),
    ),
    notes: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    tracking_number: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'With status shipped' })),
    carrier: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'With status shipped' })),
    estimated_delivery: Type.Optional(Type.String({ format: 'date-time', description: 'With status shipped' })),
    received_by: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'With status delivered' })),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateOrderBody = Static<typeof UpdateOrderBody>

export const ListOrdersQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(StringEnum(ORDER_STATUSES)),
    distributor_id: Type.Optional(Type.String()),
    date_from: Type.Optional(DateQuery),
    date_to: Type.Optional(DateQuery),
  },
  { additionalProperties: false },
)
export type ListOrdersQuery = Static<typeof ListOrdersQuery>

export const OrderDeleted = Type.Object({
  id: Type.String(),
  deleted: Type.Literal(true),
  status: Type.Optional(Type.Literal('cancelled', { description: 'Present when the order was cancelled rather than deleted' })),
})
export type OrderDeleted = Static<typeof OrderDeleted>

// ---- Recommendations ----

export const MAX_RECOMMENDATION_DAYS = 90

export const RecommendationsQuery = Type.Object(
  {
    distributor_id: Type.Optional(Type.String({ description: "Only items this distributor supplies; adds its lead time and uses its prices" })),
    location: Type.Optional(Type.String({ description: 'Only items stocked at this location' })),
    days_ahead: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RECOMMENDATION_DAYS, default: 7 })),
  },
  { additionalProperties: false },
)
export type RecommendationsQuery = Static<typeof RecommendationsQuery>

export const Recommendation = Type.Object({
  inventory_item_id: Type.String(),
  name: Type.String(),
  current_stock: Type.Number({ description: 'In the item unit' }),
  forecasted_demand: Type.Number({ description: 'Stored forecast demand over days_ahead plus lead time, in the item unit' }),
  recommended_order: Type.Number({ description: 'In the item unit; whole cases when the item has a case size' }),
  unit: Type.String(),
  reason: Type.String({ description: 'The numbers behind the order: demand, safety stock, stock, on order' }),
  confidence: Type.Number({ description: 'Fraction 0..1: 1 − the forecast back-test WAPE (docs/forecasts.md)' }),
})
export type Recommendation = Static<typeof Recommendation>

export const Recommendations = Type.Object({
  location: Type.String({ description: 'The location asked for, or "all"' }),
  forecast_period: Type.String({ description: 'ISO 8601 interval of dates, today to today + days_ahead' }),
  recommendations: Type.Array(Recommendation),
  total_recommended_amount: Type.Number({ description: 'Cost of every recommended order at distributor or item cost prices' }),
})
export type Recommendations = Static<typeof Recommendations>
