import { type Static, Type } from 'typebox'
import type { EventDataOf } from '../platform/outbox.js'

/** The order events of the spec's Events table: their exact `data` fields, as schemas (webhooks, OpenAPI). */
const OrderId = Type.String({ description: 'The order (GET /v1/orders/{id})', examples: ['ord_01jd3c4d5e6f7g8h9j0k1m2n3p'] })
const DistributorName = Type.String({ description: 'The distributor’s name', examples: ['Southern Glazer’s Wine & Spirits'] })
const Timestamp = (description: string, example: string) => Type.String({ format: 'date-time', description, examples: [example] })

export const OrderCreatedData = Type.Object(
  {
    order_id: OrderId,
    distributor_id: Type.String({ description: 'The distributor ordered from', examples: ['dist_01jd2y5z6a7b8c9d0e1f2g3h4j'] }),
    distributor_name: DistributorName,
    status: Type.String({ description: 'Always `draft`: orders are created as drafts', examples: ['draft'] }),
    total_amount: Type.Number({ description: 'Σ line totals, in the account currency', examples: [412.8] }),
    location: Type.String({ description: 'The location the order is for', examples: ['main_bar'] }),
  },
  { description: 'A draft order was created' },
)
export type OrderCreatedData = Static<typeof OrderCreatedData>

export const OrderSubmittedData = Type.Object(
  {
    order_id: OrderId,
    distributor_name: DistributorName,
    confirmation_number: Type.String({ description: '`PO-<yyyymmdd>-<8 characters>`, also on the purchase order', examples: ['PO-20261122-7K3M9QXA'] }),
    estimated_delivery: Timestamp('Submission time plus the distributor’s lead_time_days', '2026-11-24T21:30:00.000Z'),
  },
  { description: 'A draft order was submitted to its distributor' },
)
export type OrderSubmittedData = Static<typeof OrderSubmittedData>

export const OrderShippedData = Type.Object(
  {
    order_id: OrderId,
    tracking_number: Type.String({ description: 'As given when the order was marked shipped', examples: ['1Z999AA10123456784'] }),
    carrier: Type.String({ description: 'As given when the order was marked shipped', examples: ['UPS'] }),
    estimated_delivery: Type.Union([Timestamp('The estimate given when shipped, else the one set at submission', '2026-11-24T18:00:00.000Z'), Type.Null()], {
      description: 'The estimate given when shipped, else the one set at submission; null when neither exists',
    }),
  },
  { description: 'A processing order was marked shipped' },
)
export type OrderShippedData = Static<typeof OrderShippedData>

export const OrderDeliveredData = Type.Object(
  {
    order_id: OrderId,
    delivered_at: Timestamp('When it was received', '2026-11-24T16:05:00.000Z'),
    received_by: Type.String({ description: 'Who received it, as given to POST /v1/orders/{id}/receive', examples: ['Jamal (bar manager)'] }),
    items_received: Type.Integer({ description: 'Order lines of which something arrived', minimum: 0, examples: [5] }),
    items_damaged: Type.Integer({ description: 'Order lines of which something arrived damaged', minimum: 0, examples: [1] }),
  },
  { description: 'A shipped order was received; its stock is added' },
)
export type OrderDeliveredData = Static<typeof OrderDeliveredData>

/** The order events by kind, in the spec's order: the composition root assembles every domain's. */
export const orderingEvents = {
  'order.created': OrderCreatedData,
  'order.submitted': OrderSubmittedData,
  'order.shipped': OrderShippedData,
  'order.delivered': OrderDeliveredData,
}

declare module '../platform/outbox.js' {
  interface EventCatalog extends EventDataOf<typeof orderingEvents> {}
}
