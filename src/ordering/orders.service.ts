import { parseDateRange } from '../platform/http/date-filter.js'
import { getLocation } from '../locations/index.js'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { MONEY_DECIMALS, moneyOut, toDbNumeric } from '../platform/decimal.js'
import type { PageRequest } from '../platform/http/pagination.js'
import { newId } from '../platform/ids.js'
import { enqueue } from '../platform/outbox.js'
import { getDistributorRow } from './distributors.service.js'
import { lineRows, replaceItems } from './order-lines.js'
import { cancelLocked, moveTo } from './order-moves.js'
import { priceLines } from './order-pricing.js'
import { receiveLocked } from './order-receipt.js'
import { checkStillChangeable, checkTransition } from './order-status.js'
import { type OrderingOptions, submitLocked } from './order-submission.js'
import { parseUpdate } from './order-update.js'
import {
  deleteOrderRow,
  findOrderRow,
  insertOrderRow,
  listOrderLines,
  listOrderRows,
  lockOrderRow,
  type OrderRow,
  replaceOrderLines,
  rowToOrder,
  rowToOrderSummary,
  updateOrderRow,
} from './orders.repository.js'
import { orderingErrors } from './ordering.errors.js'
import type { CreateOrderBody, ListOrdersQuery, Order, OrderDeleted, ReceiveOrderBody, UpdateOrderBody } from './ordering.schemas.js'
import type { OrderStatus } from './ordering.tables.js'
import { findDispatch } from './purchase-orders.repository.js'

/**
 * Orders: the entry points of the routes. Each locks the order row, then hands the locked order to the
 * part that knows the change: its lines (order-lines.ts), a submission (order-submission.ts), a receipt
 * (order-receipt.ts), the other moves (order-moves.ts, by the rules of order-status.ts); a PUT's body is
 * read by order-update.ts.
 */

export type { OrderingOptions }

async function lockOrder(trx: Trx, tenant: Tenant, id: string): Promise<OrderRow> {
  const order = await lockOrderRow(trx, tenant, id)
  if (!order) throw orderingErrors.orderNotFound(id)
  return order
}

/** An order with its lines and purchase-order dispatch. Throws order_not_found. */
export async function getOrder(db: Executor, tenant: Tenant, id: string): Promise<Order> {
  const order = await findOrderRow(db, tenant, id)
  if (!order) throw orderingErrors.orderNotFound(id)
  const [lines, dispatch] = await Promise.all([listOrderLines(db, id), findDispatch(db, id)])
  return rowToOrder(order, lines, dispatch)
}

/** One page of orders, newest first, filtered by status, distributor and creation date. Throws invalid_parameter. */
export async function listOrders(db: Executor, tenant: Tenant, query: ListOrdersQuery, page: PageRequest) {
  const { from: createdFrom, before: createdBefore } = parseDateRange(query)
  const filters = { status: query.status, distributorId: query.distributor_id, createdFrom, createdBefore }
  const { rows, total } = await listOrderRows(db, tenant, filters, page)
  return { orders: rows.map(rowToOrderSummary), total }
}

/**
 * Creates a draft order priced from the distributor's catalog or the items' costs, and emits
 * order.created. Throws distributor_not_found, location_not_found and the pricing codes of priceLines.
 */
export async function createOrder(trx: Trx, tenant: Tenant, input: CreateOrderBody): Promise<Order> {
  const distributor = await getDistributorRow(trx, tenant, input.distributor_id)
  await getLocation(trx, tenant, input.location)
  const { lines, total } = await priceLines(trx, tenant, distributor, input.location, input.items)
  const id = newId('ord')
  await insertOrderRow(trx, {
    id,
    account_id: tenant.accountId,
    environment: tenant.environment,
    distributor_id: distributor.id,
    location_id: input.location,
    status: 'draft',
    notes: input.notes ?? null,
    total_amount: toDbNumeric(total, MONEY_DECIMALS),
  })
  await replaceOrderLines(trx, id, lineRows(id, lines))
  await enqueue(trx, tenant, 'order.created', {
    order_id: id,
    distributor_id: distributor.id,
    distributor_name: distributor.name,
    status: 'draft',
    total_amount: moneyOut(total),
    location: input.location,
  })
  return getOrder(trx, tenant, id)
}

/**
 * Submits a draft: confirmation_number, submitted_at, estimated_delivery = now + lead time, a recorded
 * purchase-order dispatch (e-mailed later by the worker, or skipped without SMTP), and order.submitted.
 * The order row is locked, so concurrent submits make one submission. Throws order_not_found,
 * invalid_status, distributor_not_found (deleted since), below_min_order.
 */
export async function submitOrder(trx: Trx, tenant: Tenant, id: string, options: OrderingOptions): Promise<Order> {
  await submitLocked(trx, tenant, await lockOrder(trx, tenant, id), options)
  return getOrder(trx, tenant, id)
}

/** Deletes a draft, and cancels a submitted or processing order. Throws order_not_found, invalid_status. */
export async function deleteOrder(trx: Trx, tenant: Tenant, id: string): Promise<OrderDeleted> {
  const order = await lockOrder(trx, tenant, id)
  if (order.status === 'draft') {
    await deleteOrderRow(trx, id)
    return { id, deleted: true }
  }
  await cancelLocked(trx, order)
  return { id, deleted: true, status: 'cancelled' }
}

/**
 * Receives a shipped order at `received_at` (default now): records received and damaged quantities per
 * line (lines not listed got nothing), and hands what arrived to inventory's receiveDelivery, which adds
 * received minus damaged, in item units, to stock by the counts' rule and sets each item's cost_per_unit
 * from the line's price per item unit when this is its latest delivery; emits order.delivered. The order
 * row lock makes a second receipt see `delivered` and fail. Throws order_not_found, invalid_status,
 * invalid_quantity, invalid_parameter (also a future received_at, or both quantity_damaged and
 * units_damaged), item_not_found.
 */
export async function receiveOrder(trx: Trx, tenant: Tenant, id: string, input: ReceiveOrderBody): Promise<Order> {
  await receiveLocked(trx, tenant, await lockOrder(trx, tenant, id), input)
  return getOrder(trx, tenant, id)
}

/**
 * Updates an order: items and notes, and a status move of DECISIONS.md (submitted, processing, shipped
 * with tracking_number and carrier, delivered with received_by and received items, cancelled). A
 * status equal to the current one is no move, allowed only on a draft.
 * Throws order_not_found, invalid_status, invalid_parameter and the codes of pricing, submit and receive.
 */
export async function updateOrder(trx: Trx, tenant: Tenant, id: string, input: UpdateOrderBody, options: OrderingOptions): Promise<Order> {
  const order = await lockOrder(trx, tenant, id)
  // A move the order cannot make is invalid_status before anything about the fields that move needs.
  const moves = input.status !== undefined && !(input.status === 'draft' && order.status === 'draft')
  if (moves) checkTransition(order, input.status as OrderStatus)
  const { orderLines, receipt } = parseUpdate(input)
  if (input.notes !== undefined) {
    checkStillChangeable(order)
    await updateOrderRow(trx, id, { notes: input.notes })
  }
  if (receipt) {
    await receiveLocked(trx, tenant, order, receipt)
    return getOrder(trx, tenant, id)
  }
  if (orderLines) await replaceItems(trx, tenant, order, orderLines)
  if (moves) await moveTo(trx, tenant, order, input, options)
  return getOrder(trx, tenant, id)
}
