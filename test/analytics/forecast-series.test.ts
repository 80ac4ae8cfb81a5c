import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createPosTestContext } from '../pos/pos-helpers.js'
import { sellDaily } from './analytics-helpers.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

describe('GET /v1/analytics/forecast/items/:id', () => {
  test('answers eight weeks of daily usage, then the 30 forecast days with a band around them', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const rum = await createItem(ctx, caller, { name: 'Bacardí Superior Rum 750ml', quantity: 0 })
    await sellDaily(ctx, caller, rum.id, 28, 2)
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
