import { randomBytes } from 'node:crypto'
import type { Tenant, Trx } from '../platform/db/database.js'
import { decimal, moneyOut } from '../platform/decimal.js'
import { enqueue } from '../platform/outbox.js'
import { DAY_MS } from '../platform/zoned-time.js'
import { getDistributorRow } from './distributors.service.js'
import { checkTransition } from './order-status.js'
import { type OrderRow, updateOrderRow } from './orders.repository.js'
import { orderingErrors } from './ordering.errors.js'
import { insertDispatch } from './purchase-orders.repository.js'

/** How the service was configured: whether submitted purchase orders are e-mailed. */
export interface OrderingOptions {
  purchaseOrderMail: boolean
}

/** A confirmation number a distributor can quote: date and 40 random bits in Crockford base 32. */
function newConfirmationNumber(at: Date): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
  const code = [...randomBytes(8)].map((byte) => alphabet[byte % 32]).join('')
  return `PO-${at.toISOString().slice(0, 10).replaceAll('-', '')}-${code}`
}

/** Submits a locked draft (submitOrder says what that records). */
export async function submitLocked(trx: Trx, tenant: Tenant, order: OrderRow, options: OrderingOptions): Promise<void> {
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
