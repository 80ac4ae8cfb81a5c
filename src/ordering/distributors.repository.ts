import type { Selectable, Updateable } from 'kysely'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { moneyOut, quantityOut, unitCostOut } from '../platform/decimal.js'
import type { PageRequest } from '../platform/http/pagination.js'
import type { CatalogEntry, Distributor, DistributorSummary } from './ordering.schemas.js'
import type { DistributorCatalogEntryTable, DistributorTable } from './ordering.tables.js'
import { pageWithTotal } from '../platform/db/page.js'

export type DistributorRow = Selectable<DistributorTable>
export type CatalogRow = Selectable<DistributorCatalogEntryTable>

export function rowToDistributor(row: DistributorRow): Distributor {
  return {
    id: row.id,
    name: row.name,
    distributor_code: row.distributor_code,
    region: row.region,
    contact_email: row.contact_email,
    min_order_amount: moneyOut(row.min_order_amount),
    lead_time_days: row.lead_time_days,
    supported_categories: row.supported_categories,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

export function rowToDistributorSummary(row: DistributorRow): DistributorSummary {
  return {
    id: row.id,
    name: row.name,
    region: row.region,
    supported_categories: row.supported_categories,
    min_order_amount: moneyOut(row.min_order_amount),
    lead_time_days: row.lead_time_days,
  }
}

function liveDistributors(db: Executor, tenant: Tenant) {
  return db.selectFrom('distributors').where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment).where('deleted_at', 'is', null)
}

export async function findDistributorRow(db: Executor, tenant: Tenant, id: string): Promise<DistributorRow | undefined> {
  return liveDistributors(db, tenant).selectAll().where('id', '=', id).executeTakeFirst()
}

/** Locks a live distributor row (catalog replacement and deletion serialise on it). */
export async function lockDistributorRow(trx: Trx, tenant: Tenant, id: string): Promise<DistributorRow | undefined> {
  return liveDistributors(trx, tenant).selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
}

export async function listDistributorRows(db: Executor, tenant: Tenant, page: PageRequest) {
  return pageWithTotal(liveDistributors(db, tenant).selectAll().orderBy('name').orderBy('id'), liveDistributors(db, tenant), page)
}

export async function insertDistributorRow(trx: Trx, row: Omit<DistributorRow, 'created_at' | 'updated_at' | 'deleted_at'>) {
  return trx.insertInto('distributors').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function updateDistributorRow(trx: Trx, id: string, fields: Updateable<DistributorTable>) {
  return trx
    .updateTable('distributors')
    .set({ ...fields, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

// ---- Catalog ----

type CatalogRowWithName = CatalogRow & { name: string }

export function rowToCatalogEntry(row: CatalogRowWithName): CatalogEntry {
  return {
    inventory_item_id: row.inventory_item_id,
    name: row.name,
    unit: row.unit,
    unit_price: unitCostOut(row.unit_price),
    available_quantity: row.available_quantity === null ? null : quantityOut(row.available_quantity),
  }
}

/** Catalog rows of live items (a deleted item drops out of the catalog). */
function liveCatalog(db: Executor, distributorId: string) {
  return db
    .selectFrom('distributor_catalog_entries as entry')
    .innerJoin('inventory_items as item', 'item.id', 'entry.inventory_item_id')
    .where('entry.distributor_id', '=', distributorId)
    .where('item.deleted_at', 'is', null)
}

function catalogByName(db: Executor, distributorId: string) {
  return liveCatalog(db, distributorId).selectAll('entry').select('item.name').orderBy('item.name').orderBy('entry.unit')
}

/** A page of the distributor's catalog by item name, and how many entries it has. */
export async function listCatalogRows(db: Executor, distributorId: string, page: PageRequest) {
  return pageWithTotal(catalogByName(db, distributorId), liveCatalog(db, distributorId), page)
}

/** The distributor's whole catalog by item name. */
export async function allCatalogRows(db: Executor, distributorId: string) {
  return catalogByName(db, distributorId).execute()
}

/** The distributor's catalog rows for these items (all units), and whether it has a catalog at all. */
export async function catalogFor(db: Executor, distributorId: string, itemIds: string[]) {
  const [rows, any] = await Promise.all([
    itemIds.length === 0
      ? Promise.resolve([] as CatalogRow[])
      : db.selectFrom('distributor_catalog_entries').selectAll().where('distributor_id', '=', distributorId).where('inventory_item_id', 'in', itemIds).execute(),
    liveCatalog(db, distributorId).select('entry.distributor_id').limit(1).executeTakeFirst(),
  ])
  return { rows, hasCatalog: any !== undefined }
}

export async function replaceCatalogRows(trx: Trx, distributorId: string, rows: CatalogRow[]): Promise<void> {
  await trx.deleteFrom('distributor_catalog_entries').where('distributor_id', '=', distributorId).execute()
  if (rows.length > 0) await trx.insertInto('distributor_catalog_entries').values(rows).execute()
}
