import { sql } from 'kysely'
import type { Executor, Tenant } from '../platform/db/database.js'
import { liveItems } from './inventory.repository.js'

/** What other rooms read of items (inventory's front door publishes these). */

/**
 * An inventory item as other rooms read it (mappings, recipes, depletion, costing, categories): what it is,
 * where it is stocked, the unit its stock is kept in and what a unit costs. Inventory's own row stays
 * inside: a column renamed or added there changes this only where the selection below says so.
 */
export interface StockItem {
  id: string
  name: string
  category: string
  /** The location it is stocked at. */
  location: string
  /** The unit its stock is counted in. */
  unit: string
  size_ml: number | null
  /** What one `unit` costs now, a decimal string. */
  cost_per_unit: string
  /** Deleted since (only with includeDeleted): kept for the ledger and past orders, gone from every list. */
  deleted: boolean
}

function stockItems(db: Executor, tenant: Tenant) {
  return db
    .selectFrom('inventory_items')
    .select(['id', 'name', 'category', 'location_id as location', 'unit', 'size_ml', 'cost_per_unit'])
    .select((eb) => eb('deleted_at', 'is not', null).$castTo<boolean>().as('deleted'))
    .where('account_id', '=', tenant.accountId)
    .where('environment', '=', tenant.environment)
}

/** A live item, or undefined when there is none. */
export async function findStockItem(db: Executor, tenant: Tenant, id: string): Promise<StockItem | undefined> {
  return stockItems(db, tenant).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst()
}

/** The items among `ids` by id, in one query: live ones, and deleted ones too when asked (`deleted` tells). */
export async function findStockItems(db: Executor, tenant: Tenant, ids: string[], options: { includeDeleted?: boolean } = {}): Promise<Map<string, StockItem>> {
  if (ids.length === 0) return new Map()
  let select = stockItems(db, tenant).where('id', 'in', [...new Set(ids)])
  if (!options.includeDeleted) select = select.where('deleted_at', 'is', null)
  const rows = await select.execute()
  return new Map(rows.map((row) => [row.id, row]))
}

/** The live items of these categories, by name then id. */
export async function stockItemsInCategories(db: Executor, tenant: Tenant, categories: string[]): Promise<StockItem[]> {
  if (categories.length === 0) return []
  return stockItems(db, tenant)
    .where('category', 'in', [...new Set(categories)])
    .where('deleted_at', 'is', null)
    .orderBy('name')
    .orderBy('id')
    .execute()
}

/** How many live items a location stocks (locations refuses to delete one that has any). */
export async function countItemsAtLocation(db: Executor, tenant: Tenant, locationId: string): Promise<number> {
  const row = await liveItems(db, tenant)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('location_id', '=', locationId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** An item as pos's auto-mapper matches POS names against it. */
export interface MatchableItem {
  id: string
  name: string
  unit: string
  size_ml: number | null
  category: string
  location_id: string
}

/**
 * The live items name matching chooses among, one per SKU (an item is a product at a location, and a
 * mapping stands for its SKU): the one at `location` where that location stocks the SKU, else one kept
 * by its own unit rather than by the case; with the fields matching needs and its location.
 */
export async function listItemsForMatching(db: Executor, tenant: Tenant, location: string): Promise<MatchableItem[]> {
  return liveItems(db, tenant)
    .distinctOn('sku')
    .select(['id', 'name', 'unit', 'size_ml', 'category', 'location_id'])
    .orderBy('sku')
    .orderBy(sql`location_id = ${location}`, 'desc')
    .orderBy(sql`unit = 'case'`)
    .orderBy('id')
    .execute()
}

/** An item as reports read it: what names, units, places and costs it. */
export interface ReportItem {
  id: string
  name: string
  location_id: string
  category: string
  unit: string
  size_ml: number | null
  /** A decimal string. */
  cost_per_unit: string
}

/**
 * Live items, optionally of one location and one category, by name then id, with the fields reports read
 * (a report reads a thousand: every column of them, timestamps parsed, cost the driver four times as much).
 */
export async function liveReportItemsIn(db: Executor, tenant: Tenant, scope: { location?: string; category?: string }): Promise<ReportItem[]> {
  let query = liveItems(db, tenant).select(['id', 'name', 'location_id', 'category', 'unit', 'size_ml', 'cost_per_unit'])
  if (scope.location) query = query.where('location_id', '=', scope.location)
  if (scope.category) query = query.where('category', '=', scope.category)
  return query.orderBy('name').orderBy('id').execute()
}

export interface DeliveryUnitCost {
  /** The unit cost its latest delivery was received at (4 decimals). */
  unitCost: string
  deliveredAt: Date
}

/**
 * Per item among `itemIds`, the unit cost of its latest delivery by time, a ledger row or a history line
 * (dated before the item's anchor); items never delivered are absent. The items are joined as a set, not
 * `= ANY(array)`, which the planner weighs per element against every partition of the ledger.
 */
export async function lastDeliveryUnitCosts(db: Executor, tenant: Tenant, itemIds: string[]): Promise<Map<string, DeliveryUnitCost>> {
  if (itemIds.length === 0) return new Map()
  const ids = [...new Set(itemIds)]
  const result = await sql<{ item_id: string; unit_cost: string; occurred_at: Date }>`
    SELECT DISTINCT ON (item_id) item_id, unit_cost::text AS unit_cost, occurred_at FROM (
      SELECT m.item_id, m.unit_cost, m.occurred_at, m.sequence FROM stock_movements m
      WHERE m.account_id = ${tenant.accountId} AND m.environment = ${tenant.environment} AND m.kind = 'delivery'
        AND m.item_id IN (SELECT unnest(${ids}::text[]))
      UNION ALL
      SELECT l.item_id, l.unit_cost, l.occurred_at, l.sequence FROM stock_operation_lines l
      WHERE l.account_id = ${tenant.accountId} AND l.environment = ${tenant.environment} AND l.kind = 'delivery'
        AND l.item_id = ANY(${ids}::text[]) AND l.voided_at IS NULL) deliveries
    ORDER BY item_id, occurred_at DESC, sequence DESC`.execute(db)
  return new Map(result.rows.map((row) => [row.item_id, { unitCost: row.unit_cost, deliveredAt: row.occurred_at }]))
}
