import { type Expression, sql } from 'kysely'
import type { Executor, Tenant } from '../platform/db/database.js'
import { textList, timeList } from '../platform/db/text-list.js'
import { outerRange } from '../platform/time-range.js'
import { signedLineQuantity } from './operations.repository.js'
import type { StockMovementTable, StockSaleUsageTable } from './inventory.tables.js'
import type { StockOperationLineTable } from './operations.tables.js'
/** Live items, optionally of one location and one category, by name then id, with the fields reports read. */
export { liveReportItemsIn as itemsInScope, type ReportItem } from './item-reads.js'
/** The cost in force at a moment, and whether it changed in a span, as SQL a report's query reads per item. */
export { itemCostAt, itemCostOtherThanIn } from './item-costs.js'

/**
 * The stock history inventory publishes for reports (analytics reads it here, never the tables): items in
 * scope, their counts, and what moved them between two moments. Usage counts every sale line, whether it
 * took current stock or is history (sold before a count): it is what the bar sold.
 */

/**
 * The columns of inventory's tables that analytics' triggers read: each statement that writes usage,
 * ledger rows or operation lines is folded into analytics_item_days, and the count windows it falls in
 * are forgotten, in the writing transaction, where TypeScript cannot see it (analytics_roll_usage,
 * analytics_roll_deliveries, analytics_roll_operations, analytics_forget_count_windows). They keep their
 * name and meaning while the triggers read them: these lists are checked against the tables' types here,
 * and against the triggers' SQL by test/analytics/rollup-contract.test.ts.
 */
export const COLUMNS_ROLLED_UP = {
  stock_sale_usage: ['account_id', 'environment', 'item_id', 'location_id', 'sold_at', 'units', 'unit_cost'] as const satisfies readonly (keyof StockSaleUsageTable)[],
  stock_movements: ['account_id', 'environment', 'item_id', 'location_id', 'occurred_at', 'kind', 'delta'] as const satisfies readonly (keyof StockMovementTable)[],
  stock_operation_lines: [
    'sequence',
    'account_id',
    'environment',
    'item_id',
    'location_id',
    'occurred_at',
    'kind',
    'quantity',
    'unit_cost',
    'voided_at',
  ] as const satisfies readonly (keyof StockOperationLineTable)[],
}

/**
 * One item's count lines at or before `until`, as a typed subquery a report's own query reads per item
 * (analytics plans its count windows in SQL, one row per window, instead of reading every count):
 * `itemId` is the SQL of the item's id, usually a column of the report's query the subquery is
 * correlated with. Its rows are count_id, counted_at, recorded_at, actual (the result type says so), in
 * no particular order (order by counted_at, recorded_at). With `keepBefore`, only the latest
 * `keepBefore.count` of those at or before `keepBefore.at` are kept, and all after it: a report needs its
 * opening count and a few windows before it, not years of them. Read through
 * inventory_count_lines_item_time, per item.
 */
export function itemCountLines(db: Executor, itemId: Expression<string>, until: Date, keepBefore?: { at: Date; count: number }) {
  const keepAt = keepBefore?.at ?? until
  const lines = db.selectFrom('inventory_count_lines').select(['count_id', 'counted_at', 'recorded_at', 'actual']).where('item_id', '=', itemId)
  const kept = lines
    .where('counted_at', '<=', keepAt)
    .orderBy('counted_at', 'desc')
    .orderBy('recorded_at', 'desc')
    .limit(sql<number | null>`${keepBefore?.count ?? null}::bigint`)
  return lines
    .where('counted_at', '>', keepAt)
    .where('counted_at', '<=', until)
    .unionAll((eb) => eb.parens(kept))
}

/** One count line: the count, and the item it counted. */
export interface CountLineRef {
  countId: string
  itemId: string
}

/** The items whose line among `lines` was counted by weight (it keeps the open containers' weights), not by eye. */
export async function itemsCountedByWeight(db: Executor, lines: CountLineRef[]): Promise<Set<string>> {
  if (lines.length === 0) return new Set()
  const result = await sql<{ item_id: string }>`
    SELECT l.item_id FROM unnest(${textList(lines.map((line) => line.countId))}, ${textList(lines.map((line) => line.itemId))}) AS s (count_id, item_id)
    JOIN inventory_count_lines l ON l.count_id = s.count_id AND l.item_id = s.item_id
    WHERE l.weights_g IS NOT NULL`.execute(db)
  return new Set(result.rows.map((row) => row.item_id))
}

