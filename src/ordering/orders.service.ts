import { parseDateRange, parsePastTime } from '../platform/http/date-filter.js'
import { randomBytes } from 'node:crypto'
import { getLocation } from '../locations/index.js'
import { type DeliveredLine, inventoryErrors, parseQuantity, receiveDelivery } from '../inventory/index.js'
import { type Executor, type Tenant, type Trx } from '../platform/db/database.js'
import { type Decimal, decimal, MONEY_DECIMALS, moneyOut, toDbNumeric, UNIT_COST_DECIMALS } from '../platform/decimal.js'
import { invalidParameter } from '../platform/errors.js'
import type { PageRequest } from '../platform/http/pagination.js'
import { newId } from '../platform/ids.js'
import { enqueue } from '../platform/outbox.js'
import { getDistributorRow } from './distributors.service.js'
import { type PricedLine, priceLines } from './order-pricing.js'
import {
  deleteOrderRow,
  findOrderRow,
  insertOrderRow,
  listOrderLines,
  listOrderRows,
  lockOrderRow,
  type OrderLineRow,
  type OrderRow,
  replaceOrderLines,
  rowToOrder,
  rowToOrderSummary,
  setLineReceipt,
  updateOrderRow,
} from './orders.repository.js'
import { orderingErrors } from './ordering.errors.js'
import type { CreateOrderBody, ListOrdersQuery, Order, OrderDeleted, OrderLineInput, ReceiptLineInput, ReceiveOrderBody, UpdateOrderBody } from './ordering.schemas.js'
import type { OrderStatus } from './ordering.tables.js'
import { cancelUnsentDispatch, findDispatch, insertDispatch } from './purchase-orders.repository.js'
import { DAY_MS } from '../platform/zoned-time.js'

/** How the service was configured: whether submitted purchase orders are e-mailed. */
export interface OrderingOptions {
  purchaseOrderMail: boolean
}

/** The moves of DECISIONS.md; delivered and cancelled are final. */
const TRANSITIONS: Record<OrderStatus, readonly OrderStatus[]> = {
  draft: ['submitted', 'cancelled'],
  submitted: ['processing', 'cancelled'],
  processing: ['shipped', 'cancelled'],
  shipped: ['delivered'],
  delivered: [],
  cancelled: [],
}

function checkTransition(order: OrderRow, to: OrderStatus): void {
  const allowed = TRANSITIONS[order.status]
  if (!allowed.includes(to)) {
    const next = allowed.length > 0 ? `it can become ${allowed.join(' or ')}` : 'it can no longer change'
    throw orderingErrors.invalidStatus(`Order ${order.id} is ${order.status}; it cannot become ${to} (${next})`, {
      status: order.status,
      requested: to,
      allowed,
    })
  }
}

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

function lineRows(orderId: string, lines: PricedLine[]) {
  return lines.map((line, position) => ({
    order_id: orderId,
    position,
    inventory_item_id: line.itemId,
    quantity: toDbNumeric(line.quantity),
    unit: line.unit,
    units_per_ordered_unit: toDbNumeric(line.unitsPerOrderedUnit),
    unit_price: toDbNumeric(line.unitPrice, UNIT_COST_DECIMALS),
    total: toDbNumeric(line.total, MONEY_DECIMALS),
  }))
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

/** Re-prices a locked draft's lines; items change only in draft (invalid_status). */
async function replaceItems(trx: Trx, tenant: Tenant, order: OrderRow, items: OrderLineInput[]): Promise<void> {
  if (order.status !== 'draft') {
    throw orderingErrors.invalidStatus(`Order ${order.id} is ${order.status}; items change only in draft`, { status: order.status })
  }
  const distributor = await getDistributorRow(trx, tenant, order.distributor_id)
  const { lines, total } = await priceLines(trx, tenant, distributor, order.location_id, items)
  await replaceOrderLines(trx, order.id, lineRows(order.id, lines))
  order.total_amount = toDbNumeric(total, MONEY_DECIMALS)
  await updateOrderRow(trx, order.id, { total_amount: order.total_amount })
}

/** A confirmation number a distributor can quote: date and 40 random bits in Crockford base 32. */
function newConfirmationNumber(at: Date): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
  const code = [...randomBytes(8)].map((byte) => alphabet[byte % 32]).join('')
  return `PO-${at.toISOString().slice(0, 10).replaceAll('-', '')}-${code}`
}

