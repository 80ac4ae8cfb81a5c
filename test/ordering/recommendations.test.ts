import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, type Caller, type TestContext } from '../helpers/context.js'
import { createConnection, createPosTestContext } from '../pos/pos-helpers.js'
import { createItem, createLocations } from '../helpers/inventory.js'
import { createDistributor, createOrder, ok } from './fixtures.js'
import { refitForecasts } from '../../src/analytics/forecast/forecast-refit.js'
import { totalErrorStdDev } from '../../src/analytics/forecast/index.js'
import { safetyStock } from '../../src/ordering/safety-stock.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

/** The refit's clock: yesterday noon UTC, so every sale is in the past. main_bar (UTC, cut-off 04:00) last closed the day before. */
const CLOCK = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS / 2)

/**
 * Sells `usage[d]` units of the item on the business day d days before CLOCK's (at 11:00 UTC) through the
 * API: a sandbox connection, a mapping of one POS unit to one item unit, and POST /v1/sales. The sales
 * precede the item's starting stock, so they are history: demand, not a change of stock. Then refits the
 * tenant's stored forecasts at CLOCK, as the background worker does when a business day closes.
 */
async function recordSales(caller: Caller, itemId: string, usage: number[]) {
  const connection = await createConnection(ctx, caller)
  const posItemId = `PLU-${itemId}`
  const item = json(await ctx.request('GET', `/v1/inventory/items/${itemId}`, { key: caller.key })).data
  const mapped = await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
    key: caller.key,
    body: { pos_item_id: posItemId, inventory_item_id: itemId, conversion_factor: 1, conversion_unit: item.unit },
  })
  assert.equal(mapped.statusCode, 201, mapped.body)
  const sales = usage
    .map((used, daysAgo) => ({ used, daysAgo }))
    .filter(({ used }) => used > 0)
    .map(({ used, daysAgo }) => ({
      location: 'main_bar',
      pos_item_id: posItemId,
      name: 'Bottle',
      quantity: used,
      unit_price: 20,
      sold_at: new Date(CLOCK.getTime() - daysAgo * DAY_MS - 3_600_000).toISOString(),
    }))
  const response = await ctx.request('POST', '/v1/sales', { key: caller.key, body: { connection_id: connection.id, sales } })
  assert.equal(response.statusCode, 201, response.body)
  await refitForecasts(ctx.database.db, caller.tenant, CLOCK)
}

/** `days` closed business days of `perDay` each (index 0, the open day, sells nothing). */
function closedDays(days: number, perDay: number | ((day: number) => number)): number[] {
  return [0, ...Array.from({ length: days }, (_, day) => (typeof perDay === 'number' ? perDay : perDay(day)))]
}

/** The stored forecast of an item, read back to check the numbers the answer is built from. */
async function storedForecast(itemId: string) {
  const row = await ctx.database.db
    .selectFrom('demand_forecasts')
    .select(['daily', 'daily_error_stdev', 'horizon_error_stdev'])
    .where('item_id', '=', itemId)
    .executeTakeFirstOrThrow()
  const horizonStdDev = row.horizon_error_stdev === null ? null : Number(row.horizon_error_stdev)
  return { daily: (row.daily as unknown[]).map(Number), stdDev: Number(row.daily_error_stdev), horizonStdDev }
}

const round4 = (value: number) => Number(value.toFixed(4))

async function recommendations(caller: Caller, query = '') {
  const response = await ctx.request('GET', `/v1/orders/recommendations${query}`, { key: caller.key })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).data
}

