import { type RawBuilder, sql } from 'kysely'
import type { Executor, Tenant } from '../platform/db/database.js'

/**
 * What analytics reads of demand: sales usage and transfers out (a storeroom's demand is what the bars
 * draw from it; DECISIONS, Bar operations → Transfers). Every usage row is demand, whether it took stock
 * or is history sold before the item's anchor; voided transfers are not. Days are business days in the calendar of the item's current location
 * (its time zone and cut-off), as `YYYY-MM-DD`; only live items count. This file is the only place
 * that SQL lives.
 */

export interface DailyUsage {
  itemId: string
  /** Business day, YYYY-MM-DD. */
  day: string
  /** Units used that day, in the item's unit (decimal string). */
  units: string
}

export interface UsageFilter {
  itemIds?: string[]
  /** Only items now at this location. */
  location?: string
  /** First business day, YYYY-MM-DD, included; default the first day with usage. */
  from?: string
  /** Last business day, YYYY-MM-DD, included. */
  to: string
}

/**
 * The calendar of each live item in the filter: its location's time zone and cut-off. Materialized, so
 * the usage is then read item by item through the (item_id, sold_at) index whatever the planner's
 * statistics say (the embedded database has no autovacuum to keep them fresh).
 */
function calendars(tenant: Tenant, filter: Pick<UsageFilter, 'itemIds' | 'location'>): RawBuilder<unknown> {
  return sql`
    SELECT i.id AS item_id, l.timezone, l.business_day_cutoff AS cutoff
    FROM inventory_items i
    JOIN locations l ON l.account_id = i.account_id AND l.environment = i.environment AND l.id = i.location_id
    WHERE i.account_id = ${tenant.accountId} AND i.environment = ${tenant.environment} AND i.deleted_at IS NULL
      ${filter.itemIds ? sql`AND i.id = ANY(${filter.itemIds}::text[])` : sql``}
      ${filter.location ? sql`AND i.location_id = ${filter.location}` : sql``}`
}

/** Units used (sold or transferred out) per item per business day in [from, to]; days without usage are absent; ordered by item and day. */
export async function dailyUsage(db: Executor, tenant: Tenant, filter: UsageFilter): Promise<DailyUsage[]> {
  if (filter.itemIds?.length === 0) return []
  // A business day starts at most 2 days before its date at 00:00 UTC and ends within 3 days after it:
  // coarse bounds on sold_at for the index, refined on the day itself.
  const result = await sql<{ item_id: string; day: string; units: string }>`
    WITH calendar AS MATERIALIZED (${calendars(tenant, filter)}),
    usage AS (
      SELECT u.item_id, business_day(u.sold_at, c.timezone, c.cutoff) AS day, u.units
      FROM calendar c
      JOIN stock_sale_usage u ON u.item_id = c.item_id
        ${filter.from ? sql`AND u.sold_at >= ${filter.from}::date - 2` : sql``}
        AND u.sold_at < ${filter.to}::date + 3
      UNION ALL
      SELECT o.item_id, business_day(o.occurred_at, c.timezone, c.cutoff), o.quantity
      FROM calendar c
      JOIN stock_operation_lines o ON o.item_id = c.item_id AND o.kind = 'transfer_out' AND o.voided_at IS NULL
        ${filter.from ? sql`AND o.occurred_at >= ${filter.from}::date - 2` : sql``}
        AND o.occurred_at < ${filter.to}::date + 3
    )
    SELECT item_id, day::text AS day, sum(units)::text AS units
    FROM usage
    WHERE day <= ${filter.to}::date ${filter.from ? sql`AND day >= ${filter.from}::date` : sql``}
    GROUP BY item_id, day
    ORDER BY item_id, day`.execute(db)
  return result.rows.map((row) => ({ itemId: row.item_id, day: row.day, units: row.units }))
}

/**
 * Each item's first business day with usage, when it is on or before `to` (other items are absent).
 * The business day only grows with the sale time, so the first day is the day of the earliest sale: one
 * index probe per item.
 */
