import { type Insertable, type Selectable, sql, type Updateable } from 'kysely'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { moneyOut, quantityOut, unitCostOut } from '../platform/decimal.js'
import type { PageRequest } from '../platform/http/pagination.js'
import type { Order, OrderItem, OrderSummary } from './ordering.schemas.js'
import type { OrderLineTable, OrderStatus, OrderTable, PurchaseOrderDispatchTable } from './ordering.tables.js'
import { pageWithTotal } from '../platform/db/page.js'

export type OrderRow = Selectable<OrderTable> & { distributor_name: string }
export type OrderLineRow = Selectable<OrderLineTable> & { name: string }
export type DispatchRow = Selectable<PurchaseOrderDispatchTable>

const iso = (value: Date | null) => (value === null ? null : value.toISOString())
const quantityOrNull = (value: string | null) => (value === null ? null : quantityOut(value))

export function rowToOrderItem(line: OrderLineRow): OrderItem {
  return {
    inventory_item_id: line.inventory_item_id,
    name: line.name,
    quantity: quantityOut(line.quantity),
    unit: line.unit,
    unit_price: unitCostOut(line.unit_price),
    total: moneyOut(line.total),
    quantity_received: quantityOrNull(line.quantity_received),
    quantity_damaged: quantityOrNull(line.quantity_damaged),
    units_damaged: quantityOrNull(line.units_damaged),
  }
}

export function rowToOrderSummary(row: OrderRow): OrderSummary {
  return {
    id: row.id,
    distributor_id: row.distributor_id,
    distributor_name: row.distributor_name,
    status: row.status,
    location: row.location_id,
    total_amount: moneyOut(row.total_amount),
    estimated_delivery: iso(row.estimated_delivery),
    created_at: row.created_at.toISOString(),
  }
}

export function rowToOrder(row: OrderRow, lines: OrderLineRow[], dispatch: DispatchRow | undefined): Order {
  return {
    ...rowToOrderSummary(row),
    tracking_number: row.tracking_number,
    carrier: row.carrier,
    items: lines.map(rowToOrderItem),
    notes: row.notes,
    updated_at: row.updated_at.toISOString(),
    submitted_at: iso(row.submitted_at),
    confirmation_number: row.confirmation_number,
    delivered_at: iso(row.delivered_at),
    received_by: row.received_by,
    purchase_order: dispatch ? { status: dispatch.status, attempts: dispatch.attempts, last_error: dispatch.last_error, sent_at: iso(dispatch.sent_at) } : null,
  }
}

function tenantOrders(db: Executor, tenant: Tenant) {
  return db
    .selectFrom('orders')
    .innerJoin('distributors', 'distributors.id', 'orders.distributor_id')
    .where('orders.account_id', '=', tenant.accountId)
    .where('orders.environment', '=', tenant.environment)
}

export async function findOrderRow(db: Executor, tenant: Tenant, id: string): Promise<OrderRow | undefined> {
  return tenantOrders(db, tenant).selectAll('orders').select('distributors.name as distributor_name').where('orders.id', '=', id).executeTakeFirst()
}

/** Locks the order row: every transition of one order runs after the previous one committed. */
export async function lockOrderRow(trx: Trx, tenant: Tenant, id: string): Promise<OrderRow | undefined> {
  return tenantOrders(trx, tenant).selectAll('orders').select('distributors.name as distributor_name').where('orders.id', '=', id).forUpdate('orders').executeTakeFirst()
}

export interface OrderFilters {
  status?: OrderStatus
  distributorId?: string
  createdFrom?: Date
  createdBefore?: Date
}

export async function listOrderRows(db: Executor, tenant: Tenant, filters: OrderFilters, page: PageRequest) {
  let query = tenantOrders(db, tenant)
  if (filters.status) query = query.where('orders.status', '=', filters.status)
  if (filters.distributorId) query = query.where('orders.distributor_id', '=', filters.distributorId)
  if (filters.createdFrom) query = query.where('orders.created_at', '>=', filters.createdFrom)
  if (filters.createdBefore) query = query.where('orders.created_at', '<', filters.createdBefore)
  const rows = query.selectAll('orders').select('distributors.name as distributor_name').orderBy('orders.created_at', 'desc').orderBy('orders.id', 'desc')
  return pageWithTotal(rows, query, page)
}

export async function listOrderLines(db: Executor, orderId: string): Promise<OrderLineRow[]> {
  return db
    .selectFrom('order_lines as line')
    .innerJoin('inventory_items as item', 'item.id', 'line.inventory_item_id')
    .selectAll('line')
    .select('item.name')
    .where('line.order_id', '=', orderId)
    .orderBy('line.position')
    .execute()
}

export async function insertOrderRow(trx: Trx, row: Insertable<OrderTable>) {
  await trx.insertInto('orders').values(row).execute()
}

export async function updateOrderRow(trx: Trx, id: string, fields: Updateable<OrderTable>) {
  await trx
    .updateTable('orders')
    .set({ ...fields, updated_at: new Date() })
    .where('id', '=', id)
    .execute()
}

export async function deleteOrderRow(trx: Trx, id: string) {
  await trx.deleteFrom('orders').where('id', '=', id).execute()
}

/** Replaces an order's lines (the order is locked by the caller). */
export async function replaceOrderLines(trx: Trx, orderId: string, lines: Insertable<OrderLineTable>[]) {
  await trx.deleteFrom('order_lines').where('order_id', '=', orderId).execute()
  if (lines.length > 0) await trx.insertInto('order_lines').values(lines).execute()
}

export async function setLineReceipt(
  trx: Trx,
  orderId: string,
  itemId: string,
  receipt: Pick<Updateable<OrderLineTable>, 'quantity_received' | 'quantity_damaged' | 'units_damaged'>,
) {
  await trx.updateTable('order_lines').set(receipt).where('order_id', '=', orderId).where('inventory_item_id', '=', itemId).execute()
}

/** Per item, the item units on order: lines of the tenant's submitted, processing and shipped orders. */
export async function quantitiesOnOrder(db: Executor, tenant: Tenant, itemIds: string[]): Promise<Map<string, string>> {
  if (itemIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('order_lines as line')
    .innerJoin('orders', 'orders.id', 'line.order_id')
    .select(['line.inventory_item_id', sql<string>`sum(line.quantity * line.units_per_ordered_unit)`.as('units')])
    .where('orders.account_id', '=', tenant.accountId)
    .where('orders.environment', '=', tenant.environment)
    .where('orders.status', 'in', ['submitted', 'processing', 'shipped'])
    .where('line.inventory_item_id', 'in', itemIds)
    .groupBy('line.inventory_item_id')
    .execute()
  return new Map(rows.map((row) => [row.inventory_item_id, String(row.units)]))
}
