import { type Static, Type } from 'typebox'
import { CATEGORIES, PastTime, UNITS } from '../inventory/index.js'
import { DateQuery, domainMinimum, NOT_BLANK, Nullable, NUMBER_LIMITS, PageQuery, Timestamp } from '../platform/http/schemas.js'
import { StringEnum } from '../platform/http/types.js'
import { DISPATCH_STATUSES, ORDER_STATUSES } from './ordering.tables.js'

const Category = StringEnum(CATEGORIES, { description: 'An inventory category', examples: ['spirits'] })
// Plain strings: an unknown unit is the domain error invalid_unit, not a schema violation.
const UnitField = Type.String({ description: `One of ${UNITS.join(', ')}; for an item, its own unit or case (invalid_unit otherwise)`, examples: ['case'] })
const OrderedQuantity = Type.Number({
  ...domainMinimum(0, true),
  maximum: NUMBER_LIMITS.quantity,
  description: 'In unit: greater than zero, up to 3 decimals (invalid_quantity otherwise), at most 1,000,000,000',
  examples: [2],
})
const ReceivedQuantity = Type.Number({
  ...domainMinimum(0),
  maximum: NUMBER_LIMITS.quantity,
  description: 'Zero or more, up to 3 decimals, in the unit ordered (invalid_quantity otherwise), at most 1,000,000,000',
  examples: [2],
})
const Money = Type.Number({ minimum: 0, maximum: NUMBER_LIMITS.money, description: 'In the account currency, at most 2 decimals; 0 to 1,000,000,000', examples: [250] })
const UnitPrice = Type.Number({
  minimum: 0,
  maximum: NUMBER_LIMITS.money,
  description: 'Price of one unit in the account currency, at most 4 decimals; 0 to 1,000,000,000',
  examples: [198],
})
export const IdParams = Type.Object({ id: Type.String({ description: 'The distributor’s or order’s id', examples: ['dist_01jd2y5z6a7b8c9d0e1f2g3h4j'] }) })

// ---- Distributors ----

export const Distributor = Type.Object({
  id: Type.String({ description: 'The distributor’s id', examples: ['dist_01jd2y5z6a7b8c9d0e1f2g3h4j'] }),
  name: Type.String({ description: 'Its name', examples: ['Southern Glazer’s Wine & Spirits'] }),
  distributor_code: Type.String({ description: 'Your code for it (an account number with the distributor)', examples: ['SGWS-NY-10442'] }),
  region: Type.String({ description: 'The region it delivers to', examples: ['New York Metro'] }),
  contact_email: Type.String({ description: 'Where purchase orders are e-mailed; personal data, never logged', examples: ['orders@sgws.example'] }),
  min_order_amount: Type.Number({ description: 'Smallest order total it accepts, in the account currency (below_min_order at submit)', examples: [250] }),
  lead_time_days: Type.Integer({ description: 'Days from submission to delivery', examples: [2] }),
  supported_categories: Type.Array(Type.String(), { description: 'The inventory categories it sells', examples: [['spirits', 'liqueur', 'wine']] }),
  created_at: { ...Timestamp, description: 'When it was created' },
  updated_at: { ...Timestamp, description: 'When it last changed' },
})
export type Distributor = Static<typeof Distributor>

/** The list shape of the spec: no contact details. */
export const DistributorSummary = Type.Object({
  id: Distributor.properties.id,
  name: Distributor.properties.name,
  region: Distributor.properties.region,
  supported_categories: Distributor.properties.supported_categories,
  min_order_amount: Distributor.properties.min_order_amount,
  lead_time_days: Distributor.properties.lead_time_days,
})
export type DistributorSummary = Static<typeof DistributorSummary>

