import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { refitForecasts } from '../../src/analytics/forecast/forecast-refit.js'
import { createTestContext, json, type TestContext } from '../helpers/context.js'
import { createItem, createLocations } from '../helpers/inventory.js'
import { refitClock } from './analytics-helpers.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

test('a storeroom’s demand is what the bars draw from it: transfers out are forecast like sales, voided ones are not', async () => {
  const caller = await ctx.newCaller()
  await createLocations(ctx, caller, ['storeroom'])
  const store = await createItem(ctx, caller, {
    name: 'Lager 24-pack',
    sku: 'LAGER',
    unit: 'case',
    case_size: 24,
    size_ml: 355,
    category: 'beer',
    location: 'storeroom',
    quantity: 200,
  })
  const clock = refitClock()
  const transfers: string[] = []
  // Three cases a day to the bar for 21 closed business days, at 18:00 of each.
  for (let day = 1; day <= 21; day++) {
    const response = await ctx.request('POST', '/v1/inventory/transfers', {
      key: caller.key,
      body: {
        from_location: 'storeroom',
        to_location: 'main_bar',
        transferred_by: 'sam',
        transferred_at: new Date(clock.getTime() - day * DAY_MS + 6 * 3_600_000).toISOString(),
        items: [{ item_id: store.id, quantity: 3 }],
      },
    })
    assert.equal(response.statusCode, 201, response.body)
    transfers.push(json(response).data.id)
  }
  await refitForecasts(ctx.database.db, caller.tenant, clock)
  const response = await ctx.request('GET', '/v1/analytics/forecast', { key: caller.key, query: { location: 'storeroom', days_ahead: '7' } })
  assert.equal(response.statusCode, 200, response.body)
  const [forecast] = json(response).data.forecasts
  assert.equal(forecast.inventory_item_id, store.id)
  assert.ok(Math.abs(forecast.forecasted_demand - 21) < 1, `about 3 cases a day for 7 days, got ${forecast.forecasted_demand}`)

  for (const id of transfers.slice(7)) assert.equal((await ctx.request('DELETE', `/v1/inventory/transfers/${id}`, { key: caller.key })).statusCode, 200)
  await refitForecasts(ctx.database.db, caller.tenant, clock)
  const unavailable = await ctx.request('GET', '/v1/analytics/forecast', { key: caller.key, query: { location: 'storeroom' } })
  assert.equal(json(unavailable).error?.code, 'forecast_unavailable', 'only the last seven days of draws left: too short to forecast')
})
