import { sql } from 'kysely'
import './rollups.tables.js'
import type { Executor, Tenant } from '../platform/db/database.js'
import { outerRange } from '../platform/time-range.js'
import { unmappedSaleLines } from '../pos/index.js'
import type { LocationClock } from './report-period.js'

/** Whole business days of one item, first to last inclusive (YYYY-MM-DD). */
export interface ItemDays {
  itemId: string
  firstDay: string
  lastDay: string
}

export interface DayNet {
  day: string
  /** What came in less what went out that day (deliveries and transfers in, less usage, transfers out and waste), item units. */
  net: string
}

export interface DaysTotal {
  usage: string
  saleLines: number
  deliveries: string
  transfersIn: string
  transfersOut: string
  waste: string
  wasteCost: string
  /** Each day's net, oldest first, when asked for. */
  days: DayNet[]
}

function spansTable(spans: ItemDays[]) {
  return sql`unnest(${spans.map((_, index) => index)}::int[], ${spans.map((span) => span.itemId)}::text[],
    ${spans.map((span) => span.firstDay)}::date[], ${spans.map((span) => span.lastDay)}::date[]) AS s (ord, item_id, first_day, last_day)`
}

interface TotalsRow {
  ord: number
  usage: string
  sale_lines: string
  deliveries: string
  transfers_in: string
  transfers_out: string
  waste: string
  waste_cost: string
}

/** Usage, sale lines, deliveries, transfers and waste of each item over its days from the daily rollup, in order; with each day's net when `withDays`. */
export async function rolledUpDays(db: Executor, spans: ItemDays[], withDays: boolean): Promise<DaysTotal[]> {
  if (spans.length === 0) return []
  const totals = await sql<TotalsRow>`
    SELECT s.ord, coalesce(sum(d.usage_units), 0)::text AS usage, coalesce(sum(d.sale_lines), 0)::text AS sale_lines,
      coalesce(sum(d.deliveries), 0)::text AS deliveries, coalesce(sum(d.transfers_in), 0)::text AS transfers_in,
      coalesce(sum(d.transfers_out), 0)::text AS transfers_out, coalesce(sum(d.waste_units), 0)::text AS waste,
      coalesce(sum(d.waste_cost), 0)::text AS waste_cost
    FROM ${spansTable(spans)}
    LEFT JOIN analytics_item_days d ON d.item_id = s.item_id AND d.business_day BETWEEN s.first_day AND s.last_day
    GROUP BY s.ord ORDER BY s.ord`.execute(db)
  const days = new Map<number, DayNet[]>()
  if (withDays) {
    const rows = await sql<{ ord: number; day: string; net: string }>`
      SELECT s.ord, d.business_day::text AS day,
        sum(d.deliveries + d.transfers_in - d.transfers_out - d.waste_units - d.usage_units)::text AS net
      FROM ${spansTable(spans)}
      JOIN analytics_item_days d ON d.item_id = s.item_id AND d.business_day BETWEEN s.first_day AND s.last_day
      GROUP BY s.ord, d.business_day ORDER BY s.ord, d.business_day`.execute(db)
    for (const row of rows.rows) days.set(row.ord, [...(days.get(row.ord) ?? []), { day: row.day, net: row.net }])
  }
  return totals.rows.map((row) => ({
    usage: row.usage,
    saleLines: Number(row.sale_lines),
    deliveries: row.deliveries,
    transfersIn: row.transfers_in,
    transfersOut: row.transfers_out,
    waste: row.waste,
    wasteCost: row.waste_cost,
    days: days.get(row.ord) ?? [],
  }))
}

export interface PosRevenue {
  revenue: string
  mappedRevenue: string
  /** POS items with unmapped sales, most revenue first. */
  unmapped: { connection_id: string; pos_item_id: string; name: string; revenue: string }[]
}

