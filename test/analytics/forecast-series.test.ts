import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { refitForecasts } from '../../src/analytics/forecast-refit.js'
import { type Caller, json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createPosTestContext } from '../pos/pos-helpers.js'
import { DAY_MS, salesChannel } from './analytics-helpers.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

/** The refit's clock: yesterday noon UTC; main_bar (UTC, cut-off 04:00) last closed the day before. */
const CLOCK = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS / 2)

/** Sells `perDay` units of the item on each of the `days` business days before CLOCK's, then refits as the worker does. */
async function sellDaily(caller: Caller, itemId: string, days: number, perDay: number) {
  const channel = await salesChannel(ctx, caller)
  await channel.map(`PLU-${itemId}`, { inventory_item_id: itemId, conversion_factor: 1, conversion_unit: 'bottle' })
  await channel.sell(
    Array.from({ length: days }, (_, day) => ({
      pos_item_id: `PLU-${itemId}`,
      name: 'Bottle',
      quantity: perDay,
      unit_price: 20,
      sold_at: new Date(CLOCK.getTime() - (day + 1) * DAY_MS - 3_600_000).toISOString(),
    })),
  )
  await refitForecasts(ctx.database.db, caller.tenant, CLOCK)
}

describe('GET /v1/analytics/forecast/items/:id', () => {
  test('answers eight weeks of daily usage, then the 30 forecast days with a band around them', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const rum = await createItem(ctx, caller, { name: 'Bacardí Superior Rum 750ml', quantity: 0 })
    await sellDaily(caller, rum.id, 28, 2)
    const response = await ctx.request('GET', `/v1/analytics/forecast/items/${rum.id}`, { key: caller.key })
    assert.equal(response.statusCode, 200, response.body)
    const series = json(response).data
    assert.equal(series.unit, 'bottle')
    assert.equal(series.history.length, 56)
    assert.deepEqual(
      series.history.slice(-28).map((day: { quantity: number }) => day.quantity),
      new Array(28).fill(2),
    )
    assert.ok(series.history.slice(0, 28).every((day: { quantity: number }) => day.quantity === 0))
    assert.equal(series.forecast.length, 30)
    const lastHistory = new Date(`${series.history.at(-1).date}T00:00:00Z`).getTime()
    assert.equal(new Date(`${series.forecast[0].date}T00:00:00Z`).getTime() - lastHistory, DAY_MS, 'the forecast follows the history')
    for (const day of series.forecast) assert.ok(day.low >= 0 && day.low <= day.quantity && day.quantity <= day.high, JSON.stringify(day))
  })

  test('answers 404 item_not_found for an unknown item and 400 forecast_unavailable for an item without history', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const fresh = await createItem(ctx, caller)
    const unknown = await ctx.request('GET', '/v1/analytics/forecast/items/item_nope', { key: caller.key })
    assert.equal(unknown.statusCode, 404)
    assert.equal(json(unknown).error.code, 'item_not_found')
    const unavailable = await ctx.request('GET', `/v1/analytics/forecast/items/${fresh.id}`, { key: caller.key })
    assert.equal(unavailable.statusCode, 400)
    assert.equal(json(unavailable).error.code, 'forecast_unavailable')
    assert.deepEqual(json(unavailable).error.details, { inventory_item_id: fresh.id })
  })
})
