import { type Insertable, type RawBuilder, type Selectable, sql } from 'kysely'
import './operations.tables.js'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { pageWithTotal, type RowPage } from '../platform/db/page.js'
import type { InventoryTransferTable, InventoryWasteTable, OperationLineKind, StockOperationLineTable } from './operations.tables.js'

/** SQL of transfers and waste entries (their headers and their lines in stock_operation_lines) and of history deliveries' lines. */

/** The line kinds that add to their item's stock; the others (transfer_out, waste) take from it. */
const KINDS_ADDING_STOCK: readonly OperationLineKind[] = ['transfer_in', 'delivery']

/** Whether a line of this kind adds to its item's stock (KINDS_ADDING_STOCK). */
export function addsStock(kind: OperationLineKind): boolean {
  return KINDS_ADDING_STOCK.includes(kind)
}

/** The SQL of a line's quantity signed as it moved its item's stock (`alias` names the stock_operation_lines row). */
export function signedLineQuantity(alias: string): RawBuilder<string> {
  const adding = sql.join(KINDS_ADDING_STOCK.map((kind) => sql.lit(kind)))
  return sql<string>`CASE WHEN ${sql.ref(`${alias}.kind`)} IN (${adding}) THEN ${sql.ref(`${alias}.quantity`)} ELSE -${sql.ref(`${alias}.quantity`)} END`
}

export type TransferRow = Selectable<InventoryTransferTable>
export type WasteRow = Selectable<InventoryWasteTable>
export type OperationLineRow = Selectable<StockOperationLineTable> & { item_name: string }

/** Filters of a list of transfers or waste entries; `before` is exclusive. */
export interface OperationFilters {
  location?: string
  from?: Date
  before?: Date
}

export async function insertTransfer(trx: Trx, row: Insertable<InventoryTransferTable>): Promise<TransferRow> {
  return trx.insertInto('inventory_transfers').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function insertWaste(trx: Trx, row: Insertable<InventoryWasteTable>): Promise<WasteRow> {
  return trx.insertInto('inventory_waste').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function insertOperationLines(trx: Trx, rows: Insertable<StockOperationLineTable>[]): Promise<void> {
  if (rows.length > 0) await trx.insertInto('stock_operation_lines').values(rows).execute()
}

/** The lines of these operations with their items' names, by operation, in line order (a transfer line's out before its in). */
export async function operationLines(db: Executor, operationIds: string[]): Promise<Map<string, OperationLineRow[]>> {
  const byOperation = new Map<string, OperationLineRow[]>(operationIds.map((id) => [id, []]))
  if (operationIds.length === 0) return byOperation
  const rows = await db
    .selectFrom('stock_operation_lines as l')
    .innerJoin('inventory_items as i', 'i.id', 'l.item_id')
    .selectAll('l')
    .select('i.name as item_name')
    .where('l.operation_id', 'in', operationIds)
    .orderBy('l.operation_id')
    .orderBy('l.line_no')
    .orderBy('l.kind', 'desc')
    .execute()
  for (const row of rows) byOperation.get(row.operation_id)?.push(row)
  return byOperation
}

function transfersOf(db: Executor, tenant: Tenant) {
  return db.selectFrom('inventory_transfers').where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment)
}

function wasteOf(db: Executor, tenant: Tenant) {
  return db.selectFrom('inventory_waste').where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment)
}

export async function findTransferRow(db: Executor, tenant: Tenant, id: string, options: { lock?: boolean } = {}): Promise<TransferRow | undefined> {
  const select = transfersOf(db, tenant).selectAll().where('id', '=', id)
  return (options.lock ? select.forUpdate() : select).executeTakeFirst()
}

export async function findWasteRow(db: Executor, tenant: Tenant, id: string, options: { lock?: boolean } = {}): Promise<WasteRow | undefined> {
  const select = wasteOf(db, tenant).selectAll().where('id', '=', id)
  return (options.lock ? select.forUpdate() : select).executeTakeFirst()
}

/** A page of transfers, newest first: out of or into `location`, moving `itemId` on either side. */
export async function listTransferRows(db: Executor, tenant: Tenant, filters: OperationFilters & { itemId?: string }, page: RowPage) {
  let transfers = transfersOf(db, tenant)
  if (filters.location !== undefined) {
    const location = filters.location
    transfers = transfers.where((eb) => eb.or([eb('from_location', '=', location), eb('to_location', '=', location)]))
  }
  if (filters.from) transfers = transfers.where('transferred_at', '>=', filters.from)
  if (filters.before) transfers = transfers.where('transferred_at', '<', filters.before)
  if (filters.itemId !== undefined) {
    transfers = transfers.where(sql<boolean>`EXISTS (SELECT 1 FROM stock_operation_lines l WHERE l.operation_id = inventory_transfers.id AND l.item_id = ${filters.itemId})`)
  }
  return pageWithTotal(transfers.selectAll().orderBy('transferred_at', 'desc').orderBy('id', 'desc'), transfers, page)
}

/** A page of waste entries, newest first: at `location`, with a line of `reason`. */
export async function listWasteRows(db: Executor, tenant: Tenant, filters: OperationFilters & { reason?: string }, page: RowPage) {
  let entries = wasteOf(db, tenant)
  if (filters.location !== undefined) entries = entries.where('location_id', '=', filters.location)
  if (filters.from) entries = entries.where('occurred_at', '>=', filters.from)
  if (filters.before) entries = entries.where('occurred_at', '<', filters.before)
  if (filters.reason !== undefined) {
    entries = entries.where(sql<boolean>`EXISTS (SELECT 1 FROM stock_operation_lines l WHERE l.operation_id = inventory_waste.id AND l.reason = ${filters.reason})`)
  }
  return pageWithTotal(entries.selectAll().orderBy('occurred_at', 'desc').orderBy('id', 'desc'), entries, page)
}

/** Marks an operation and its lines voided (the lines leave analytics' rollups by their trigger). */
export async function markVoided(trx: Trx, table: 'inventory_transfers' | 'inventory_waste', operationId: string, at: Date): Promise<void> {
  await trx.updateTable(table).set({ voided_at: at }).where('id', '=', operationId).execute()
  await trx.updateTable('stock_operation_lines').set({ voided_at: at }).where('operation_id', '=', operationId).execute()
}
