import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createConnection, createPosTestContext } from '../pos/pos-helpers.js'
import { refitForecasts } from '../../src/analytics/forecast/forecast-refit.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

/** The workers' clock: Saturday 20 Dec 2025, noon UTC. main_bar (UTC, cut-off 04:00) last closed 19 Dec; forecasts start 20 Dec. */
const NOW = new Date('2025-12-20T12:00:00.000Z')
/** Over two years of history: Christmas 2023 and 2024 and the weeks around them are in it. */
const HISTORY_DAYS = 800
const CHRISTMAS = '2025-12-25'
const NEW_YEAR = '2026-01-01'

const dateOf = (daysBefore: number) => new Date(NOW.getTime() - daysBefore * DAY_MS).toISOString().slice(0, 10)

/**
 * A caller whose main_bar is in the US, selling one mapped item through POST /v1/sales: Fri and Sat 12,
 * other days 3, over HISTORY_DAYS closed business days, nothing on the days in `closedOn`.
 */
async function barWithHistory(closedOn: string[]): Promise<{ caller: Caller; itemId: string }> {
  const caller = await ctx.newCaller({ environment: 'sandbox' })
  const updated = await ctx.request('PUT', '/v1/locations/main_bar', { key: caller.key, body: { country: 'US' } })
  assert.equal(updated.statusCode, 200, updated.body)
  const item = await createItem(ctx, caller, { name: 'Lager', unit: 'can', size_ml: 355, category: 'beer', quantity: 30, reorder_point: 12 })
  const connection = await createConnection(ctx, caller)
  const mapped = await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
    key: caller.key,
    body: { pos_item_id: 'PLU-LAGER', inventory_item_id: item.id, conversion_factor: 1, conversion_unit: 'can' },
  })
  assert.equal(mapped.statusCode, 201, mapped.body)
  const sales = Array.from({ length: HISTORY_DAYS }, (_, index) => dateOf(index + 1))
    .filter((day) => !closedOn.includes(day))
    .map((day, line) => {
      const weekday = new Date(`${day}T00:00:00Z`).getUTCDay()
      const quantity = weekday === 5 || weekday === 6 ? 12 : 3
      return { location: 'main_bar', pos_item_id: 'PLU-LAGER', name: 'Lager', quantity, unit_price: 6, sold_at: `${day}T11:00:00.000Z`, line_id: `line-${line}` }
    })
  const sold = await ctx.request('POST', '/v1/sales', { key: caller.key, body: { connection_id: connection.id, sales } })
  assert.equal(sold.statusCode, 201, sold.body)
  return { caller, itemId: item.id }
}

async function fortnight(caller: Caller) {
  const response = await ctx.request('GET', '/v1/analytics/forecast?days_ahead=14', { key: caller.key })
  assert.equal(response.statusCode, 200, response.body)
  const [line] = json(response).data.forecasts
  assert.ok(line)
  return line
}

async function series(caller: Caller, itemId: string): Promise<Map<string, number>> {
  const response = await ctx.request('GET', `/v1/analytics/forecast/items/${itemId}`, { key: caller.key })
  assert.equal(response.statusCode, 200, response.body)
  return new Map(json(response).data.forecast.map((day: { date: string; quantity: number }) => [day.date, day.quantity]))
}

test('a bar closed on the last two Christmas Days forecasts 0 for the next one and says so; a holiday it opened on as usual is an ordinary day', async () => {
  const open = await barWithHistory([])
  const closed = await barWithHistory(['2023-12-25', '2024-12-25'])
  await refitForecasts(ctx.database.db, open.caller.tenant, NOW)
  await refitForecasts(ctx.database.db, closed.caller.tenant, NOW)

  const openDays = await series(open.caller, open.itemId)
  const closedDays = await series(closed.caller, closed.itemId)
  // Both histories hold the same last 203 days (the model's input): the forecasts differ on Christmas only.
  assert.ok((openDays.get(CHRISTMAS) ?? 0) > 2, `an ordinary Thursday for the bar that opened: ${openDays.get(CHRISTMAS)}`)
  assert.equal(closedDays.get(CHRISTMAS), 0)
  for (const [date, quantity] of openDays) {
    if (date !== CHRISTMAS) assert.equal(closedDays.get(date), quantity, date)
  }

  const closedLine = await fortnight(closed.caller)
  assert.ok(closedLine.factors.events.includes('Christmas Day'))
  assert.deepEqual(closedLine.factors.holiday_effects, [{ date: CHRISTMAS, holiday: 'Christmas Day', factor: 0 }])
  const openLine = await fortnight(open.caller)
  assert.ok(openLine.factors.events.includes("New Year's Day") && openLine.factors.events.includes('Christmas Day'))
  assert.deepEqual(openLine.factors.holiday_effects, [], 'sales as usual on past holidays change no day')
  assert.equal(closedDays.get(NEW_YEAR), openDays.get(NEW_YEAR), 'New Year’s Day, open on past ones, is an ordinary Thursday')
  assert.equal(Number((closedLine.forecasted_demand + (openDays.get(CHRISTMAS) ?? 0)).toFixed(4)), openLine.forecasted_demand)
})

test('a holiday closed only once in two years is an ordinary day: the evidence is too thin', async () => {
  const once = await barWithHistory(['2024-12-25'])
  await refitForecasts(ctx.database.db, once.caller.tenant, NOW)
  const line = await fortnight(once.caller)
  assert.deepEqual(line.factors.holiday_effects, [])
  assert.ok(((await series(once.caller, once.itemId)).get(CHRISTMAS) ?? 0) > 2)
})
