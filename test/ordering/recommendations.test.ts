import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, type Caller, type TestContext } from '../helpers/context.js'
import { createConnection, createPosTestContext } from '../pos/pos-helpers.js'
import { createItem } from '../helpers/inventory.js'
import { createDistributor, createOrder, ok } from './fixtures.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

const DAY_MS = 86_400_000

/**
 * Sells `usage[d]` units of the item d days ago (an hour before now - d days) through the API: a sandbox
 * connection, a mapping of one POS unit to one item unit, and POST /v1/sales. The sales precede the
 * item's starting stock, so they are history: demand, not a change of stock.
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
  const now = Date.now()
  const sales = usage
    .map((used, daysAgo) => ({ used, daysAgo }))
    .filter(({ used }) => used > 0)
    .map(({ used, daysAgo }) => ({
      location: 'main_bar',
      pos_item_id: posItemId,
      name: 'Bottle',
      quantity: used,
      unit_price: 20,
      sold_at: new Date(now - daysAgo * DAY_MS - 3_600_000).toISOString(),
    }))
  const response = await ctx.request('POST', '/v1/sales', { key: caller.key, body: { connection_id: connection.id, sales } })
  assert.equal(response.statusCode, 201, response.body)
}

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

  test('orders demand over days_ahead minus stock for a steady seller, leaving out items with under 14 days of history', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const steady = await createItem(ctx, caller, { name: 'Steady', quantity: 10, cost_per_unit: 18.5 })
    const fresh = await createItem(ctx, caller, { name: 'Fresh', quantity: 0 })
    await recordSales(caller, steady.id, Array(20).fill(2))
    await recordSales(caller, fresh.id, Array(13).fill(5))
    const data = await recommendations(caller)
    assert.equal(data.recommendations.length, 1)
    const [line] = data.recommendations
    // 2 a day over 7 days = 14, no spread so no safety stock, 10 in stock: order 4.
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
        confidence: 0.71,
      },
    )
    assert.match(line.reason, /2 bottle a day/)
    assert.equal(data.total_recommended_amount, 74)
  })

  test('adds safety stock for a variable seller and the lead time of the distributor, rounds up to cases, and subtracts what is on order', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const distributor = await createDistributor(ctx, caller, { lead_time_days: 3 })
    const item = await createItem(ctx, caller, { name: 'Lager', unit: 'can', size_ml: 355, quantity: 5, case_size: 24, cost_per_unit: 1 })
    // 28 days alternating 10 and 0: mean 5 a day.
    await recordSales(caller, item.id, Array.from({ length: 30 }, (_, day) => (day % 2 === 0 ? 10 : 0)))
    const values: number[] = Array.from({ length: 28 }, (_, day) => (day % 2 === 0 ? 10 : 0))
    const stdDev = Math.sqrt(values.reduce((total, value) => total + (value - 5) ** 2, 0) / 27)
    const safety = 1.65 * stdDev * Math.sqrt(10)

    const before = await recommendations(caller, `?distributor_id=${distributor.id}`)
    const [line] = before.recommendations
    assert.equal(line.forecasted_demand, 50)
    assert.equal(line.confidence, 1)
    // 50 + safety - 5 in stock, rounded up to whole cases of 24.
    const expected = Math.ceil((50 + safety - 5) / 24) * 24
    assert.equal(line.recommended_order, expected)
    assert.equal(before.total_recommended_amount, expected)

    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 2, unit: 'case' }])
    const draftOnly = await recommendations(caller, `?distributor_id=${distributor.id}`)
    assert.equal(draftOnly.recommendations[0].recommended_order, expected, 'a draft is not on order')
    await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/submit`)
    const after = await recommendations(caller, `?distributor_id=${distributor.id}`)
    assert.equal(after.recommendations[0].recommended_order, Math.ceil((50 + safety - 5 - 48) / 24) * 24)
  })

  test('with a distributor, only items it sells count, priced from its catalog; days_ahead scales demand', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const distributor = await createDistributor(ctx, caller, { lead_time_days: 0, supported_categories: ['spirits'] })
    const rum = await createItem(ctx, caller, { name: 'Rum', quantity: 0, cost_per_unit: 20 })
    const wine = await createItem(ctx, caller, { name: 'Wine', category: 'wine', quantity: 0 })
    await recordSales(caller, rum.id, Array(28).fill(1))
    await recordSales(caller, wine.id, Array(28).fill(1))
    await ok(ctx, caller, 'PUT', `/v1/distributors/${distributor.id}/catalog`, [{ inventory_item_id: rum.id, unit: 'bottle', unit_price: 12.5 }])
    const data = await recommendations(caller, `?distributor_id=${distributor.id}&days_ahead=14&location=main_bar`)
    assert.deepEqual(data.recommendations.map((line: any) => [line.name, line.recommended_order]), [['Rum', 14]])
    assert.equal(data.total_recommended_amount, 175)
    assert.equal(data.location, 'main_bar')
    const everyone = await recommendations(caller)
    assert.deepEqual(everyone.recommendations.map((line: any) => line.name).sort(), ['Rum', 'Wine'])
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