/** A span of one item's history: after `from`, up to and including `to`. */
export interface HistorySpan {
  itemId: string
  from: Date
  to: Date
}

export interface SpanMovement {
  /** Received deliveries, item units: those that took stock and those dated before a count (history). */
  deliveries: string
  /** Usage of every sale line sold in the span, item units. */
  usage: string
  /** Sale lines that used the item. */
  saleLines: number
  /** Transfers into and out of the item (voided ones left out), item units. */
  transfersIn: string
  transfersOut: string
  /** Recorded waste, item units, and its cost at the time it was recorded. */
  waste: string
  wasteCost: string
  /** The lowest that what came in so far less what went out so far reached inside the span (0 or below). */
  lowestNet: string
}

/**
 * The sums of an item's transfers, recorded waste and history deliveries in a span (s.item_id, s.from_at,
 * s.to_at), as a lateral subquery with columns transfers_in, transfers_out, waste, waste_cost,
 * history_deliveries (deliveries that took stock are ledger rows).
 */
const operationSums = sql`(
  SELECT coalesce(sum(o.quantity) FILTER (WHERE o.kind = 'transfer_in'), 0) AS transfers_in,
    coalesce(sum(o.quantity) FILTER (WHERE o.kind = 'transfer_out'), 0) AS transfers_out,
    coalesce(sum(o.quantity) FILTER (WHERE o.kind = 'waste'), 0) AS waste,
    coalesce(sum(o.quantity * o.unit_cost) FILTER (WHERE o.kind = 'waste'), 0) AS waste_cost,
    coalesce(sum(o.quantity) FILTER (WHERE o.kind = 'delivery'), 0) AS history_deliveries
  FROM stock_operation_lines o
  WHERE o.item_id = s.item_id AND o.voided_at IS NULL AND o.occurred_at > s.from_at AND o.occurred_at <= s.to_at)`

const operationColumns = sql`o.transfers_in::text AS "transfersIn", o.transfers_out::text AS "transfersOut",
  o.waste::text AS waste, o.waste_cost::text AS "wasteCost"`

/**
 * `column` inside the spans' outer range (after the earliest `from`, up to the latest `to`), as plain
 * values. Each span's own bounds imply it, so no answer changes; the planner prunes months with it (7 and
 * 4 ms of planning a count's two statements at 34 months before, docs/benchmarks.md, session 15).
 */
function withinSpans(column: string, spans: HistorySpan[]) {
  const { start, end } = outerRange(
    spans,
    (span) => span.from,
    (span) => span.to,
  )
  return sql`${sql.ref(column)} > ${start} AND ${sql.ref(column)} <= ${end}`
}

function spansTable(spans: HistorySpan[]) {
  // Each value list as one string (textList), numbered by the database (ord: the span's index, from 0).
  return sql`(SELECT (n - 1)::int AS ord, item_id, from_at, to_at
    FROM unnest(${textList(spans.map((span) => span.itemId))}, ${timeList(spans.map((span) => span.from))}, ${timeList(spans.map((span) => span.to))})
      WITH ORDINALITY AS u (item_id, from_at, to_at, n)) s`
}

/**
 * Deliveries and sales usage of each span, in the spans' order; with `walk`, also the lowest running net
 * (which orders every event of the span, so it costs more).
 */
export async function movementsInSpans(db: Executor, spans: HistorySpan[], options: { walk: boolean }): Promise<SpanMovement[]> {
  if (spans.length === 0) return []
  if (!options.walk) return sumsInSpans(db, spans)
  const result = await sql<SpanMovement & { ord: number }>`
    SELECT s.ord, e.deliveries::text AS deliveries, e.usage::text AS usage, e.sale_lines::int AS "saleLines", ${operationColumns},
      least(0, coalesce(e.lowest, 0))::text AS "lowestNet"
    FROM ${spansTable(spans)}
    CROSS JOIN LATERAL ${operationSums} o
    CROSS JOIN LATERAL (
      SELECT coalesce(sum(change) FILTER (WHERE is_delivery), 0) AS deliveries,
        coalesce(-sum(change) FILTER (WHERE is_sale), 0) AS usage,
        count(*) FILTER (WHERE is_sale) AS sale_lines,
        min(running) AS lowest
      FROM (
        SELECT change, is_sale, is_delivery, sum(change) OVER (ORDER BY at, is_sale, seq) AS running
        FROM (
          SELECT m.occurred_at AS at, m.delta AS change, false AS is_sale, true AS is_delivery, m.sequence AS seq
          FROM stock_movements m
          WHERE m.item_id = s.item_id AND m.kind = 'delivery' AND m.occurred_at > s.from_at AND m.occurred_at <= s.to_at
            AND ${withinSpans('m.occurred_at', spans)}
          UNION ALL
          SELECT u.sold_at, -u.units, true, false, u.sequence
          FROM stock_sale_usage u
          WHERE u.item_id = s.item_id AND u.sold_at > s.from_at AND u.sold_at <= s.to_at AND ${withinSpans('u.sold_at', spans)}
          UNION ALL
          SELECT l.occurred_at, ${signedLineQuantity('l')}, false, l.kind = 'delivery', l.sequence
          FROM stock_operation_lines l
          WHERE l.item_id = s.item_id AND l.voided_at IS NULL AND l.occurred_at > s.from_at AND l.occurred_at <= s.to_at
        ) events
      ) walked
    ) e
    ORDER BY s.ord`.execute(db)
  return result.rows.map(({ ord: _, ...movement }) => movement)
}

