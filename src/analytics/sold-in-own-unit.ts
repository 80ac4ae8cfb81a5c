import { sql } from 'kysely'
import type { Executor, Tenant } from '../platform/db/database.js'
import { type HistorySpan, saleUsageInSpan } from '../inventory/stock-history.js'
import { mappedSaleLineQuantity } from '../pos/sales-history.js'

/**
 * Which items were sold in their own unit inside their spans: every mapped sale line took exactly one
 * item unit per POS unit (a bottled beer sold by the bottle, a can by the can). No pour varies such an
 * item's usage, so over_pouring is never its cause (DECISIONS, "Variance summaries"). Items with no sale
 * in their span are not among them. Joins inventory's and POS's published relations, summed per line.
 */
export async function itemsSoldInOwnUnit(db: Executor, tenant: Tenant, spans: HistorySpan[]): Promise<Set<string>> {
  if (spans.length === 0) return new Set()
  // Each line's POS quantity by its primary key (a subquery per line): joined, or with the tenant's
  // conditions beside the key, a table without statistics yet was read whole for every line.
  const result = await sql<{ item_id: string }>`
    SELECT per_line.item_id
    FROM (
      SELECT s.item_id, u.sale_line, u.sold_at, sum(u.units) AS units
      FROM unnest(${spans.map((span) => span.itemId)}::text[], ${spans.map((span) => span.from.toISOString())}::timestamptz[],
        ${spans.map((span) => span.to.toISOString())}::timestamptz[]) AS s (item_id, from_at, to_at)
      CROSS JOIN LATERAL ${saleUsageInSpan} u
      GROUP BY s.item_id, u.sale_line, u.sold_at) per_line
    GROUP BY per_line.item_id
    HAVING bool_and(per_line.units = ${mappedSaleLineQuantity(tenant, sql.ref('per_line.sale_line'), sql.ref('per_line.sold_at'))})`.execute(db)
  return new Set(result.rows.map((row) => row.item_id))
}
