import { type Expression, type RawBuilder, sql } from 'kysely'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { itemCostAt } from './item-costs.js'

/** Sale usage as stored: per sale line and item, what the line took, and the days it took it on (sale-usage.ts holds the rules). */

/** The live item of the named item's SKU at a location, for one of the pairs asked about (`ord`: its index). */
export interface SkuItemAt {
  ord: number
  named: { unit: string; case_size: number | null }
  local: { id: string; unit: string; case_size: number | null }
}

/**
 * For each (item, location) pair whose item is not a live item of that location, the live item of the
 * item's SKU there, in one query. The other pairs are absent: an item sold where it is stocked is its
 * SKU's item there (one live item per SKU and location), and a location may stock no live item of it.
 */
export async function skuItemsAt(db: Executor, tenant: Tenant, pairs: { itemId: string; location: string }[]): Promise<SkuItemAt[]> {
  if (pairs.length === 0) return []
  // Index lookups per pair, in this order whatever the statistics say: each is a LATERAL subquery with a
  // LIMIT (its key finds one row at most), which the planner cannot flatten into a join and reorder. As
  // plain joins, on a table not yet analyzed (a young server, or a first import before autoanalyze) the
  // tenant's items were estimated at one row and joined to every pair by location alone, then filtered
  // by SKU: 86 s for 5,000 pairs (docs/benchmarks.md, session 15).
  const tenantItem = sql`i.account_id = ${tenant.accountId} AND i.environment = ${tenant.environment}`
  const result = await sql<{ ord: number; named_unit: string; named_case_size: number | null; id: string; unit: string; case_size: number | null }>`
    SELECT p.ord::int - 1 AS ord, n.unit AS named_unit, n.case_size AS named_case_size, l.id, l.unit, l.case_size
    FROM unnest(${pairs.map((pair) => pair.itemId)}::text[], ${pairs.map((pair) => pair.location)}::text[]) WITH ORDINALITY AS p (item_id, location_id, ord)
    CROSS JOIN LATERAL (
      SELECT i.sku, i.unit, i.case_size, i.location_id, i.deleted_at FROM inventory_items i WHERE i.id = p.item_id AND ${tenantItem}
      LIMIT 1) n
    CROSS JOIN LATERAL (
      SELECT i.id, i.unit, i.case_size FROM inventory_items i
      WHERE ${tenantItem} AND i.sku = n.sku AND i.location_id = p.location_id AND i.deleted_at IS NULL
      LIMIT 1) l
    WHERE n.location_id <> p.location_id OR n.deleted_at IS NOT NULL`.execute(db)
  return result.rows.map((row) => ({
    ord: row.ord,
    named: { unit: row.named_unit, case_size: row.named_case_size },
    local: { id: row.id, unit: row.unit, case_size: row.case_size },
  }))
}

/** The items that hold usage of the sale lines `source` names (before it is restated). */
export async function itemsUsedByLines(trx: Trx, tenant: Tenant, source: Expression<unknown>): Promise<string[]> {
  const result = await sql<{ item_id: string }>`
    SELECT DISTINCT u.item_id FROM stock_sale_usage u
    WHERE u.account_id = ${tenant.accountId} AND u.environment = ${tenant.environment}
      AND u.sale_line IN (SELECT s.sale_line FROM (${source}) AS s)`.execute(trx)
  return result.rows.map((row) => row.item_id)
}

/**
 * Records per-line sale usage from `source` for the tenant's live items, each row with the item's location
 * (where stock was taken) and the line's (where it was sold), and the item's cost in force when the line
 * was sold (a line imported into the past is costed at its time, not today's); a (line, item) stored
 * before is skipped.
 */
export async function insertSaleUsage(trx: Trx, tenant: Tenant, batchId: string, source: Expression<unknown>): Promise<void> {
  await sql`
    INSERT INTO stock_sale_usage (account_id, environment, item_id, location_id, sale_location_id, sale_line, recipe_id, sold_at, units, unit_cost,
      applied, batch_id)
    SELECT i.account_id, i.environment, i.id, i.location_id, s.sale_location_id, s.sale_line, s.recipe_id, s.sold_at, s.units,
      ${itemCostAt(sql.ref('i.id'), sql.ref('s.sold_at'))}, s.sold_at > i.anchored_at, ${batchId}
    FROM (${source}) AS s
    JOIN inventory_items i ON i.id = s.item_id AND i.account_id = ${tenant.accountId} AND i.environment = ${tenant.environment}
      AND i.deleted_at IS NULL
    ON CONFLICT (sale_line, item_id, sold_at) DO NOTHING`.execute(trx)
}

export interface UsageDay {
  item_id: string
  /** Units applied to stock that business day (0 when all of it was history). */
  applied_units: string
  /** The day's latest applied sale, null when none was applied. */
  last_applied_at: Date | null
}

/**
 * Usage rows `r` (a relation with the usage columns and `took_stock`) summed per item and business day
 * of the row's location: the units that took current stock, and the day's last such sale.
 */
function usageByBusinessDay(rows: RawBuilder<unknown>) {
  return sql<UsageDay>`
    SELECT r.item_id, (coalesce(sum(r.units) FILTER (WHERE r.took_stock), 0))::text AS applied_units,
      max(r.sold_at) FILTER (WHERE r.took_stock) AS last_applied_at
    FROM ${rows} r
    JOIN locations l ON l.account_id = r.account_id AND l.environment = r.environment AND l.id = r.location_id
    GROUP BY r.item_id, business_day(r.sold_at, l.timezone, l.business_day_cutoff)
    ORDER BY r.item_id, business_day(r.sold_at, l.timezone, l.business_day_cutoff)`
}

/** A usage batch summed per item and business day of the item's location, oldest day first. */
export async function usageDaysOfBatch(trx: Trx, batchId: string): Promise<UsageDay[]> {
  // Materialized, so the batch is read by its own index whatever the statistics say: on a table not yet
  // analyzed (a first import of months of sales, or autovacuum off) the planner read the location's
  // whole history by the location index and filtered it, a cost growing with every import.
  const result = await sql<UsageDay>`
    WITH batch AS MATERIALIZED (SELECT *, applied AS took_stock FROM stock_sale_usage WHERE batch_id = ${batchId})
    ${usageByBusinessDay(sql`batch`)}`.execute(trx)
  return result.rows
}

/**
 * Removes the stored usage of the sale lines `source` names, answering per item and business day the
 * units of it that stood after the item's anchor (and so had taken current stock).
 */
export async function removeSaleUsageOfLines(trx: Trx, tenant: Tenant, source: Expression<unknown>): Promise<UsageDay[]> {
  const result = await sql<UsageDay>`
    WITH removed AS (
      DELETE FROM stock_sale_usage u
      WHERE u.account_id = ${tenant.accountId} AND u.environment = ${tenant.environment}
        AND u.sale_line IN (SELECT s.sale_line FROM (${source}) AS s)
      RETURNING u.*)
    ${usageByBusinessDay(sql`(SELECT removed.*, removed.sold_at > i.anchored_at AS took_stock FROM removed JOIN inventory_items i ON i.id = removed.item_id)`)}`.execute(trx)
  return result.rows
}