/** Moments of one location: from `start` up to `end` (excluded). */
export interface LocationSpan {
  location: string
  start: Date
  end: Date
}

/**
 * How many sale lines depleted one of `itemIds` at another location than their own (sold where no item
 * of the SKU is stocked, they took the mapped item): those sold in the span of the depleted item's
 * location. Reads the spans' few such rows by their own index, then keeps those of the items. The items
 * are a set to join, not `= ANY(array)`:
 * with a thousand ids the planner weighed each against every partition's statistics (50 ms of planning
 * for a 0.5 ms read on 17 monthly partitions).
 */
export async function crossLocationSaleLines(db: Executor, tenant: Tenant, itemIds: string[], spans: LocationSpan[]): Promise<number> {
  if (itemIds.length === 0 || spans.length === 0) return 0
  // The spans' outer range as constants too (each span's own bounds imply it): the partitions are pruned when planned.
  const { start: earliest, end: latest } = outerRange(
    spans,
    (span) => span.start,
    (span) => span.end,
  )
  // OFFSET 0 keeps the items out of the scan: joined into it, the planner probed each item's usage in
  // every partition (4,000 index scans, 12 ms of the database's CPU at 2,000 items) instead of reading
  // the spans' few cross-location rows from their partial index.
  const result = await sql<{ lines: number }>`
    SELECT count(DISTINCT u.sale_line)::int AS lines
    FROM (
      SELECT u.sale_line, u.item_id
      FROM unnest(${spans.map((span) => span.location)}::text[], ${spans.map((span) => span.start.toISOString())}::timestamptz[],
        ${spans.map((span) => span.end.toISOString())}::timestamptz[]) AS b (location_id, start_at, end_at)
      JOIN stock_sale_usage u ON u.account_id = ${tenant.accountId} AND u.environment = ${tenant.environment} AND u.location_id = b.location_id
        AND u.sold_at >= b.start_at AND u.sold_at < b.end_at AND u.location_id <> u.sale_location_id
        AND u.sold_at >= ${earliest.toISOString()}::timestamptz AND u.sold_at < ${latest.toISOString()}::timestamptz
      OFFSET 0) u
    WHERE u.item_id IN (SELECT unnest(${textList(itemIds)}))`.execute(db)
  return result.rows[0]?.lines ?? 0
}

/** A span of an item's history as SQL of the report's own query: after `from`, up to and including `to`. */
export interface HistorySpanRefs {
  itemId: Expression<string>
  from: Expression<Date>
  to: Expression<Date>
}

/**
 * The usage of a span's item by the sale lines sold inside it (sale_line, the POS line's sequence; sold_at,
 * its sale time, with which POS finds the line in one partition; units,
 * item units the line took; a recipe line may use an item in several rows), as a typed subquery of a
 * report's query, correlated with it through `span` (the span's item, whose items are the tenant's own).
 * It reads by the item index, without a tenant filter: with one, on a table without statistics yet (a
 * fresh import before autoanalyze), the planner scanned the tenant's whole usage index once per span
 * (30 s for 1,000 items at 50,000 lines, past the statement timeout of a count).
 */
export function saleUsageInSpan(db: Executor, span: HistorySpanRefs) {
  return db
    .selectFrom('stock_sale_usage as u')
    .select(['u.sale_line', 'u.sold_at', 'u.units'])
    .where('u.item_id', '=', span.itemId)
    .where('u.sold_at', '>', span.from)
    .where('u.sold_at', '<=', span.to)
}