const distributorFields = {
  name: Type.String({ minLength: 1, maxLength: 200, pattern: NOT_BLANK, description: 'Its name, 1 to 200 characters', examples: ['Southern Glazer’s Wine & Spirits'] }),
  distributor_code: Type.String({ minLength: 1, maxLength: 100, description: 'Your code for it, 1 to 100 characters', examples: ['SGWS-NY-10442'] }),
  region: Type.String({ minLength: 1, maxLength: 100, description: 'The region it delivers to, 1 to 100 characters', examples: ['New York Metro'] }),
  contact_email: Type.String({ format: 'email', maxLength: 254, description: 'Where purchase orders are e-mailed, at most 254 characters', examples: ['orders@sgws.example'] }),
  min_order_amount: { ...Money, description: 'Smallest order total it accepts, in the account currency, 0 to 1,000,000,000, at most 2 decimals; default 0' },
  lead_time_days: Type.Integer({ minimum: 0, maximum: 365, description: 'Days from submission to delivery, 0 to 365; default 0', examples: [2] }),
  supported_categories: Type.Array(Category, {
    minItems: 1,
    uniqueItems: true,
    description: `Categories this distributor sells, each at most once; default all: ${CATEGORIES.join(', ')}`,
    examples: [['spirits', 'liqueur', 'wine']],
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
  inventory_item_id: Type.String({ description: 'The inventory item', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  name: Type.String({ description: 'The inventory item name', examples: ["Tito's Handmade Vodka 750ml"] }),
  unit: Type.String({ description: 'The unit it is sold in: the item’s unit or case', examples: ['case'] }),
  unit_price: Type.Number({ description: 'Price of one unit, in the account currency', examples: [198] }),
  available_quantity: Nullable(Type.Number({ description: 'In `unit`; null when the distributor does not say', examples: [40] })),
})
export type CatalogEntry = Static<typeof CatalogEntry>

export const CatalogBody = Type.Array(
  Type.Object(
    {
      inventory_item_id: Type.String({ description: 'The inventory item sold, each at most once', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
      unit: UnitField,
      unit_price: UnitPrice,
      available_quantity: Type.Optional(
        Nullable(
          Type.Number({
            ...domainMinimum(0),
            maximum: NUMBER_LIMITS.quantity,
            description: 'How much it can deliver, zero or more, in `unit`, at most 1,000,000,000; null or absent when it does not say',
            examples: [40],
          }),
        ),
      ),
    },
    { additionalProperties: false },
  ),
  { maxItems: 1000, description: 'The whole catalog; it replaces the previous one. An empty list removes the catalog.' },
)
export type CatalogBody = Static<typeof CatalogBody>

// ---- Orders ----

export const PurchaseOrderDispatch = Type.Object(
  {
    status: StringEnum(DISPATCH_STATUSES, {
      description:
        'pending (waiting to be sent or retried), sending, sent, failed (retries over), skipped (no SMTP server is configured) or cancelled (the order was cancelled first)',
      examples: ['sent'],
    }),
    attempts: Type.Integer({ description: 'Sending attempts so far', examples: [1] }),
    last_error: Nullable(Type.String({ description: 'Why the last attempt failed; null when none did', examples: [null] })),
    sent_at: Nullable(Timestamp, 'When the e-mail was accepted by the mail server; null until then'),
  },
  { description: 'The purchase-order e-mail to the distributor; null before submission' },
)

export const OrderItem = Type.Object({
  inventory_item_id: Type.String({ description: 'The inventory item', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  name: Type.String({ description: 'Its name', examples: ["Tito's Handmade Vodka 750ml"] }),
  quantity: Type.Number({ description: 'How much is ordered, in unit', examples: [2] }),
  unit: Type.String({ description: 'The unit ordered: the item’s unit or case', examples: ['case'] }),
  unit_price: Type.Number({
    description: 'Price of one unit, in the account currency (the catalog’s, else the item’s cost). Receiving sets the item’s cost_per_unit from it (per item unit)',
    examples: [198],
  }),
  total: Type.Number({ description: 'quantity × unit_price, in the account currency', examples: [396] }),
  quantity_received: Nullable(Type.Number({ description: 'Set on delivery, in `unit`; null before', examples: [null] })),
  quantity_damaged: Nullable(
    Type.Number({ description: 'Set on delivery, in `unit` (a fraction of a case when damage was given in units_damaged); null before', examples: [null] }),
  ),
  units_damaged: Nullable(
    Type.Number({ description: 'Set on delivery: the damaged part in the item’s own unit (quantity_damaged × units per `unit`, or as given); null before', examples: [null] }),
  ),
})
export type OrderItem = Static<typeof OrderItem>

export const Order = Type.Object({
  id: Type.String({ description: 'The order’s id', examples: ['ord_01jd3c4d5e6f7g8h9j0k1m2n3p'] }),
  distributor_id: Type.String({ description: 'The distributor', examples: ['dist_01jd2y5z6a7b8c9d0e1f2g3h4j'] }),
  distributor_name: Type.String({ description: 'Its name (kept when the distributor is deleted)', examples: ['Southern Glazer’s Wine & Spirits'] }),
  status: StringEnum(ORDER_STATUSES, { description: 'draft, submitted, processing, shipped, delivered or cancelled', examples: ['draft'] }),
  location: Type.String({ description: 'The location id it is for', examples: ['main_bar'] }),
  total_amount: Type.Number({ description: 'Σ line totals, in the account currency', examples: [412.8] }),
  estimated_delivery: Nullable(Timestamp, 'Submission plus lead time, or the shipper’s estimate; null before submission'),
  tracking_number: Nullable(Type.String({ description: 'Set when shipped; null before', examples: [null] })),
  carrier: Nullable(Type.String({ description: 'Set when shipped; null before', examples: [null] })),
  items: Type.Array(OrderItem, { description: 'The order lines' }),
  notes: Nullable(Type.String({ description: 'Your notes, also on the purchase order', examples: ['Deliver to the side door before 2 pm'] })),
  created_at: { ...Timestamp, description: 'When it was created' },
  updated_at: { ...Timestamp, description: 'When it last changed' },
  submitted_at: Nullable(Timestamp, 'When it was submitted; null before'),
  confirmation_number: Nullable(Type.String({ description: 'PO-<yyyymmdd>-<8 characters>, set at submission; null before', examples: [null] })),
  delivered_at: Nullable(Timestamp, 'When it was received; null before'),
  received_by: Nullable(Type.String({ description: 'Who received it; null before', examples: [null] })),
  purchase_order: Nullable(PurchaseOrderDispatch, 'The purchase-order e-mail to the distributor; null before submission'),
})
export type Order = Static<typeof Order>

export const OrderSummary = Type.Object({
  id: Order.properties.id,
  distributor_id: Order.properties.distributor_id,
  distributor_name: Order.properties.distributor_name,
  status: Order.properties.status,
  location: Order.properties.location,
  total_amount: Order.properties.total_amount,
  estimated_delivery: Order.properties.estimated_delivery,
  created_at: Order.properties.created_at,
})
export type OrderSummary = Static<typeof OrderSummary>

const OrderLineInput = Type.Object(
  {
    inventory_item_id: Type.String({ description: 'The inventory item to order, each at most once', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
    quantity: OrderedQuantity,
    unit: UnitField,
  },
  { additionalProperties: false },
)
export type OrderLineInput = Static<typeof OrderLineInput>

const OrderLines = Type.Array(OrderLineInput, { minItems: 1, maxItems: 500, description: '1 to 500 lines, one per item' })

export const CreateOrderBody = Type.Object(
  {
    distributor_id: Type.String({ description: 'The distributor to order from (distributor_not_found otherwise)', examples: ['dist_01jd2y5z6a7b8c9d0e1f2g3h4j'] }),
    location: Type.String({ minLength: 1, description: 'The location id it is for (location_not_found otherwise)', examples: ['main_bar'] }),
    items: OrderLines,
    notes: Type.Optional(Type.String({ maxLength: 2000, description: 'Up to 2,000 characters, also on the purchase order', examples: ['Deliver to the side door before 2 pm'] })),
  },
  { additionalProperties: false },
)
export type CreateOrderBody = Static<typeof CreateOrderBody>

const DamagedQuantity = {
  ...ReceivedQuantity,
  description: 'How much of it arrived damaged (not added to stock), in the unit ordered, at most quantity_received; default 0',
  examples: [0],
}
const DamagedUnits = {
  ...ReceivedQuantity,
  description: 'Instead of quantity_damaged: how much arrived damaged in the item’s own unit (1 bottle of a case of 12), at most what arrived; both given: invalid_parameter',
  examples: [1],
}

const ReceiptLineInput = Type.Object(
  {
    inventory_item_id: Type.String({ description: 'An item of the order', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
    quantity_received: { ...ReceivedQuantity, description: 'How much arrived, damaged included, in the unit ordered: zero or more, up to 3 decimals, at most 1,000,000,000' },
    quantity_damaged: Type.Optional(DamagedQuantity),
    units_damaged: Type.Optional(DamagedUnits),
  },
  { additionalProperties: false },
)
export type ReceiptLineInput = Static<typeof ReceiptLineInput>

const ReceivedBy = Type.String({ minLength: 1, maxLength: 200, description: 'Who took the delivery, 1 to 200 characters', examples: ['Jamal (bar manager)'] })
const ARRIVED = 'the delivery arrived (the invoice’s date and time), for a receipt entered after the fact'

export const ReceiveOrderBody = Type.Object(
  {
    received_by: ReceivedBy,
    received_at: Type.Optional(PastTime(`When ${ARRIVED}`)),
    items: Type.Array(ReceiptLineInput, { minItems: 1, maxItems: 500, description: 'Lines not listed count as not delivered' }),
  },
  { additionalProperties: false },
)
export type ReceiveOrderBody = Static<typeof ReceiveOrderBody>

export const UpdateOrderBody = Type.Object(
  {
    status: Type.Optional(
      StringEnum(ORDER_STATUSES, {
        description: 'The status to move to: submitted, processing, shipped, delivered or cancelled (invalid_status for a move the order’s status does not allow)',
      }),
    ),
    items: Type.Optional(
      Type.Array(
        Type.Object(
          {
            inventory_item_id: Type.String({ description: 'An item of the order', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
            quantity: Type.Optional(OrderedQuantity),
            unit: Type.Optional(UnitField),
            quantity_received: Type.Optional({ ...ReceivedQuantity, description: 'With status delivered: how much arrived, in the unit ordered' }),
            quantity_damaged: Type.Optional({ ...DamagedQuantity, description: `With status delivered: ${DamagedQuantity.description}` }),
            units_damaged: Type.Optional({ ...DamagedUnits, description: `With status delivered: ${DamagedUnits.description}` }),
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: 500,
          description:
            'Order lines {inventory_item_id, quantity, unit} (draft only), or with status delivered the received lines {inventory_item_id, quantity_received, quantity_damaged? or units_damaged?}',
        },
      ),
    ),
    notes: Type.Optional(Nullable(Type.String({ maxLength: 2000, description: 'Up to 2,000 characters; null clears them', examples: ['Deliver to the side door before 2 pm'] }))),
    tracking_number: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Required with status shipped, 1 to 200 characters', examples: ['1Z999AA10123456784'] }),
    ),
    carrier: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Required with status shipped, 1 to 200 characters', examples: ['UPS'] })),
    estimated_delivery: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'With status shipped: the shipper’s delivery estimate (default: the one set at submission)',
        examples: ['2026-11-24T18:00:00Z'],
      }),
    ),
    received_by: Type.Optional({ ...ReceivedBy, description: 'Required with status delivered: who took the delivery, 1 to 200 characters' }),
    received_at: Type.Optional(PastTime(`With status delivered: when ${ARRIVED}`)),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ status: 'shipped', tracking_number: '1Z999AA10123456784', carrier: 'UPS' }] },
)
export type UpdateOrderBody = Static<typeof UpdateOrderBody>

export const ListOrdersQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(StringEnum(ORDER_STATUSES, { description: 'Only orders in this status' })),
    distributor_id: Type.Optional(Type.String({ description: 'Only orders to this distributor', examples: ['dist_01jd2y5z6a7b8c9d0e1f2g3h4j'] })),
    date_from: Type.Optional(DateQuery('2026-11-01')),
    date_to: Type.Optional(DateQuery('2026-11-30')),
  },
  { additionalProperties: false },
)
export type ListOrdersQuery = Static<typeof ListOrdersQuery>

export const OrderDeleted = Type.Object({
  id: Type.String({ description: 'The order’s id', examples: ['ord_01jd3c4d5e6f7g8h9j0k1m2n3p'] }),
  deleted: Type.Literal(true, { description: 'Always true' }),
  status: Type.Optional(Type.Literal('cancelled', { description: 'Present when the order was cancelled rather than deleted' })),
})
export type OrderDeleted = Static<typeof OrderDeleted>

// ---- Recommendations ----

export const MAX_RECOMMENDATION_DAYS = 90

export const RecommendationsQuery = Type.Object(
  {
    distributor_id: Type.Optional(
      Type.String({ description: 'Only items this distributor supplies; adds its lead time and uses its prices', examples: ['dist_01jd2y5z6a7b8c9d0e1f2g3h4j'] }),
    ),
    location: Type.Optional(Type.String({ description: 'Only items stocked at this location id', examples: ['main_bar'] })),
    days_ahead: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_RECOMMENDATION_DAYS, default: 7, description: 'Days of demand to cover, 1 to 90, default 7', examples: [7] }),
    ),
  },
  { additionalProperties: false },
)
export type RecommendationsQuery = Static<typeof RecommendationsQuery>

export const Recommendation = Type.Object({
  inventory_item_id: Type.String({ description: 'The inventory item', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  name: Type.String({ description: 'Its name', examples: ["Tito's Handmade Vodka 750ml"] }),
  current_stock: Type.Number({ description: 'In the item unit', examples: [4] }),
  forecasted_demand: Type.Number({
    description: 'Stored forecast demand over days_ahead plus lead time, in the item unit; 0 for an item under 14 days of history ordered up to its par',
    examples: [13.6],
  }),
  recommended_order: Type.Number({ description: 'In the item unit; whole cases when the item has a case size', examples: [12] }),
  unit: Type.String({ description: 'The item’s unit', examples: ['bottle'] }),
  reason: Type.String({
    description: 'The numbers behind the order: demand, safety stock, stock, on order',
    examples: [
      'Forecast demand of 13.6 bottle over 7 days, plus 2.1 bottle safety stock (95 % service level), less 4 bottle in stock and 0 bottle on order, leaves 11.7 bottle short: order 12 bottle (1 cases of 12).',
    ],
  }),
  confidence: Type.Number({ description: 'Fraction 0..1: 1 − the forecast back-test WAPE (docs/forecasts.md); 0 for an order up to par without a forecast', examples: [0.82] }),
  par_level: Nullable(
    Type.Number({
      description: 'The item’s par level, in its unit: the order reaches at least this (the reason says when the par, not the forecast, set it); null without a par',
      examples: [12],
    }),
  ),
  transfer_from: Type.Array(
    Type.Object({
      location: Type.String({
        description: 'A location holding the item’s SKU above its own par (or, without a par, above its forecast need over the same horizon)',
        examples: ['storeroom'],
      }),
      quantity: Type.Number({ description: 'What to move from there first, in this item’s unit', examples: [24] }),
    }),
    {
      description:
        'Transfers to make before buying (POST /v1/inventory/transfers): recommended_order covers only what they cannot. Each surplus is offered once in an answer, to the most urgent item first; empty when none',
    },
  ),
})
export type Recommendation = Static<typeof Recommendation>

export const Recommendations = Type.Object({
  location: Type.String({ description: 'The location asked for, or "all"', examples: ['main_bar'] }),
  forecast_period: Type.String({ description: 'ISO 8601 interval of dates, today to today + days_ahead', examples: ['2026-11-22/2026-11-29'] }),
  recommendations: Type.Array(Recommendation, { description: 'One per item that needs ordering' }),
  total_recommended_amount: Type.Number({ description: 'Cost of every recommended order at distributor or item cost prices, in the account currency', examples: [222] }),
})
export type Recommendations = Static<typeof Recommendations>
