import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createPosTestContext } from '../pos/pos-helpers.js'
import { count, dateOf, daysAgo, salesChannel } from './analytics-helpers.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

async function performance(caller: Caller, query: Record<string, string> = {}) {
  const response = await ctx.request('GET', '/v1/analytics/performance', { key: caller.key, query })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).data
}

/** The current period: 14 business days up to today; the previous one is the 14 days before. */
const CURRENT = { date_from: dateOf(daysAgo(13)), date_to: dateOf(daysAgo(0)) }

/**
 * Two items over two periods. Vodka (750 ml bottle, $20) sells 30 ml pours (0.04 bottle, $0.80 of
 * cost); lager ($1.25 a can) sells by the can. Counts 27, 14 and 1 days ago: the previous period's window
 * runs from day 27 to day 14, the current one's from day 14 to day 1 (13 days each).
 *   previous: vodka 10 → 7.5 with 50 pours sold at $8; lager 96 → 72 with 24 cans sold at $5.
 *   current:  vodka 7.5 → 3.3 with 100 pours sold at $6; lager 72 → 24 with 48 cans sold at $5;
 *             10 unmapped house shots at $4.
 */
async function barHistory(caller: Caller) {
  const vodka = await createItem(ctx, caller, { name: 'Vodka 750ml', size_ml: 750, quantity: 3, cost_per_unit: 20 })
  const lager = await createItem(ctx, caller, { name: 'Lager Can', unit: 'can', size_ml: 355, category: 'beer', quantity: 24, cost_per_unit: 1.25 })
  const pos = await salesChannel(ctx, caller)
  await pos.map('VODKA-30', { inventory_item_id: vodka.id, conversion_factor: 30, conversion_unit: 'ml' })
  await pos.map('LAGER', { inventory_item_id: lager.id, conversion_factor: 1, conversion_unit: 'can' })
  await count(
    ctx,
    caller,
    [
      { item_id: vodka.id, quantity: 10 },
      { item_id: lager.id, quantity: 96 },
    ],
    daysAgo(27),
  )
  await count(
    ctx,
    caller,
    [
      { item_id: vodka.id, quantity: 7.5 },
      { item_id: lager.id, quantity: 72 },
    ],
    daysAgo(14),
  )
  await count(
    ctx,
    caller,
    [
      { item_id: vodka.id, quantity: 3.3 },
      { item_id: lager.id, quantity: 24 },
    ],
    daysAgo(1),
  )
  await pos.sell([
    { pos_item_id: 'VODKA-30', name: 'Vodka 30ml', quantity: 50, unit_price: 8, sold_at: daysAgo(20, 21) },
    { pos_item_id: 'LAGER', name: 'Lager', quantity: 24, unit_price: 5, sold_at: daysAgo(20, 22) },
    { pos_item_id: 'VODKA-30', name: 'Vodka 30ml', quantity: 100, unit_price: 6, sold_at: daysAgo(7, 21) },
    { pos_item_id: 'LAGER', name: 'Lager', quantity: 48, unit_price: 5, sold_at: daysAgo(7, 22) },
    { pos_item_id: 'HOUSE-SHOT', name: 'House Shot', quantity: 10, unit_price: 4, sold_at: daysAgo(7, 23) },
  ])
  return { vodka, lager, pos }
}