/** One item's usage by one sale line, as recorded when the line was applied. */
export interface LineUsage {
  /** The sale line (POS's line sequence, as text). */
  saleLine: string
  itemId: string
  /** Item units the line used. */
  units: string
  /** The item's cost per unit when the line was applied. */
  unitCost: string
}

/** The recorded usage of these sale lines (applied or history), every item each used. */
export async function usageOfSaleLines(db: Executor, tenant: Tenant, saleLines: string[]): Promise<LineUsage[]> {
  if (saleLines.length === 0) return []
  const result = await sql<LineUsage>`
    SELECT u.sale_line::text AS "saleLine", u.item_id AS "itemId", u.units::text AS units, u.unit_cost::text AS "unitCost"
    FROM stock_sale_usage u
    WHERE u.account_id = ${tenant.accountId} AND u.environment = ${tenant.environment}
      AND u.sale_line = ANY(${saleLines}::bigint[])
    ORDER BY u.sale_line, u.item_id`.execute(db)
  return result.rows
}

/** One sale line's usage of a span's item. */
export interface SpanLineUsage {
  /** Index of the span in the request. */
  span: number
  saleLine: string
  units: string
}

/** Per span, the usage of its item by each sale line sold after `from` up to and including `to` (movementsInSpans' rule). */
export async function lineUsageInSpans(db: Executor, spans: HistorySpan[]): Promise<SpanLineUsage[]> {
  if (spans.length === 0) return []
  const result = await sql<SpanLineUsage>`
    SELECT s.ord AS span, u.sale_line::text AS "saleLine", u.units::text AS units
    FROM ${spansTable(spans)}
    JOIN stock_sale_usage u ON u.item_id = s.item_id AND u.sold_at > s.from_at AND u.sold_at <= s.to_at AND ${withinSpans('u.sold_at', spans)}
    ORDER BY s.ord, u.sale_line`.execute(db)
  return result.rows
}

/** Deliveries, usage, transfers and waste of each span by indexed sums, without ordering its events. */
async function sumsInSpans(db: Executor, spans: HistorySpan[]): Promise<SpanMovement[]> {
  const result = await sql<SpanMovement & { ord: number }>`
    SELECT s.ord,
      ((SELECT coalesce(sum(m.delta), 0) FROM stock_movements m
        WHERE m.item_id = s.item_id AND m.kind = 'delivery' AND m.occurred_at > s.from_at AND m.occurred_at <= s.to_at
          AND ${withinSpans('m.occurred_at', spans)})
        + o.history_deliveries)::text AS deliveries,
      u.usage::text AS usage, u.sale_lines::int AS "saleLines", ${operationColumns}, '0' AS "lowestNet"
    FROM ${spansTable(spans)}
    CROSS JOIN LATERAL (
      SELECT coalesce(sum(units), 0) AS usage, count(*) AS sale_lines FROM stock_sale_usage
      WHERE item_id = s.item_id AND sold_at > s.from_at AND sold_at <= s.to_at AND ${withinSpans('sold_at', spans)}) u
    CROSS JOIN LATERAL ${operationSums} o
    ORDER BY s.ord`.execute(db)
  return result.rows.map(({ ord: _, ...movement }) => movement)
}

/**
 * The cost of the waste recorded in each span (quantity × the unit cost it was recorded at; voided entries
 * left out), by the span's item and by reason, decimal strings; items without waste in their span are
 * absent. Read from the live waste lines' covering index alone (stock_operation_lines_waste_item_time).
 * Per item, so that a report made again for a few items reads only theirs.
 */
export async function wasteCostByItemAndReason(db: Executor, spans: HistorySpan[]): Promise<Map<string, Map<string, string>>> {
  const byItem = new Map<string, Map<string, string>>()
  if (spans.length === 0) return byItem
  const result = await sql<{ item_id: string; reason: string; cost: string }>`
    SELECT s.item_id, l.reason, sum(l.quantity * l.unit_cost)::text AS cost
    FROM ${spansTable(spans)}
    JOIN stock_operation_lines l ON l.item_id = s.item_id AND l.kind = 'waste' AND l.voided_at IS NULL
      AND l.occurred_at > s.from_at AND l.occurred_at <= s.to_at
    GROUP BY s.item_id, l.reason`.execute(db)
  for (const { item_id, reason, cost } of result.rows) {
    let reasons = byItem.get(item_id)
    if (!reasons) byItem.set(item_id, (reasons = new Map<string, string>()))
    reasons.set(reason, cost)
  }
  return byItem
}
