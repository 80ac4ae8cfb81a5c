import { sql } from 'kysely'
import type { Db, Executor, Tenant, Trx } from '../platform/db/database.js'
import { newId } from '../platform/ids.js'
import type { DispatchRow } from './orders.repository.js'
import type { DispatchStatus } from './ordering.tables.js'

/** NOTIFY channel that wakes the purchase-order worker when a dispatch is committed. */
export const PURCHASE_ORDER_CHANNEL = 'barstock_purchase_orders'

export async function insertDispatch(trx: Trx, tenant: Tenant, orderId: string, status: DispatchStatus): Promise<void> {
  await trx
    .insertInto('purchase_order_dispatches')
    .values({ id: newId('pod'), account_id: tenant.accountId, environment: tenant.environment, order_id: orderId, status })
    .execute()
  if (status === 'pending') await sql`SELECT pg_notify(${PURCHASE_ORDER_CHANNEL}, '')`.execute(trx)
}

export async function findDispatch(db: Executor, orderId: string): Promise<DispatchRow | undefined> {
  return db.selectFrom('purchase_order_dispatches').selectAll().where('order_id', '=', orderId).executeTakeFirst()
}

/** A cancelled order's purchase order is not sent any more (one already on the wire may still arrive). */
export async function cancelUnsentDispatch(trx: Trx, orderId: string): Promise<void> {
  await trx
    .updateTable('purchase_order_dispatches')
    .set({ status: 'cancelled', updated_at: new Date() })
    .where('order_id', '=', orderId)
    .where('status', 'in', ['pending', 'sending'])
    .execute()
}

/**
 * Claims the dispatch that is due first, if any: it becomes 'sending', counts an attempt, and its
 * next_attempt_at becomes a lease, after which another worker may claim it again (this one died).
 * SKIP LOCKED lets several workers claim side by side; the claim commits before anything is sent, so no
 * transaction (nor PGlite's only connection) is held while the SMTP server answers.
 */
export async function claimDueDispatch(db: Db, leaseMs: number): Promise<DispatchRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('purchase_order_dispatches')
      .select('id')
      .where('status', 'in', ['pending', 'sending'])
      .where('next_attempt_at', '<=', new Date())
      .orderBy('next_attempt_at')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst()
    if (!due) return undefined
    return trx
      .updateTable('purchase_order_dispatches')
      .set((eb) => ({
        status: 'sending',
        attempts: eb('attempts', '+', 1),
        next_attempt_at: new Date(Date.now() + leaseMs),
        updated_at: new Date(),
      }))
      .where('id', '=', due.id)
      .returningAll()
      .executeTakeFirstOrThrow()
  })
}

/** Records the outcome of a claimed attempt, unless the order was cancelled meanwhile. */
export async function finishDispatch(
  db: Db,
  id: string,
  outcome: { status: 'sent' } | { status: 'pending' | 'failed'; error: string; nextAttemptAt: Date },
): Promise<void> {
  const now = new Date()
  await db
    .updateTable('purchase_order_dispatches')
    .set(
      outcome.status === 'sent'
        ? { status: 'sent', sent_at: now, last_error: null, updated_at: now }
        : { status: outcome.status, last_error: outcome.error, next_attempt_at: outcome.nextAttemptAt, updated_at: now },
    )
    .where('id', '=', id)
    .where('status', '=', 'sending')
    .execute()
}

/** Everything a purchase-order e-mail shows, read for a claimed dispatch. */
export async function loadPurchaseOrder(db: Db, dispatch: DispatchRow) {
  const order = await db
    .selectFrom('orders')
    .innerJoin('distributors', 'distributors.id', 'orders.distributor_id')
    .leftJoin('locations', (join) =>
      join
        .onRef('locations.id', '=', 'orders.location_id')
        .onRef('locations.account_id', '=', 'orders.account_id')
        .onRef('locations.environment', '=', 'orders.environment'),
    )
    .select([
      'orders.id',
      'orders.confirmation_number',
      'orders.submitted_at',
      'orders.estimated_delivery',
      'orders.total_amount',
      'orders.notes',
      'orders.location_id',
      'locations.name as location_name',
      'distributors.name as distributor_name',
      'distributors.distributor_code',
      'distributors.contact_email',
    ])
    .where('orders.id', '=', dispatch.order_id)
    .where('orders.account_id', '=', dispatch.account_id)
    .where('orders.environment', '=', dispatch.environment)
    .executeTakeFirstOrThrow()
  const lines = await db
    .selectFrom('order_lines as line')
    .innerJoin('inventory_items as item', 'item.id', 'line.inventory_item_id')
    .select(['item.name', 'item.sku', 'line.quantity', 'line.unit', 'line.unit_price', 'line.total'])
    .where('line.order_id', '=', order.id)
    .orderBy('line.position')
    .execute()
  return { ...order, lines }
}

export type PurchaseOrder = Awaited<ReturnType<typeof loadPurchaseOrder>>