/** POS revenue at the locations over the business days from..to (inclusive), from the daily rollup; the top unmapped POS items. */
export async function posRevenue(db: Executor, tenant: Tenant, scope: { locations: string[]; from: string; to: string; top: number }): Promise<PosRevenue> {
  if (scope.locations.length === 0) return { revenue: '0', mappedRevenue: '0', unmapped: [] }
  // The tenant's rows at the locations over the period, of the rollup named `alias` in the query.
  const inPeriod = (alias: string) => {
    const column = (name: string) => sql.ref(`${alias}.${name}`)
    return sql<boolean>`${column('account_id')} = ${tenant.accountId} AND ${column('environment')} = ${tenant.environment}
      AND ${column('location_id')} IN (${sql.join(scope.locations)}) AND ${column('business_day')} >= ${scope.from} AND ${column('business_day')} <= ${scope.to}`
  }
  const unmappedRevenue = sql<number>`sum(d.revenue - d.mapped_revenue)`
  const [totals, unmapped] = await Promise.all([
    // The totals from each connection's day at the locations: one row a day, not one per POS item.
    db
      .selectFrom('analytics_pos_location_days as t')
      .where(inPeriod('t'))
      .select([sql<string>`coalesce(sum(t.revenue), 0)::text`.as('revenue'), sql<string>`coalesce(sum(t.mapped_revenue), 0)::text`.as('mappedRevenue')])
      .executeTakeFirstOrThrow(),
    // Only the days with unmapped revenue are summed (the others add 0 to a POS item's sum: a bar's mapped
    // days, most of 30,000, are not aggregated); each listed POS item's lowest name is still that of all its
    // days in the period, read by the rollup's key.
    db
      .selectFrom('analytics_pos_item_days as d')
      .where(inPeriod('d'))
      .where(sql<boolean>`d.revenue <> d.mapped_revenue`)
      .select((eb) => [
        'd.connection_id',
        'd.pos_item_id',
        eb
          .selectFrom('analytics_pos_item_days as a')
          .select(sql<string>`min(a.name)`.as('name'))
          .whereRef('a.connection_id', '=', 'd.connection_id')
          .whereRef('a.pos_item_id', '=', 'd.pos_item_id')
          .where(inPeriod('a'))
          .$asScalar()
          .$notNull()
          .as('name'),
        sql<string>`${unmappedRevenue}::text`.as('revenue'),
      ])
      .groupBy(['d.connection_id', 'd.pos_item_id'])
      .having(unmappedRevenue, '>', 0)
      .orderBy(unmappedRevenue, 'desc')
      .orderBy('name')
      .limit(scope.top)
      .execute(),
  ])
  return { ...totals, unmapped }
}

/** Moments of one location: after `start`, up to and including `end`, in its business days by `clock`. */
export interface ClockedSpan {
  location: string
  start: Date
  end: Date
  clock: LocationClock
}

export interface UnmappedSales {
  /** The index of the span in the spans asked for. */
  span: number
  connectionId: string
  posItemId: string
  /** The lowest name among its unmapped lines in the span. */
  name: string
  /** A decimal string. */
  quantity: string
}

/**
 * The POS items with unmapped lines sold in each span, their quantities summed: the whole business days
 * between the span's ends from analytics_unmapped_sale_days, the partial days at its ends from POS's raw
 * unmapped lines. O(days × unmapped POS items) for the whole days, whatever the number of lines; the
 * days are the location's as they were when the lines were written, like the other rollups'.
 *
 * The partial days are read once each, not once per span: spans counted at different times share their
 * days (a bar's spot counts during the day all end today, and every one of them held all of today's
 * unmapped lines: 181 spans × 285 lines read 22,000 pages, 27 ms). A span that ends on a later day than it
 * starts takes the lines of its first day after its start, and of its last day up to its end. Each day's
 * lines are summed per POS item into buckets between the distinct starts (or ends) of its spans
 * (width_bucket, a binary search), and each span's part is a running sum (and running lowest name) over
 * the buckets on its side of its bound. A span inside one business day reads its own lines.
 */
