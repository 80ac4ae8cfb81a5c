import { sql } from 'kysely'
import type { Db, Executor, Tenant, Trx } from '../platform/db/database.js'
import { newId } from '../platform/ids.js'
import { type ClaimedJob, claimDueJobs, defineJobQueue, settleJob, wakeJobWorkers } from '../platform/jobs.js'
import type { DispatchRow } from './orders.repository.js'
import type { DispatchStatus } from './ordering.tables.js'

/**
 * Purchase-order e-mails as a job queue: a pending or sending dispatch is work; a claim marks it
 * 'sending' (the API shows it), and one whose worker died is sent again once the lease runs out.
 */
export const PURCHASE_ORDER_QUEUE = defineJobQueue<DispatchRow>({
  name: 'purchase-orders',
  table: 'purchase_order_dispatches',
  key: ['id'],
  channel: 'barstock_purchase_orders',
  ready: sql`job.status IN ('pending', 'sending')`,
  onClaim: sql`status = 'sending', updated_at = now()`,
})

export async function insertDispatch(trx: Trx, tenant: Tenant, orderId: string, status: DispatchStatus): Promise<void> {
  await trx
    .insertInto('purchase_order_dispatches')
    .values({ id: newId('pod'), account_id: tenant.accountId, environment: tenant.environment, order_id: orderId, status })
    .execute()
  if (status === 'pending') await wakeJobWorkers(trx, PURCHASE_ORDER_QUEUE)
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
 * Claims the dispatch that is due first, if any, for `leaseMs`. The claim commits before anything is
 * sent, so no transaction (nor PGlite's only connection) is held while the SMTP server answers.
 */
export async function claimDueDispatch(db: Db, leaseMs: number): Promise<ClaimedJob<DispatchRow> | undefined> {
  const [dispatch] = await claimDueJobs(db, PURCHASE_ORDER_QUEUE, { limit: 1, leaseMs })
  return dispatch
}

/** Records the outcome of a claimed attempt, unless the order was cancelled or another worker took it over meanwhile. */
export async function finishDispatch(
  db: Db,
  dispatch: DispatchRow,
  outcome: { status: 'sent' } | { status: 'pending' | 'failed'; error: string; nextAttemptAt: Date },
): Promise<void> {
  const now = new Date()
  await settleJob(
    db,
    PURCHASE_ORDER_QUEUE,
    dispatch,
    outcome.status === 'sent'
      ? { status: 'sent', sent_at: now, last_error: null, updated_at: now }
      : { status: outcome.status, last_error: outcome.error, next_attempt_at: outcome.nextAttemptAt, updated_at: now },
    sql`job.status = 'sending'`,
  )
}

/** Everything a purchase-order e-mail shows, read for a claimed dispatch. */
export async function loadPurchaseOrder(db: Db, dispatch: DispatchRow) {
  const order = await db
    .selectFrom('orders')
    .innerJoin('distributors', 'distributors.id', 'orders.distributor_id')
    .leftJoin('locations', (join) =>
      join.onRef('locations.id', '=', 'orders.location_id').onRef('locations.account_id', '=', 'orders.account_id').onRef('locations.environment', '=', 'orders.environment'),
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
