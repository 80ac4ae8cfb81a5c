import { tenantOf } from '../platform/auth/auth-plugin.js'
import { pageRequest, paginate } from '../platform/http/pagination.js'
import { envelope, listEnvelope } from '../platform/http/schemas.js'
import type { App } from '../platform/http/types.js'
import { runWrite } from '../platform/idempotency.js'
import { inventoryErrors } from '../inventory/index.js'
import { locationErrors } from '../locations/index.js'
import { orderingErrors } from './ordering.errors.js'
import {
  CreateOrderBody,
  IdParams,
  ListOrdersQuery,
  Order,
  OrderDeleted,
  OrderSummary,
  ReceiveOrderBody,
  Recommendations,
  RecommendationsQuery,
  UpdateOrderBody,
} from './ordering.schemas.js'
import { createOrder, deleteOrder, getOrder, listOrders, type OrderingOptions, receiveOrder, submitOrder, updateOrder } from './orders.service.js'
import type { DemandForecaster } from './demand-forecaster.js'
import { recommendOrders } from './recommendations.service.js'

const tags = ['Orders']
const { orderNotFound, distributorNotFound, invalidStatus, belowMinOrder, itemNotAvailable, insufficientStock } = orderingErrors
const { itemNotFound, invalidQuantity, invalidUnit } = inventoryErrors
const pricingErrors = [distributorNotFound, itemNotFound, invalidQuantity, invalidUnit, itemNotAvailable, insufficientStock]

export interface OrderRoutesOptions extends OrderingOptions {
  /** Where recommendations get demand forecasts (analytics' stored forecasts, wired in app.ts). */
  forecaster: DemandForecaster
}

export async function orderRoutes(app: App, options: OrderRoutesOptions) {
  const ordering: OrderingOptions = { purchaseOrderMail: options.purchaseOrderMail }

  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'List orders',
        description: 'Newest first. date_from and date_to filter on created_at.',
        querystring: ListOrdersQuery,
        response: { 200: listEnvelope(OrderSummary) },
      },
      config: { readReplica: true, permission: 'ordering:read' },
    },
    async (request) => {
      const page = pageRequest(request.query)
      const { orders, total } = await listOrders(app.db, tenantOf(request), request.query, page)
      return { data: orders, pagination: paginate(request, page, total) }
    },
  )

  app.post(
    '/',
    {
      schema: {
        tags,
        summary: 'Create a draft order',
        description: "Lines are priced from the distributor's catalog when it lists the item, else at the item's cost per unit.",
        body: CreateOrderBody,
        response: { 201: envelope(Order) },
      },
      config: { permission: 'ordering:write', errors: [...pricingErrors, locationErrors.locationNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 201, (trx) => createOrder(trx, tenantOf(request), request.body)),
  )

  app.get(
    '/recommendations',
    {
      schema: {
        tags,
        summary: 'Recommend what to order',
        description:
          'Per item with a stored demand forecast (14 days of sales history or more): forecast demand over days_ahead plus the distributor’s lead time, plus safety stock at a 95 % service level from the back-test error, or the item’s par_level where that is more, minus stock and what is on order, rounded up to whole cases. An item without a forecast is ordered up to its par_level, and left out without one. See docs/ordering.md.',
        querystring: RecommendationsQuery,
        response: { 200: envelope(Recommendations) },
      },
      config: { permission: 'ordering:read', errors: [distributorNotFound, locationErrors.locationNotFound] },
    },
    async (request) => ({ data: await recommendOrders(app.db, tenantOf(request), request.query, options.forecaster) }),
  )

  app.get(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Get an order',
        description: 'One order with its lines, status fields and purchase-order e-mail status.',
        params: IdParams,
        response: { 200: envelope(Order) },
      },
      config: { permission: 'ordering:read', errors: [orderNotFound] },
    },
    async (request) => ({ data: await getOrder(app.db, tenantOf(request), request.params.id) }),
  )

  app.put(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Update an order or move its status',
        description:
          'Items change only in draft. status: submitted (from draft), processing (from submitted), shipped (from processing, with tracking_number and carrier), delivered (from shipped, with received_by, received items and received_at?, as POST receive), cancelled (from draft, submitted or processing).',
        params: IdParams,
        body: UpdateOrderBody,
        response: { 200: envelope(Order) },
      },
      config: { permission: 'ordering:write', errors: [orderNotFound, invalidStatus, belowMinOrder, ...pricingErrors] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => updateOrder(trx, tenantOf(request), request.params.id, request.body, ordering)),
  )

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Delete a draft, or cancel a submitted or processing order',
        description:
          'A draft is deleted; a submitted or processing order is cancelled (status cancelled, kept in lists). A shipped, delivered or cancelled order answers invalid_status.',
        params: IdParams,
        response: { 200: envelope(OrderDeleted) },
      },
      config: { permission: 'ordering:write', errors: [orderNotFound, invalidStatus] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => deleteOrder(trx, tenantOf(request), request.params.id)),
  )

  app.post(
    '/:id/submit',
    {
      schema: {
        tags,
        summary: 'Submit a draft order to its distributor',
        description: 'Sets submitted_at, confirmation_number and estimated_delivery (now plus lead time) and e-mails the purchase order when BARSTOCK_SMTP_URL is set.',
        params: IdParams,
        response: { 200: envelope(Order) },
      },
      config: { permission: 'ordering:write', errors: [orderNotFound, invalidStatus, belowMinOrder, distributorNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => submitOrder(trx, tenantOf(request), request.params.id, ordering)),
  )

  app.post(
    '/:id/receive',
    {
      schema: {
        tags,
        summary: 'Receive a shipped order',
        description:
          'Adds received minus damaged quantities (cases converted to item units, damage given in the unit ordered or as units_damaged in the item’s unit) to stock through the ledger, dated received_at (default now). A delivery dated before an item’s latest count is history for it: recorded for reports, current stock unchanged. Sets each item’s cost_per_unit to the line’s unit price per item unit when this is its latest cost change by time (a receipt or a PUT of the cost); each delivery keeps the price it was received at and enters the item’s cost history at received_at, which reports value count windows with. See docs/ordering.md.',
        params: IdParams,
        body: ReceiveOrderBody,
        response: { 200: envelope(Order) },
      },
      config: { permission: 'ordering:write', errors: [orderNotFound, invalidStatus, invalidQuantity, itemNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => receiveOrder(trx, tenantOf(request), request.params.id, request.body)),
  )
}
