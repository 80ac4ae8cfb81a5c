import assert from 'node:assert/strict'
import { CompiledQuery } from 'kysely'
import { type Caller, json, type TestContext } from '../helpers/context.js'
import { refitForecasts } from '../../src/analytics/forecast/forecast-refit.js'
import { createConnection } from '../pos/pos-helpers.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

/** A moment `days` days before now at `hour`:00 UTC. */
export function daysAgo(days: number, hour = 12): string {
  const at = new Date(Date.now() - days * DAY_MS)
  at.setUTCHours(hour, 0, 0, 0)
  return at.toISOString()
}

export function dateOf(timestamp: string): string {
  return timestamp.slice(0, 10)
}

/** A sandbox POS connection to import sales into, with helpers to map and sell through the API. */
export async function salesChannel(ctx: TestContext, caller: Caller) {
  const connection = await createConnection(ctx, caller)
  let line = 0
  return {
    connectionId: connection.id,
    async map(posItemId: string, body: Record<string, unknown>) {
      const response = await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, { key: caller.key, body: { pos_item_id: posItemId, ...body } })
      assert.equal(response.statusCode, 201, response.body)
    },
    async sell(lines: { pos_item_id: string; name: string; quantity: number; unit_price: number; sold_at: string; [field: string]: unknown }[]) {
      const sales = lines.map((sale) => ({ location: 'main_bar', line_id: `L${++line}`, ...sale }))
      const response = await ctx.request('POST', '/v1/sales', { key: caller.key, body: { connection_id: connection.id, sales } })
      assert.equal(response.statusCode, 201, response.body)
      return json(response).data
    },
  }
}

/** A refit clock: yesterday noon UTC, so main_bar (UTC, cut-off 04:00) last closed the business day before. */
export function refitClock(): Date {
  return new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS / 2)
}

/**
 * Sells `perDay` bottles of the item on each of the `days` business days before the clock's (mapped one
 * POS unit to one bottle), then refits the tenant's forecasts at the clock, as the worker does.
 */
export async function sellDaily(ctx: TestContext, caller: Caller, itemId: string, days: number, perDay: number, clock = refitClock()) {
  const channel = await salesChannel(ctx, caller)
  await channel.map(`PLU-${itemId}`, { inventory_item_id: itemId, conversion_factor: 1, conversion_unit: 'bottle' })
  await channel.sell(
    Array.from({ length: days }, (_, day) => ({
      pos_item_id: `PLU-${itemId}`,
      name: 'Bottle',
      quantity: perDay,
      unit_price: 20,
      sold_at: new Date(clock.getTime() - (day + 1) * DAY_MS - 3_600_000).toISOString(),
    })),
  )
  await refitForecasts(ctx.database.db, caller.tenant, clock)
}

/** A count line: full units, and open containers' weights for an item with container weights. */
export interface CountedLine {
  item_id: string
  quantity: number
  weight_g?: number
  weights_g?: number[]
}

export async function count(ctx: TestContext, caller: Caller, items: CountedLine[], countedAt?: string, location = 'main_bar') {
  const response = await ctx.request('POST', '/v1/inventory/count', {
    key: caller.key,
    body: { location, counted_by: 'maria', items, ...(countedAt && { counted_at: countedAt }) },
  })
  assert.equal(response.statusCode, 201, response.body)
  return json(response).data
}

