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
 * unmapped lines (two ranges of its index). O(days × unmapped POS items), whatever the number of lines;
 * the days are the location's as they were when the lines were written, like the other rollups'.
 */
export async function unmappedSalesInSpans(db: Executor, tenant: Tenant, spans: ClockedSpan[]): Promise<UnmappedSales[]> {
  if (spans.length === 0) return []
  // Both raw ranges lie after a span's start and up to its end: the spans' outer bounds, as constants,
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
    )
    SELECT sold.ord AS span, sold.connection_id AS "connectionId", sold.pos_item_id AS "posItemId", min(sold.name) AS name, sum(sold.quantity)::text AS quantity
    FROM (
      SELECT b.ord, r.connection_id, r.pos_item_id, r.name, r.quantity
      FROM spans b
      JOIN analytics_unmapped_sale_days r ON r.account_id = ${tenant.accountId} AND r.environment = ${tenant.environment} AND r.location_id = b.location_id
        AND r.business_day > b.first_day AND r.business_day < b.last_day AND r.sale_lines > 0
      UNION ALL
      -- The first business day's part after the start (the whole span when it ends the same day), summed
      -- per span: joined and summed after, each span's lines made a row (spans ending today all hold
      -- today's unmapped lines: 50,000 rows sorted on disk for 131 spans and 466 lines).
      SELECT b.ord, e.connection_id, e.pos_item_id, e.name, e.quantity
      FROM spans b
      CROSS JOIN LATERAL (
        SELECT u.connection_id, u.pos_item_id, min(u.name) AS name, sum(u.quantity) AS quantity
        FROM ${lines} u
        WHERE u.location_id = b.location_id AND u.sold_at > b.start_at AND u.sold_at <= b.end_at AND u.sold_at < b.first_day_end
        GROUP BY u.connection_id, u.pos_item_id) e
      UNION ALL
      -- The last business day's part up to the end, when it is not the first.
      SELECT b.ord, e.connection_id, e.pos_item_id, e.name, e.quantity
      FROM spans b
      CROSS JOIN LATERAL (
        SELECT u.connection_id, u.pos_item_id, min(u.name) AS name, sum(u.quantity) AS quantity
        FROM ${lines} u
        WHERE u.location_id = b.location_id AND u.sold_at >= b.last_day_start AND u.sold_at <= b.end_at
        GROUP BY u.connection_id, u.pos_item_id) e
      WHERE b.last_day > b.first_day
    ) sold
    GROUP BY sold.ord, sold.connection_id, sold.pos_item_id`.execute(db)
  return result.rows
}