describe('GET /v1/orders/recommendations', () => {
  test('answers an empty list and a total of 0 without any sales history', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    await createItem(ctx, caller)
    const data = await recommendations(caller)
    assert.deepEqual(data.recommendations, [])
    assert.equal(data.total_recommended_amount, 0)
    assert.equal(data.location, 'all')
    const today = new Date().toISOString().slice(0, 10)
    const week = new Date(Date.now() + 7 * DAY_MS).toISOString().slice(0, 10)
    assert.equal(data.forecast_period, `${today}/${week}`)
  })

  test('orders forecast demand over days_ahead minus stock for a steady seller, leaving out items with under 14 days of history', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const steady = await createItem(ctx, caller, { name: 'Steady', quantity: 10, cost_per_unit: 18.5 })
    const fresh = await createItem(ctx, caller, { name: 'Fresh', quantity: 0 })
    await recordSales(caller, steady.id, closedDays(35, 2))
    await recordSales(caller, fresh.id, closedDays(13, 5))
    const data = await recommendations(caller)
    assert.equal(data.recommendations.length, 1)
    const [line] = data.recommendations
    // 2 a day over 7 days = 14; the back-test missed by 0, so no safety stock and confidence 1; 10 in stock: order 4.
    assert.deepEqual(
      { ...line, reason: undefined },
      {
        inventory_item_id: steady.id,
        name: 'Steady',
        current_stock: 10,
        forecasted_demand: 14,
        recommended_order: 4,
        unit: 'bottle',
        reason: undefined,
        confidence: 1,
        par_level: null,
        transfer_from: [],
      },
    )
    assert.equal(
      line.reason,
      'Forecast demand of 14 bottle over 7 days, plus 0 bottle safety stock (95 % service level), less 10 bottle in stock and 0 bottle on order, leaves 4 bottle short: order 4 bottle.',
    )
    assert.equal(data.total_recommended_amount, 74)
    // Past the 30 stored days, each day is the mean of the last 7: 40 days of 2.
    const long = await recommendations(caller, '?days_ahead=40')
    assert.deepEqual([long.recommendations[0].forecasted_demand, long.recommendations[0].recommended_order], [80, 70])
  })

  test('adds safety stock for a variable seller and the lead time of the distributor, rounds up to cases, and subtracts what is on order', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const distributor = await createDistributor(ctx, caller, { lead_time_days: 3 })
    const item = await createItem(ctx, caller, { name: 'Lager', unit: 'can', size_ml: 355, quantity: 5, case_size: 24, cost_per_unit: 1 })
    // 30 closed days alternating 10 and 0.
    await recordSales(
      caller,
      item.id,
      closedDays(30, (day) => (day % 2 === 0 ? 10 : 0)),
    )
    const stored = await storedForecast(item.id)
    // 7 days ahead plus 3 days lead time: the first 10 stored days, safety stock from the stored errors over 10 days.
    const demand = round4(stored.daily.slice(0, 10).reduce((total, value) => total + value, 0))
    assert.ok(stored.horizonStdDev !== null, 'the refit stores the error of a 14-day total')
    const safety = safetyStock(
      stored.daily.slice(0, 10).reduce((total, value) => total + value, 0),
      totalErrorStdDev(stored.stdDev, stored.horizonStdDev, 10),
    )
    // The skewed percentile lies above the normal one of independent days (1.645 × daily error × √10).
    assert.ok(safety > 1.645 * stored.stdDev * Math.sqrt(10), `safety stock ${safety}, daily error ${stored.stdDev}`)

    const before = await recommendations(caller, `?distributor_id=${distributor.id}`)
    const [line] = before.recommendations
    assert.equal(line.forecasted_demand, demand)
    assert.ok(line.confidence >= 0 && line.confidence <= 1)
    // demand + safety - 5 in stock, rounded up to whole cases of 24.
    const expected = Math.ceil((demand + safety - 5) / 24) * 24
    assert.equal(line.recommended_order, expected)
    assert.equal(before.total_recommended_amount, expected)
    assert.match(line.reason, new RegExp(`over 7 days plus 3 days lead time.*order ${expected} can \\(${expected / 24} cases of 24\\)\\.$`))

    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 2, unit: 'case' }])
    const draftOnly = await recommendations(caller, `?distributor_id=${distributor.id}`)
    assert.equal(draftOnly.recommendations[0].recommended_order, expected, 'a draft is not on order')
    await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/submit`)
    const after = await recommendations(caller, `?distributor_id=${distributor.id}`)
    assert.equal(after.recommendations[0].recommended_order, Math.ceil((demand + safety - 5 - 48) / 24) * 24)
  })

  test('with a distributor, only items it sells count, priced from its catalog; days_ahead scales demand', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const distributor = await createDistributor(ctx, caller, { lead_time_days: 0, supported_categories: ['spirits'] })
    const rum = await createItem(ctx, caller, { name: 'Rum', quantity: 0, cost_per_unit: 20 })
    const wine = await createItem(ctx, caller, { name: 'Wine', category: 'wine', quantity: 0 })
    await recordSales(caller, rum.id, closedDays(28, 1))
    await recordSales(caller, wine.id, closedDays(28, 1))
    await ok(ctx, caller, 'PUT', `/v1/distributors/${distributor.id}/catalog`, [{ inventory_item_id: rum.id, unit: 'bottle', unit_price: 12.5 }])
    const data = await recommendations(caller, `?distributor_id=${distributor.id}&days_ahead=14&location=main_bar`)
    assert.deepEqual(
      data.recommendations.map((line: any) => [line.name, line.recommended_order]),
      [['Rum', 14]],
    )
    assert.equal(data.total_recommended_amount, 175)
    assert.equal(data.location, 'main_bar')
    const everyone = await recommendations(caller)
    assert.deepEqual(everyone.recommendations.map((line: any) => line.name).sort(), ['Rum', 'Wine'])
  })

  test('orders an item under 14 days of history up to its par, less stock and what is on order, in whole cases; items without a par or at it are left out', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const distributor = await createDistributor(ctx, caller, { lead_time_days: 0 })
    const fresh = await createItem(ctx, caller, { name: 'Fresh', quantity: 3, par_level: 12, case_size: 6, cost_per_unit: 10 })
    await createItem(ctx, caller, { name: 'Stocked', quantity: 5, par_level: 5 })
    await createItem(ctx, caller, { name: 'No par', quantity: 0 })
    await recordSales(caller, fresh.id, closedDays(13, 5))
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: fresh.id, quantity: 1, unit: 'case' }])
    await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/submit`)

    const data = await recommendations(caller)
    assert.equal(data.recommendations.length, 1)
    const [line] = data.recommendations
    // 12 − 3 in stock − 6 on order = 3 short, rounded up to a whole case of 6.
    assert.deepEqual(
      { ...line, reason: undefined },
      {
        inventory_item_id: fresh.id,
        name: 'Fresh',
        current_stock: 3,
        forecasted_demand: 0,
        recommended_order: 6,
        unit: 'bottle',
        reason: undefined,
        confidence: 0,
        par_level: 12,
        transfer_from: [],
      },
    )
    assert.equal(
      line.reason,
      'No demand forecast yet (under 14 days of sales history): ordering up to the par level of 12 bottle, less 3 bottle in stock and 6 bottle on order, leaves 3 bottle short: order 6 bottle (1 cases of 6).',
    )
    assert.equal(data.total_recommended_amount, 60)
  })

  test('proposes a transfer from a location holding the SKU above its par before buying, each surplus once', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    await createLocations(ctx, caller, ['storeroom', 'restaurant'])
    const beer = { name: 'Lager 355ml', sku: 'LAGER', unit: 'bottle', size_ml: 355, category: 'beer', cost_per_unit: 1.5 }
    await createItem(ctx, caller, {
      ...beer,
      sku: 'LAGER',
      name: 'Lager 24-pack',
      unit: 'case',
      case_size: 24,
      location: 'storeroom',
      quantity: 3,
      par_level: 1,
      cost_per_unit: 36,
    })
    const bar = await createItem(ctx, caller, { ...beer, quantity: 0, par_level: 24 })
    const restaurant = await createItem(ctx, caller, { ...beer, location: 'restaurant', quantity: 12, par_level: 48 })

    const data = await recommendations(caller)
    const byItem = new Map(data.recommendations.map((line: { inventory_item_id: string }) => [line.inventory_item_id, line]))
    // The storeroom holds 2 cases (48 bottles) above its par of 1: the bar (most urgent: nothing left) takes 24, the restaurant (36 short) the other 24 and buys 12.
    const barLine = byItem.get(bar.id) as { transfer_from: unknown; recommended_order: number; reason: string }
    assert.deepEqual([barLine.transfer_from, barLine.recommended_order], [[{ location: 'storeroom', quantity: 24 }], 0])
    assert.match(barLine.reason, /transfer 24 bottle from storeroom first/)
    const restaurantLine = byItem.get(restaurant.id) as { transfer_from: unknown; recommended_order: number }
    assert.deepEqual([restaurantLine.transfer_from, restaurantLine.recommended_order], [[{ location: 'storeroom', quantity: 24 }], 12])
    assert.equal(data.total_recommended_amount, 18, 'only the 12 bottles no transfer covers are bought')
    assert.deepEqual(
      (await recommendations(caller, '?location=restaurant')).recommendations.map((line: { transfer_from: unknown }) => line.transfer_from),
      [[{ location: 'storeroom', quantity: 36 }]],
    )
  })

  test('orders up to par where the par asks for more than the forecast, and says so; the forecast where it asks for more', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const parDecides = await createItem(ctx, caller, { name: 'Par decides', quantity: 10, par_level: 30 })
    const forecastDecides = await createItem(ctx, caller, { name: 'Forecast decides', quantity: 10, par_level: 12 })
    await recordSales(caller, parDecides.id, closedDays(35, 2))
    await recordSales(caller, forecastDecides.id, closedDays(35, 2))
    const lines = new Map((await recommendations(caller)).recommendations.map((line: any) => [line.name, line]))
    // Both forecast 14 over 7 days without safety stock; 10 in stock.
    const byPar = lines.get('Par decides') as any
    assert.deepEqual([byPar.forecasted_demand, byPar.recommended_order, byPar.par_level, byPar.confidence], [14, 20, 30, 1])
    assert.equal(
      byPar.reason,
      'Forecast demand of 14 bottle over 7 days, plus 0 bottle safety stock (95 % service level), is under the par level of 30 bottle, so the order fills up to par: 30 bottle, less 10 bottle in stock and 0 bottle on order, leaves 20 bottle short: order 20 bottle.',
    )
    const byForecast = lines.get('Forecast decides') as any
    assert.deepEqual([byForecast.recommended_order, byForecast.par_level], [4, 12])
    assert.match(byForecast.reason, /^Forecast demand of 14 bottle over 7 days, plus 0 bottle safety stock \(95 % service level\), less 10 bottle/)
  })

  test('rejects an unknown distributor with distributor_not_found, an unknown location with location_not_found, and days_ahead 0', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const cases: Array<[string, number, string]> = [
      ['?distributor_id=dist_nope', 404, 'distributor_not_found'],
      ['?location=rooftop', 404, 'location_not_found'],
      ['?days_ahead=0', 400, 'invalid_parameter'],
    ]
    for (const [query, status, code] of cases) {
      const response = await ctx.request('GET', `/v1/orders/recommendations${query}`, { key: caller.key })
      assert.equal(response.statusCode, status, query)
      assert.equal(json(response).error.code, code)
    }
  })
})