/** The daily rollups analytics keeps equal what they sum: usage and deliveries (ledger rows and history lines) per item day, sales per POS item day and per connection and location day, unmapped sales per POS item, name and day. */
export async function assertRollupsMatchRaw(ctx: TestContext, caller: Caller) {
  const tenant = [caller.tenant.accountId, caller.tenant.environment]
  const same = async (rolled: string, raw: string) => {
    const [a, b] = await Promise.all([ctx.database.db.executeQuery(rawQuery(rolled, tenant)), ctx.database.db.executeQuery(rawQuery(raw, tenant))])
    assert.deepEqual(a.rows, b.rows)
  }
  await same(
    `SELECT item_id, business_day::text AS day, usage_units::numeric(24,8)::text AS units, sale_lines::int AS lines, deliveries::numeric(20,4)::text AS deliveries FROM analytics_item_days
     WHERE account_id = $1 AND environment = $2 AND (usage_units <> 0 OR sale_lines <> 0 OR deliveries <> 0) ORDER BY 1, 2`,
    `SELECT item_id, day::text AS day, sum(units)::numeric(24,8)::text AS units, sum(lines)::int AS lines, sum(deliveries)::numeric(20,4)::text AS deliveries FROM (
       SELECT u.item_id, business_day(u.sold_at, l.timezone, l.business_day_cutoff) AS day, u.units, 1 AS lines, 0 AS deliveries
       FROM stock_sale_usage u JOIN locations l ON (l.account_id, l.environment, l.id) = (u.account_id, u.environment, u.location_id)
       WHERE u.account_id = $1 AND u.environment = $2
       UNION ALL
       SELECT m.item_id, business_day(m.occurred_at, l.timezone, l.business_day_cutoff), 0, 0, m.delta
       FROM stock_movements m JOIN locations l ON (l.account_id, l.environment, l.id) = (m.account_id, m.environment, m.location_id)
       WHERE m.account_id = $1 AND m.environment = $2 AND m.kind = 'delivery'
       UNION ALL
       SELECT o.item_id, business_day(o.occurred_at, l.timezone, l.business_day_cutoff), 0, 0, o.quantity
       FROM stock_operation_lines o JOIN locations l ON (l.account_id, l.environment, l.id) = (o.account_id, o.environment, o.location_id)
       WHERE o.account_id = $1 AND o.environment = $2 AND o.kind = 'delivery') x GROUP BY 1, 2 ORDER BY 1, 2`,
  )
  await same(
    `SELECT connection_id, pos_item_id, business_day::text AS day, quantity::numeric(24,4)::text AS quantity, revenue::numeric(24,4)::text AS revenue,
       mapped_revenue::numeric(24,4)::text AS mapped
     FROM analytics_pos_item_days WHERE account_id = $1 AND environment = $2 AND (quantity <> 0 OR revenue <> 0 OR mapped_revenue <> 0)
     ORDER BY 1, 2, 3`,
    // A day whose lines net to nothing (a sale and its return) is no row on either side: a rollup row
    // whose lines went is left at zeros.
    `SELECT * FROM (
       SELECT s.connection_id, s.pos_item_id, business_day(s.sold_at, l.timezone, l.business_day_cutoff)::text AS day,
         sum(s.quantity)::numeric(24,4)::text AS quantity, sum(s.quantity * s.unit_price)::numeric(24,4)::text AS revenue,
         coalesce(sum(s.quantity * s.unit_price) FILTER (WHERE s.depleted), 0)::numeric(24,4)::text AS mapped
       FROM pos_sales s JOIN locations l ON (l.account_id, l.environment, l.id) = (s.account_id, s.environment, s.location_id)
       WHERE s.account_id = $1 AND s.environment = $2 GROUP BY 1, 2, 3) raw
     WHERE (quantity::numeric <> 0 OR revenue::numeric <> 0 OR mapped::numeric <> 0) ORDER BY 1, 2, 3`,
  )
  await same(
    `SELECT connection_id, location_id, business_day::text AS day, revenue::numeric(24,4)::text AS revenue, mapped_revenue::numeric(24,4)::text AS mapped
     FROM analytics_pos_location_days WHERE account_id = $1 AND environment = $2 AND (revenue <> 0 OR mapped_revenue <> 0) ORDER BY 1, 2, 3`,
    `SELECT * FROM (
       SELECT s.connection_id, s.location_id, business_day(s.sold_at, l.timezone, l.business_day_cutoff)::text AS day,
         sum(s.quantity * s.unit_price)::numeric(24,4)::text AS revenue,
         coalesce(sum(s.quantity * s.unit_price) FILTER (WHERE s.depleted), 0)::numeric(24,4)::text AS mapped
       FROM pos_sales s JOIN locations l ON (l.account_id, l.environment, l.id) = (s.account_id, s.environment, s.location_id)
       WHERE s.account_id = $1 AND s.environment = $2 GROUP BY 1, 2, 3) raw
     WHERE (revenue::numeric <> 0 OR mapped::numeric <> 0) ORDER BY 1, 2, 3`,
  )
  await same(
    `SELECT location_id, business_day::text AS day, connection_id, pos_item_id, name, sale_lines::int AS lines, quantity::numeric(24,4)::text AS quantity
     FROM analytics_unmapped_sale_days WHERE account_id = $1 AND environment = $2 AND sale_lines <> 0 ORDER BY 1, 2, 3, 4, 5`,
    `SELECT s.location_id, business_day(s.sold_at, l.timezone, l.business_day_cutoff)::text AS day, s.connection_id, s.pos_item_id, s.name,
       count(*)::int AS lines, sum(s.quantity)::numeric(24,4)::text AS quantity
     FROM pos_sales s JOIN locations l ON (l.account_id, l.environment, l.id) = (s.account_id, s.environment, s.location_id)
     WHERE s.account_id = $1 AND s.environment = $2 AND NOT s.depleted GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`,
  )
}

function rawQuery(text: string, parameters: string[]) {
  return CompiledQuery.raw(text, parameters)
}
