import { sql } from 'kysely'
import type { Executor, Tenant } from '../../platform/db/database.js'
import { textList, timeList } from '../../platform/db/text-list.js'
import { outerRange } from '../../platform/time-range.js'
import { type HistorySpan, saleUsageInSpan } from '../../inventory/index.js'
import { mappedSaleLineQuantity } from '../../pos/index.js'

/**
 * Which items were sold in their own unit inside their spans: every mapped sale line took exactly one
 * item unit per POS unit (a bottled beer sold by the bottle, a can by the can). No pour varies such an
 * item's usage, so over_pouring is never its cause (DECISIONS, "Variance summaries"). Items with no sale
 * in their span are not among them. Reads inventory's and POS's published relations.
 */
export async function itemsSoldInOwnUnit(db: Executor, tenant: Tenant, spans: HistorySpan[]): Promise<Set<string>> {
  if (spans.length === 0) return new Set()
  // Each line's POS quantity by its primary key (a subquery per line): joined, or with the tenant's
  // conditions beside the key, a table without statistics yet was read whole for every line. An item has
  // one usage row per line (UNIQUE (sale_line, item_id)), so its line's usage is that row's units.
  // The spans' outer bounds, as constants beside each span's own (which they imply): the planner then
  // prunes the monthly partitions of both tables when it plans, instead of planning every partition and
  // pruning them per probe.
  const { start: earliest, end: latest } = outerRange(
    spans,
    (span) => span.from,
    (span) => span.to,
  )
  const lineQuantity = mappedSaleLineQuantity(db, tenant, sql.ref<string>('u.sale_line'), sql.ref<Date>('u.sold_at')).where('sold_at', '>', earliest).where('sold_at', '<=', latest)
  const usage = saleUsageInSpan(db, { itemId: sql.ref<string>('s.item_id'), from: sql.ref<Date>('s.from_at'), to: sql.ref<Date>('s.to_at') })
    .where('u.sold_at', '>', earliest)
    .where('u.sold_at', '<=', latest)
  // Per span, by the item index: the first line that took another quantity settles it (most items: one
  // probe each), else one line that took the same. Inside CASE the two EXISTS stay per-span subqueries
  // (in WHERE alone the planner made them joins over every usage row of the tenant), evaluated in order.
  // A line whose quantity is not the tenant's depleted POS quantity (NULL) counts for neither.
  const result = await sql<{ item_id: string }>`
    SELECT s.item_id
    FROM unnest(${textList(spans.map((span) => span.itemId))}, ${timeList(spans.map((span) => span.from))}, ${timeList(spans.map((span) => span.to))})
      AS s (item_id, from_at, to_at)
    WHERE CASE
      WHEN EXISTS (SELECT 1 FROM ${usage} u WHERE u.units <> ${lineQuantity}) THEN false
      ELSE EXISTS (SELECT 1 FROM ${usage} u WHERE u.units = ${lineQuantity})
    END`.execute(db)
  return new Set(result.rows.map((row) => row.item_id))
}