describe('GET /v1/analytics/performance', () => {
  test('computes the four metrics, their status against the targets and their trends against the previous period', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    await barHistory(caller)
    const data = await performance(caller, CURRENT)
    assert.equal(data.period, `${CURRENT.date_from}/${CURRENT.date_to}`)
    assert.equal(data.previous_period, `${dateOf(daysAgo(27))}/${dateOf(daysAgo(14))}`)
    assert.equal(data.location, 'all')
    assert.equal(data.currency, 'USD')
    assert.deepEqual(data.metrics, {
      // Mapped lines only: cost 100 pours × 0.04 × $20 + 48 × $1.25 = $80 + $60 = $140; revenue $600 + $240 = $840
      // (the $40 of house shots used no stock). 140 / 840 × 100 = 16.666… → 16.67, below 20 by more than 5 % of it (1).
      pour_cost: { value: 16.67, target: 20, status: 'below_target' },
      // Windows day 14 → day 1: vodka used 4.2 against 4 sold, 0.2 × $20 = $4; lager used 48 of 48.
      // $4 / ($80 + $60) × 100 = 2.857… → 2.86: within 5 % of 3 (0.15).
      variance_rate: { value: 2.86, target: 3, status: 'on_target' },
      // Usage cost 4.2 × $20 + 48 × $1.25 = $84 + $60 over 13 days, per 30 days: 144 × 30 / 13 = 332.307…;
      // average value (7.5 + 3.3) / 2 × $20 + (72 + 24) / 2 × $1.25 = $108 + $60 = $168. 332.307… / 168 = 1.978… → 1.98.
      inventory_turnover: { value: 1.98, target: 4, status: 'below_target' },
      // (840 − 140) / 840 × 100 = 83.333… → 83.33, above 75 by more than 3.75.
      gross_margin: { value: 83.33, target: 75, status: 'above_target' },
    })
    // Previous period: cost 50 × $0.80 + 24 × $1.25 = $40 + $30 = $70 on $400 + $120 = $520.
    //   pour_cost 70 / 520 = 13.46: now 16.67, up 3.21, more than 5 % of 13.46 (0.67): increasing.
    //   variance_rate: vodka 2.5 used against 2 sold, 0.5 × $20 = $10; 10 / 70 = 14.29: now 2.86, decreasing.
    //   turnover: (2.5 × $20 + 24 × $1.25) × 30 / 13 / ((10 + 7.5) / 2 × $20 + (96 + 72) / 2 × $1.25) = 184.615… / 280 = 0.66: increasing.
    //   gross_margin 450 / 520 = 86.54: now 83.33, down 3.21, less than 5 % of 86.54 (4.33): stable.
    assert.deepEqual(data.trends, { pour_cost: 'increasing', variance_rate: 'decreasing', inventory_turnover: 'increasing', gross_margin: 'stable' })
    const previous = await performance(caller, { date_from: dateOf(daysAgo(27)), date_to: dateOf(daysAgo(14)) })
    assert.deepEqual(Object.fromEntries(Object.entries(previous.metrics).map(([name, metric]) => [name, (metric as { value: number }).value])), {
      pour_cost: 13.46,
      variance_rate: 14.29,
      inventory_turnover: 0.66,
      gross_margin: 86.54,
    })
    // Nothing before day 27: every trend of the previous period is stable.
    assert.deepEqual(previous.trends, { pour_cost: 'stable', variance_rate: 'stable', inventory_turnover: 'stable', gross_margin: 'stable' })
  })

  test('uses the settings’ targets: a pour cost within 5 % of its target is on target', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    await barHistory(caller)
    const put = await ctx.request('PUT', '/v1/settings', { key: caller.key, body: { currency: 'EUR', targets: { pour_cost: 17, inventory_turnover: 2 } } })
    assert.equal(put.statusCode, 200, put.body)
    const data = await performance(caller, CURRENT)
    assert.equal(data.currency, 'EUR')
    // |16.67 − 17| = 0.33 ≤ 0.85; |1.98 − 2| = 0.02 ≤ 0.10.
    assert.deepEqual(data.metrics.pour_cost, { value: 16.67, target: 17, status: 'on_target' })
    assert.deepEqual(data.metrics.inventory_turnover, { value: 1.98, target: 2, status: 'on_target' })
  })

  test('filters by location; a metric without data is null with status no_data and a stable trend', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    await barHistory(caller)
    const patio = await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'patio', name: 'Patio' } })
    assert.equal(patio.statusCode, 201, patio.body)
    const wine = await createItem(ctx, caller, { name: 'House Red 750ml', category: 'wine', location: 'patio', quantity: 5, cost_per_unit: 10 })
    await count(ctx, caller, [{ item_id: wine.id, quantity: 5 }], daysAgo(10), 'patio')
    await count(ctx, caller, [{ item_id: wine.id, quantity: 4 }], daysAgo(2), 'patio')
    const data = await performance(caller, { ...CURRENT, location: 'patio' })
    assert.equal(data.location, 'patio')
    assert.deepEqual(data.metrics, {
      // No sales at the patio.
      pour_cost: { value: null, target: 20, status: 'no_data' },
      // 1 bottle used, none sold: 100 (the variance report's rule).
      variance_rate: { value: 100, target: 3, status: 'above_target' },
      // $10 used over 8 days: 10 × 30 / 8 = 37.5 per 30 days; average value (5 + 4) / 2 × $10 = $45. 37.5 / 45 = 0.83.
      inventory_turnover: { value: 0.83, target: 4, status: 'below_target' },
      gross_margin: { value: null, target: 75, status: 'no_data' },
    })
    assert.deepEqual(data.trends, { pour_cost: 'stable', variance_rate: 'stable', inventory_turnover: 'stable', gross_margin: 'stable' })
    const main = await performance(caller, { ...CURRENT, location: 'main_bar' })
    assert.deepEqual([main.metrics.pour_cost.value, main.metrics.variance_rate.value, main.metrics.inventory_turnover.value], [16.67, 2.86, 1.98])
    // All locations: the wine's $10 joins the variance ($4 + $10) / $140 = 10.
    assert.equal((await performance(caller, CURRENT)).metrics.variance_rate.value, 10)
  })

  test('defaults to the last 30 days and answers insufficient_data, invalid_date_range, invalid_parameter, location_not_found and 403', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const pos = await salesChannel(ctx, caller)
    // Only an unmapped line: no metric can be computed.
    await pos.sell([{ pos_item_id: 'HOUSE-SHOT', name: 'House Shot', quantity: 10, unit_price: 4, sold_at: daysAgo(3) }])
    const cases: [Record<string, string>, number, string][] = [
      [{}, 400, 'insufficient_data'],
      [{ date_from: '2026-11-10', date_to: '2026-11-01' }, 400, 'invalid_date_range'],
      [{ date_from: '2025-01-01', date_to: '2026-01-02' }, 400, 'invalid_date_range'],
      [{ date_from: '2026-02-30' }, 400, 'invalid_parameter'],
      [{ staff_id: 'S1' }, 400, 'invalid_parameter'],
      [{ location: 'attic' }, 404, 'location_not_found'],
    ]
    for (const [query, status, code] of cases) {
      const response = await ctx.request('GET', '/v1/analytics/performance', { key: caller.key, query })
      assert.equal(response.statusCode, status, JSON.stringify(query))
      assert.equal(json(response).error.code, code, JSON.stringify(query))
    }
    await barHistory(caller)
    const data = await performance(caller)
    assert.equal(data.period, `${dateOf(daysAgo(30))}/${dateOf(daysAgo(0))}`)
    // 30 days back reach the day-27 counts: the windows run from day 27 to day 1, and every sale is in.
    // Cost $40 + $30 + $80 + $60 = $210 on $520 + $840 = $1,360: 15.44.
    assert.equal(data.metrics.pour_cost.value, 15.44)
    const noAnalytics = await ctx.keyFor(caller, ['inventory:read', 'pos:read'])
    const denied = await ctx.request('GET', '/v1/analytics/performance', { key: noAnalytics })
    assert.equal(denied.statusCode, 403)
    assert.equal(json(denied).error.details.required, 'analytics:read')
  })
})