export async function unmappedSalesInSpans(db: Executor, tenant: Tenant, spans: ClockedSpan[]): Promise<UnmappedSales[]> {
  if (spans.length === 0) return []
  // Every line read lies after a span's start and up to its end: the spans' outer bounds, as constants,
  // let the planner prune pos_sales' monthly partitions when it plans (it planned every month's index).
  const { start: earliest, end: latest } = outerRange(
    spans,
    (span) => span.start,
    (span) => span.end,
  )
  const lines = unmappedSaleLines(db, tenant).where('sold_at', '>', earliest).where('sold_at', '<=', latest)
  const result = await sql<UnmappedSales>`
    WITH spans AS (
      SELECT s.ord, s.location_id, s.start_at, s.end_at, d.first_day, d.last_day,
        ((d.first_day + 1 + s.cutoff::interval) AT TIME ZONE s.timezone) AS first_day_end,
        ((d.last_day + s.cutoff::interval) AT TIME ZONE s.timezone) AS last_day_start
      FROM unnest(${spans.map((_, index) => index)}::int[], ${spans.map((span) => span.location)}::text[],
        ${spans.map((span) => span.start.toISOString())}::timestamptz[], ${spans.map((span) => span.end.toISOString())}::timestamptz[],
        ${spans.map((span) => span.clock.timezone)}::text[], ${spans.map((span) => span.clock.cutoff)}::text[])
        AS s (ord, location_id, start_at, end_at, timezone, cutoff)
      CROSS JOIN LATERAL (SELECT business_day(s.start_at, s.timezone, s.cutoff) AS first_day, business_day(s.end_at, s.timezone, s.cutoff) AS last_day) d
    ),
    -- The partial days of spans over several days, each with its spans' distinct bounds in order: on a
    -- first day (after) the starts, on a last day (up_to) the ends.
    partial_days AS (
      SELECT 'after' AS side, location_id, first_day AS day, first_day_end AS day_edge, array_agg(DISTINCT start_at ORDER BY start_at) AS bounds
      FROM spans WHERE last_day > first_day GROUP BY location_id, first_day, first_day_end
      UNION ALL
      SELECT 'up_to', location_id, last_day, last_day_start, array_agg(DISTINCT end_at ORDER BY end_at)
      FROM spans WHERE last_day > first_day GROUP BY location_id, last_day, last_day_start
    ),
    -- Each day's lines summed per POS item and bucket: after, bucket i holds the lines after i starts
    -- (those of the spans starting at the first i starts); up to, bucket i the lines at or before the
    -- i-th end and after the one before. (Times are in microseconds: "before t" is "at or before t − 1 µs".)
    buckets AS (
      SELECT d.side, d.location_id, d.day, u.connection_id, u.pos_item_id, min(u.name) AS name, sum(u.quantity) AS quantity,
        width_bucket(u.sold_at - interval '1 microsecond', d.bounds) + CASE d.side WHEN 'up_to' THEN 1 ELSE 0 END AS bucket
      FROM partial_days d
      CROSS JOIN LATERAL (
        SELECT u.connection_id, u.pos_item_id, u.name, u.quantity, u.sold_at FROM ${lines} u
        WHERE u.location_id = d.location_id AND CASE d.side
          WHEN 'after' THEN u.sold_at > d.bounds[1] AND u.sold_at < d.day_edge
          ELSE u.sold_at >= d.day_edge AND u.sold_at <= d.bounds[cardinality(d.bounds)] END) u
      GROUP BY d.side, d.location_id, d.day, u.connection_id, u.pos_item_id, bucket
    ),
    -- Per bucket of each day and POS item sold that day, what the span at that bound takes: after, the
    -- buckets from its own to the last; up to, those from the first to its own.
    running AS (
      SELECT d.side, d.location_id, d.day, k.bucket, p.connection_id, p.pos_item_id,
        sum(b.quantity) OVER w AS quantity, min(b.name) OVER w AS name
      FROM partial_days d
      CROSS JOIN LATERAL generate_series(1, cardinality(d.bounds)) AS k (bucket)
      JOIN (SELECT DISTINCT side, location_id, day, connection_id, pos_item_id FROM buckets) p USING (side, location_id, day)
      LEFT JOIN buckets b ON (b.side, b.location_id, b.day, b.bucket, b.connection_id, b.pos_item_id) = (d.side, d.location_id, d.day, k.bucket, p.connection_id, p.pos_item_id)
      WINDOW w AS (PARTITION BY d.side, d.location_id, d.day, p.connection_id, p.pos_item_id ORDER BY CASE d.side WHEN 'after' THEN -k.bucket ELSE k.bucket END)
    ),
    -- Each span's bucket on each of its partial days (its own bound's).
    span_buckets AS (
      SELECT b.ord, d.side, d.location_id, d.day, width_bucket(CASE d.side WHEN 'after' THEN b.start_at ELSE b.end_at END, d.bounds) AS bucket
      FROM spans b
      JOIN partial_days d ON d.location_id = b.location_id AND d.day = CASE d.side WHEN 'after' THEN b.first_day ELSE b.last_day END
      WHERE b.last_day > b.first_day
    )
    SELECT sold.ord AS span, sold.connection_id AS "connectionId", sold.pos_item_id AS "posItemId", min(sold.name) AS name, sum(sold.quantity)::text AS quantity
    FROM (
      SELECT b.ord, r.connection_id, r.pos_item_id, r.name, r.quantity
      FROM spans b
      JOIN analytics_unmapped_sale_days r ON r.account_id = ${tenant.accountId} AND r.environment = ${tenant.environment} AND r.location_id = b.location_id
        AND r.business_day > b.first_day AND r.business_day < b.last_day AND r.sale_lines > 0
      UNION ALL
      -- The partial days of a span over several days: the running sums at its bounds.
      SELECT b.ord, r.connection_id, r.pos_item_id, r.name, r.quantity
      FROM span_buckets b
      JOIN running r USING (side, location_id, day, bucket)
      WHERE r.quantity IS NOT NULL
      UNION ALL
      -- A span inside one business day: its own lines.
      SELECT b.ord, e.connection_id, e.pos_item_id, e.name, e.quantity
      FROM spans b
      CROSS JOIN LATERAL (
        SELECT u.connection_id, u.pos_item_id, min(u.name) AS name, sum(u.quantity) AS quantity
        FROM ${lines} u
        WHERE u.location_id = b.location_id AND u.sold_at > b.start_at AND u.sold_at <= b.end_at
        GROUP BY u.connection_id, u.pos_item_id) e
      WHERE b.last_day = b.first_day
    ) sold
    GROUP BY sold.ord, sold.connection_id, sold.pos_item_id
    ORDER BY sold.ord, sold.connection_id, sold.pos_item_id`.execute(db)
  return result.rows
}