export async function firstUsageDays(db: Executor, tenant: Tenant, filter: Omit<UsageFilter, 'from'>): Promise<Map<string, string>> {
  if (filter.itemIds?.length === 0) return new Map()
  const result = await sql<{ item_id: string; first_day: string }>`
    WITH calendar AS MATERIALIZED (${calendars(tenant, filter)})
    SELECT item_id, first_day::text AS first_day FROM (
      SELECT c.item_id, business_day(first.sold_at, c.timezone, c.cutoff) AS first_day
      FROM calendar c
      CROSS JOIN LATERAL (SELECT least(
        (SELECT min(u.sold_at) FROM stock_sale_usage u WHERE u.item_id = c.item_id),
        (SELECT min(o.occurred_at) FROM stock_operation_lines o WHERE o.item_id = c.item_id AND o.kind = 'transfer_out' AND o.voided_at IS NULL)
      ) AS sold_at) first
      WHERE first.sold_at IS NOT NULL
    ) firsts
    WHERE first_day <= ${filter.to}::date`.execute(db)
  return new Map(result.rows.map((row) => [row.item_id, row.first_day]))
}

/** The tenant's highest usage sequence ('0' without usage): usage rows are numbered as they are recorded. */
export async function latestUsageSequence(db: Executor, tenant: Tenant): Promise<string> {
  const result = await sql<{ latest: string }>`
    SELECT u.sequence::text AS latest FROM stock_sale_usage u
    WHERE u.account_id = ${tenant.accountId} AND u.environment = ${tenant.environment}
    ORDER BY u.sequence DESC LIMIT 1`.execute(db)
  return result.rows[0]?.latest ?? '0'
}

/** A change of history: the first usage row recorded for an earlier business day, and how long ago. */
export interface LateUsage {
  /** When it was recorded (database time). */
  recordedAt: Date
  /** Its age on the database's clock, in milliseconds. */
  ageMs: number
}

/** Where a tenant's reflected history ends: its usage up to `afterSequence`, its business days before the one `asOf` falls in. */
export interface UsageWatermark {
  tenant: Tenant
  afterSequence: string
  asOf: Date
}

/**
 * For each watermark, in order, the first usage row (by sequence) recorded after `afterSequence` for a
 * business day before the one `asOf` falls in (a late sale, or a mapping that applied older sales): when
 * that tenant's history up to the day before `asOf` first changed; undefined when it did not. One
 * statement for all of them, so it is planned once however many tenants (planning over the partitions
 * cost more than the walk). Each walk goes up from its watermark and stops at the first such row, or at
 * the tenant's latest row (read first, through stock_sale_usage_tenant_sequence): planned once for any
 * tenant, the walk runs on the primary key's sequence order with the tenant as a filter, and without that
 * bound a tenant with no rows after its watermark walked every other tenant's rows after it (an
 * environment without sales: 0.45–1.5 s a pass at 5,000,000 lines, each minute, in each instance; 10 ms
 * with it, docs/benchmarks.md, session 21).
 */
export async function firstLateUsages(db: Executor, watermarks: readonly UsageWatermark[]): Promise<(LateUsage | undefined)[]> {
  if (watermarks.length === 0) return []
  const result = await sql<{ ord: string; recorded_at: Date; age_ms: number }>`
    SELECT w.ord::text AS ord, late.recorded_at, (extract(epoch FROM now() - late.recorded_at) * 1000)::float8 AS age_ms
    FROM unnest(
      ${watermarks.map((mark) => mark.tenant.accountId)}::text[],
      ${watermarks.map((mark) => mark.tenant.environment)}::text[],
      ${watermarks.map((mark) => mark.afterSequence)}::bigint[],
      ${watermarks.map((mark) => mark.asOf.toISOString())}::timestamptz[]
    ) WITH ORDINALITY AS w (account_id, environment, after_sequence, as_of, ord)
    CROSS JOIN LATERAL (
      SELECT max(t.sequence) AS latest FROM stock_sale_usage t WHERE t.account_id = w.account_id AND t.environment = w.environment) tenant
    CROSS JOIN LATERAL (
      SELECT u.recorded_at
      FROM stock_sale_usage u
      JOIN inventory_items i ON i.id = u.item_id
      JOIN locations l ON l.account_id = i.account_id AND l.environment = i.environment AND l.id = i.location_id
      WHERE u.sequence > w.after_sequence AND u.sequence <= tenant.latest
        AND u.account_id = w.account_id AND u.environment = w.environment
        AND business_day(u.sold_at, l.timezone, l.business_day_cutoff) < business_day(w.as_of, l.timezone, l.business_day_cutoff)
      ORDER BY u.sequence
      LIMIT 1
    ) late`.execute(db)
  const late: (LateUsage | undefined)[] = watermarks.map(() => undefined)
  for (const row of result.rows) late[Number(row.ord) - 1] = { recordedAt: new Date(row.recorded_at), ageMs: Number(row.age_ms) }
  return late
}