async function submitLocked(trx: Trx, tenant: Tenant, order: OrderRow, options: OrderingOptions): Promise<void> {
  checkTransition(order, 'submitted')
  const distributor = await getDistributorRow(trx, tenant, order.distributor_id)
  const total = decimal(order.total_amount)
  const minimum = decimal(distributor.min_order_amount)
  if (total.lt(minimum)) {
    throw orderingErrors.belowMinOrder([moneyOut(total), moneyOut(minimum)], {
      total_amount: moneyOut(total),
      min_order_amount: moneyOut(minimum),
    })
  }
  const submittedAt = new Date()
  const estimatedDelivery = new Date(submittedAt.getTime() + distributor.lead_time_days * DAY_MS)
  const confirmationNumber = newConfirmationNumber(submittedAt)
  await updateOrderRow(trx, order.id, {
    status: 'submitted',
    submitted_at: submittedAt,
    estimated_delivery: estimatedDelivery,
    confirmation_number: confirmationNumber,
  })
  await insertDispatch(trx, tenant, order.id, options.purchaseOrderMail ? 'pending' : 'skipped')
  await enqueue(trx, tenant, 'order.submitted', {
    order_id: order.id,
    distributor_name: distributor.name,
    confirmation_number: confirmationNumber,
    estimated_delivery: estimatedDelivery.toISOString(),
  })
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

async function cancelLocked(trx: Trx, order: OrderRow): Promise<void> {
  checkTransition(order, 'cancelled')
  await updateOrderRow(trx, order.id, { status: 'cancelled', cancelled_at: new Date() })
  await cancelUnsentDispatch(trx, order.id)
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

/** What arrived of an order line: in the unit ordered, and the damaged part of it in the item's unit. */
interface LineReceipt {
  received: Decimal
  damagedUnits: Decimal
}

const NOTHING_RECEIVED: LineReceipt = { received: decimal(0), damagedUnits: decimal(0) }

/**
 * A received line's damage in the item's unit, from units_damaged or from quantity_damaged (in the unit
 * ordered), and the field it came from. Throws invalid_parameter when both are given, invalid_quantity.
 */
function parseDamage(line: ReceiptLineInput, orderLine: OrderLineRow, field: string): { units: Decimal; field: string; value: number } {
  if (line.units_damaged === undefined) {
    const value = line.quantity_damaged ?? 0
    const units = parseQuantity(value, `${field}.quantity_damaged`).times(orderLine.units_per_ordered_unit)
    return { units, field: `${field}.quantity_damaged`, value }
  }
  if (line.quantity_damaged !== undefined) {
    throw invalidParameter(`${field}.units_damaged`, line.units_damaged, 'give quantity_damaged (in the unit ordered) or units_damaged (in the item’s unit), not both')
  }
  return { units: parseQuantity(line.units_damaged, `${field}.units_damaged`), field: `${field}.units_damaged`, value: line.units_damaged }
}

function parseReceipts(items: ReceiptLineInput[], orderLines: Map<string, OrderLineRow>): Map<string, LineReceipt> {
  const receipts = new Map<string, LineReceipt>()
  for (const [index, line] of items.entries()) {
    const field = `items[${index}]`
    const orderLine = orderLines.get(line.inventory_item_id)
    if (!orderLine) {
      throw invalidParameter(`${field}.inventory_item_id`, line.inventory_item_id, `item ${line.inventory_item_id} is not on this order`)
    }
    if (receipts.has(line.inventory_item_id)) {
      throw invalidParameter(`${field}.inventory_item_id`, line.inventory_item_id, `item ${line.inventory_item_id} is received twice`)
    }
    const received = parseQuantity(line.quantity_received, `${field}.quantity_received`)
    const damage = parseDamage(line, orderLine, field)
    if (damage.units.gt(received.times(orderLine.units_per_ordered_unit))) {
      throw inventoryErrors.invalidQuantity(`${damage.field} exceeds quantity_received`, { parameter: damage.field, value: damage.value })
    }
    receipts.set(line.inventory_item_id, { received, damagedUnits: damage.units })
  }
  return receipts
}

/** What a received line brings into stock: the good units, at the line's price per item unit. */
function deliveredLine(line: OrderLineRow, receipt: LineReceipt): DeliveredLine {
  return {
    itemId: line.inventory_item_id,
    lineNo: line.position,
    units: receipt.received.times(line.units_per_ordered_unit).minus(receipt.damagedUnits),
    unitCost: decimal(line.unit_price).div(line.units_per_ordered_unit),
  }
}

async function receiveLocked(trx: Trx, tenant: Tenant, order: OrderRow, input: ReceiveOrderBody): Promise<void> {
  checkTransition(order, 'delivered')
  const requestedAt = input.received_at === undefined ? undefined : parsePastTime(input.received_at, 'received_at')
  const lines = await listOrderLines(trx, order.id)
  const receipts = parseReceipts(input.items, new Map(lines.map((line) => [line.inventory_item_id, line])))
  const received = lines.map((line) => ({ line, receipt: receipts.get(line.inventory_item_id) ?? NOTHING_RECEIVED }))
  const delivered = received.map(({ line, receipt }) => deliveredLine(line, receipt)).filter((line) => line.units.gt(0))
  const deliveredAt = await receiveDelivery(trx, tenant, { referenceId: order.id, actor: input.received_by, receivedAt: requestedAt }, delivered)
  for (const { line, receipt } of received) {
    await setLineReceipt(trx, order.id, line.inventory_item_id, {
      quantity_received: toDbNumeric(receipt.received),
      quantity_damaged: toDbNumeric(receipt.damagedUnits.div(line.units_per_ordered_unit)),
      units_damaged: toDbNumeric(receipt.damagedUnits),
    })
  }
  await updateOrderRow(trx, order.id, { status: 'delivered', delivered_at: deliveredAt, received_by: input.received_by })
  const counted = [...receipts.values()]
  await enqueue(trx, tenant, 'order.delivered', {
    order_id: order.id,
    delivered_at: deliveredAt.toISOString(),
    received_by: input.received_by,
    items_received: counted.filter((receipt) => receipt.received.gt(0)).length,
    items_damaged: counted.filter((receipt) => receipt.damagedUnits.gt(0)).length,
  })
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

async function shipLocked(trx: Trx, tenant: Tenant, order: OrderRow, input: UpdateOrderBody): Promise<void> {
  checkTransition(order, 'shipped')
  if (!input.tracking_number) throw invalidParameter('tracking_number', null, 'tracking_number is required to mark an order shipped')
  if (!input.carrier) throw invalidParameter('carrier', null, 'carrier is required to mark an order shipped')
  const estimatedDelivery = input.estimated_delivery ? new Date(input.estimated_delivery) : order.estimated_delivery
  await updateOrderRow(trx, order.id, {
    status: 'shipped',
    shipped_at: new Date(),
    tracking_number: input.tracking_number,
    carrier: input.carrier,
    estimated_delivery: estimatedDelivery,
  })
  await enqueue(trx, tenant, 'order.shipped', {
    order_id: order.id,
    tracking_number: input.tracking_number,
    carrier: input.carrier,
    estimated_delivery: estimatedDelivery ? estimatedDelivery.toISOString() : null,
  })
}

/** Fields that only mean something with one target status. */
const FIELDS_OF_STATUS: Record<string, OrderStatus> = {
  tracking_number: 'shipped',
  carrier: 'shipped',
  estimated_delivery: 'shipped',
  received_by: 'delivered',
  received_at: 'delivered',
}

function checkStatusFields(input: UpdateOrderBody): void {
  for (const [field, status] of Object.entries(FIELDS_OF_STATUS)) {
    const value = input[field as keyof UpdateOrderBody]
    if (value !== undefined && input.status !== status) {
      throw invalidParameter(field, value, `${field} is only accepted with status ${status}`)
    }
  }
}

/** PUT items are order lines, or with status delivered received lines; each must have its own fields. */
function splitItems(input: UpdateOrderBody): { orderLines?: OrderLineInput[]; receipt?: ReceiveOrderBody } {
  if (input.status === 'delivered') {
    if (!input.received_by) throw invalidParameter('received_by', null, 'received_by is required to receive an order')
    if (!input.items) throw invalidParameter('items', null, 'items with quantity_received are required to receive an order')
    const receiptLines = input.items.map((line, index) => {
      if (line.quantity_received === undefined || line.quantity !== undefined || line.unit !== undefined) {
        throw invalidParameter(`items[${index}]`, line, 'a received line has inventory_item_id, quantity_received and quantity_damaged or units_damaged')
      }
      const { inventory_item_id, quantity_received, quantity_damaged, units_damaged } = line
      return { inventory_item_id, quantity_received, quantity_damaged, units_damaged }
    })
    return { receipt: { received_by: input.received_by, received_at: input.received_at, items: receiptLines } }
  }
  if (!input.items) return {}
  const orderLines = input.items.map((line, index) => {
    if (line.quantity === undefined || line.unit === undefined || line.quantity_received !== undefined || line.quantity_damaged !== undefined || line.units_damaged !== undefined) {
      throw invalidParameter(`items[${index}]`, line, 'an order line has inventory_item_id, quantity and unit')
    }
    return { inventory_item_id: line.inventory_item_id, quantity: line.quantity, unit: line.unit }
  })
  return { orderLines }
}

async function moveTo(trx: Trx, tenant: Tenant, order: OrderRow, input: UpdateOrderBody, options: OrderingOptions): Promise<void> {
  const status = input.status as OrderStatus
  switch (status) {
    case 'submitted':
      return submitLocked(trx, tenant, order, options)
    case 'shipped':
      return shipLocked(trx, tenant, order, input)
    case 'cancelled':
      return cancelLocked(trx, order)
    default:
      checkTransition(order, status)
      await updateOrderRow(trx, order.id, { status })
  }
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
  checkStatusFields(input)
  const { orderLines, receipt } = splitItems(input)
  if (input.notes !== undefined) {
    if (TRANSITIONS[order.status].length === 0) {
      throw orderingErrors.invalidStatus(`Order ${id} is ${order.status}; it can no longer change`, { status: order.status })
    }
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
