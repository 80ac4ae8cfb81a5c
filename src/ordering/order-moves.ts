import type { Tenant, Trx } from '../platform/db/database.js'
import { invalidParameter } from '../platform/errors.js'
import { enqueue } from '../platform/outbox.js'
import { checkTransition } from './order-status.js'
import { type OrderingOptions, submitLocked } from './order-submission.js'
import { type OrderRow, updateOrderRow } from './orders.repository.js'
import type { UpdateOrderBody } from './ordering.schemas.js'
import type { OrderStatus } from './ordering.tables.js'
import { cancelUnsentDispatch } from './purchase-orders.repository.js'

/** Cancels a locked order; a purchase order not e-mailed yet is not sent. */
export async function cancelLocked(trx: Trx, order: OrderRow): Promise<void> {
  checkTransition(order, 'cancelled')
  await updateOrderRow(trx, order.id, { status: 'cancelled', cancelled_at: new Date() })
  await cancelUnsentDispatch(trx, order.id)
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

/** Moves a locked order to the status a PUT asks (delivered is received instead: order-receipt.ts). */
export async function moveTo(trx: Trx, tenant: Tenant, order: OrderRow, input: UpdateOrderBody, options: OrderingOptions): Promise<void> {
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
