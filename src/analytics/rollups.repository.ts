import { sql } from 'kysely'
import './rollups.tables.js'
import type { Executor, Tenant } from '../platform/db/database.js'

/** Whole business days of one item, first to last inclusive (YYYY-MM-DD). */
export interface ItemDays {
  itemId: string
  firstDay: string
  lastDay: string
}

export interface DayNet {
  day: string
  /** Deliveries less usage of the day, item units. */
  net: string
}

export interface DaysTotal {
  usage: string
  saleLines: number
  deliveries: string
  /** Each day's net, oldest first, when asked for. */
  days: DayNet[]
}

function spansTable(spans: ItemDays[]) {
  return sql`unnest(${spans.map((_, index) => index)}::int[], ${spans.map((span) => span.itemId)}::text[],
    ${spans.map((span) => span.firstDay)}::date[], ${spans.map((span) => span.lastDay)}::date[]) AS s (ord, item_id, first_day, last_day)`
}

/** Usage, sale lines and deliveries of each item over its days from the daily rollup, in order; with each day's net when `withDays`. */
export async function rolledUpDays(db: Executor, spans: ItemDays[], withDays: boolean): Promise<DaysTotal[]> {
  if (spans.length === 0) return []
  const totals = await sql<{ ord: number; usage: string; sale_lines: string; deliveries: string }>`
    SELECT s.ord, coalesce(sum(d.usage_units), 0)::text AS usage, coalesce(sum(d.sale_lines), 0)::text AS sale_lines,
      coalesce(sum(d.deliveries), 0)::text AS deliveries
    FROM ${spansTable(spans)}
    LEFT JOIN analytics_item_days d ON d.item_id = s.item_id AND d.business_day BETWEEN s.first_day AND s.last_day
    GROUP BY s.ord ORDER BY s.ord`.execute(db)
  const days = new Map<number, DayNet[]>()
  if (withDays) {
    const rows = await sql<{ ord: number; day: string; net: string }>`
      SELECT s.ord, d.business_day::text AS day, sum(d.deliveries - d.usage_units)::text AS net
      FROM ${spansTable(spans)}
      JOIN analytics_item_days d ON d.item_id = s.item_id AND d.business_day BETWEEN s.first_day AND s.last_day
      GROUP BY s.ord, d.business_day ORDER BY s.ord, d.business_day`.execute(db)
    for (const row of rows.rows) days.set(row.ord, [...(days.get(row.ord) ?? []), { day: row.day, net: row.net }])
  }
  return totals.rows.map((row) => ({ usage: row.usage, saleLines: Number(row.sale_lines), deliveries: row.deliveries, days: days.get(row.ord) ?? [] }))
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
  const days = db
    .selectFrom('analytics_pos_item_days')
    .where('account_id', '=', tenant.accountId)
    .where('environment', '=', tenant.environment)
    .where('location_id', 'in', scope.locations)
    .where('business_day', '>=', scope.from)
    .where('business_day', '<=', scope.to)
  const [totals, unmapped] = await Promise.all([
    days
      .select([sql<string>`coalesce(sum(revenue), 0)::text`.as('revenue'), sql<string>`coalesce(sum(mapped_revenue), 0)::text`.as('mappedRevenue')])
      .executeTakeFirstOrThrow(),
    days
      .select(['connection_id', 'pos_item_id', sql<string>`min(name)`.as('name'), sql<string>`sum(revenue - mapped_revenue)::text`.as('revenue')])
      .groupBy(['connection_id', 'pos_item_id'])
      .having(sql`sum(revenue - mapped_revenue)`, '>', 0)
      .orderBy(sql`sum(revenue - mapped_revenue)`, 'desc')
      .orderBy(sql`min(name)`)
      .limit(scope.top)
      .execute(),
  ])
  return { ...totals, unmapped }
}
