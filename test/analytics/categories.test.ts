import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { decimal } from '../../src/platform/decimal.js'
import { type PeriodLine, revenueByItem } from '../../src/analytics/reports/period-facts.js'
import { json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createPosTestContext } from '../pos/pos-helpers.js'
import { count, dateOf, daysAgo, salesChannel } from './analytics-helpers.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

async function categories(caller: Caller, query: Record<string, string> = {}) {
  const response = await ctx.request('GET', '/v1/analytics/categories', { key: caller.key, query })
  assert.equal(response.statusCode, 200, response.body)
  return json(response)
}

/** Ten business days, 30 to 21 days ago; counts 31 and 21 days ago bound the windows. */
const PERIOD = { date_from: dateOf(daysAgo(30)), date_to: dateOf(daysAgo(21)) }

/**
 * 30 ml pours are 0.04 of a 750 ml bottle.
 *   spirits: vodka ($20) 100 pours at $8, counted 10 → 5.9 (4.1 used against 4 sold: +$2);
 *            gin ($25) 20 pours at $10, counted 3 → 2.3 (0.7 used against 0.8 sold: −$2.50);
 *            rum ($18) 10 pours at $7, never counted.
 *   beer:    lager ($1.25) 24 cans at $5, counted 48 → 23 (25 against 24: +$1.25).
 *   mixer:   tonic ($0.50) never sold, counted 10 → 8 (+$1).
 *   wine:    a bottle with neither sales nor counts; plus an unmapped line, and vodka sold before the period.
 */
async function categoryHistory(caller: Caller) {
  const vodka = await createItem(ctx, caller, { name: 'Vodka 750ml', quantity: 5.9, cost_per_unit: 20 })
  const gin = await createItem(ctx, caller, { name: 'Gin 750ml', quantity: 2.3, cost_per_unit: 25 })
  const rum = await createItem(ctx, caller, { name: 'Rum 750ml', quantity: 4, cost_per_unit: 18 })
  const lager = await createItem(ctx, caller, { name: 'Lager Can', unit: 'can', size_ml: 355, category: 'beer', quantity: 23, cost_per_unit: 1.25 })
  const tonic = await createItem(ctx, caller, { name: 'Tonic Can', unit: 'can', size_ml: 200, category: 'mixer', quantity: 8, cost_per_unit: 0.5 })
  await createItem(ctx, caller, { name: 'House Red 750ml', category: 'wine', quantity: 6, cost_per_unit: 9 })
  const pos = await salesChannel(ctx, caller)
  for (const [posItemId, item] of [
    ['VODKA-30', vodka],
    ['GIN-30', gin],
    ['RUM-30', rum],
  ] as const) {
    await pos.map(posItemId, { inventory_item_id: item.id, conversion_factor: 30, conversion_unit: 'ml' })
  }
  await pos.map('LAGER', { inventory_item_id: lager.id, conversion_factor: 1, conversion_unit: 'can' })
  const items = (quantities: number[]) => [vodka, gin, lager, tonic].map((item, index) => ({ item_id: item.id, quantity: quantities[index] as number }))
  await count(ctx, caller, items([10, 3, 48, 10]), daysAgo(31))
  await count(ctx, caller, items([5.9, 2.3, 23, 8]), daysAgo(21))
  await pos.sell([
    { pos_item_id: 'VODKA-30', name: 'Vodka 30ml', quantity: 10, unit_price: 8, sold_at: daysAgo(35, 21) },
    { pos_item_id: 'VODKA-30', name: 'Vodka 30ml', quantity: 100, unit_price: 8, sold_at: daysAgo(28, 21) },
    { pos_item_id: 'GIN-30', name: 'Gin 30ml', quantity: 20, unit_price: 10, sold_at: daysAgo(27, 21) },
    { pos_item_id: 'RUM-30', name: 'Rum 30ml', quantity: 10, unit_price: 7, sold_at: daysAgo(26, 21) },
    { pos_item_id: 'LAGER', name: 'Lager', quantity: 24, unit_price: 5, sold_at: daysAgo(25, 21) },
    { pos_item_id: 'HOUSE-SHOT', name: 'House Shot', quantity: 10, unit_price: 4, sold_at: daysAgo(25, 22) },
  ])
}

describe('GET /v1/analytics/categories', () => {
  test('sums revenue, cost, pour cost and window variance per category, with top performers by margin and underperformers by loss', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    await categoryHistory(caller)
    const body = await categories(caller, PERIOD)
    assert.deepEqual(body.data, [
      {
        category: 'spirits',
        // $800 + $200 + $70 (the vodka sold 35 days ago and the unmapped shots are not in).
        total_sales: 1070,
        // 4 × $20 + 0.8 × $25 + 0.4 × $18 = $80 + $20 + $7.20.
        total_cost: 107.2,
        // 107.2 / 1070 × 100 = 10.018… → 10.02.
        pour_cost: 10.02,
        // +$2 − $2.50 over expected $80 + $20: −0.5 %. Rum has no window.
        variance: -0.5,
        variance_percentage: -0.5,
        top_performers: [
          { name: 'Vodka 750ml', sales: 800, margin: 720 },
          { name: 'Gin 750ml', sales: 200, margin: 180 },
          { name: 'Rum 750ml', sales: 70, margin: 62.8 },
        ],
        // Gin's variance is negative: not an underperformer.
        underperformers: [{ name: 'Vodka 750ml', sales: 800, variance: 2 }],
      },
      {
        category: 'beer',
        total_sales: 120,
        // 24 × $1.25 = $30: 25 %; variance 1 can = $1.25 on $30 = 4.1666… → 4.17.
        total_cost: 30,
        pour_cost: 25,
        variance: 1.25,
        variance_percentage: 4.17,
        top_performers: [{ name: 'Lager Can', sales: 120, margin: 90 }],
        underperformers: [{ name: 'Lager Can', sales: 120, variance: 1.25 }],
      },
      {
        category: 'mixer',
        // Counted, never sold: no pour cost; 2 cans × $0.50 lost against nothing expected is 100 %.
        total_sales: 0,
        total_cost: 0,
        pour_cost: null,
        variance: 1,
        variance_percentage: 100,
        top_performers: [],
        underperformers: [{ name: 'Tonic Can', sales: 0, variance: 1 }],
      },
    ])
    assert.equal(body.pagination.total, 3)
    const second = await categories(caller, { ...PERIOD, per_page: '1', page: '2' })
    assert.deepEqual(
      second.data.map((entry: { category: string }) => entry.category),
      ['beer'],
    )
    assert.equal(second.pagination.total_pages, 3)
  })

  test('answers an empty list for a period without activity, invalid_date_range, invalid_parameter and 403', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    await categoryHistory(caller)
    const quiet = await categories(caller, { date_from: dateOf(daysAgo(200)), date_to: dateOf(daysAgo(150)) })
    assert.deepEqual([quiet.data, quiet.pagination.total], [[], 0])
    const cases: [Record<string, string>, number, string][] = [
      [{ date_from: '2026-11-10', date_to: '2026-11-01' }, 400, 'invalid_date_range'],
      [{ date_from: '2024-01-01', date_to: '2026-01-02' }, 400, 'invalid_date_range'],
      [{ date_from: '2026-13-01' }, 400, 'invalid_parameter'],
      [{ category: 'spirits' }, 400, 'invalid_parameter'],
    ]
    for (const [query, status, code] of cases) {
      const response = await ctx.request('GET', '/v1/analytics/categories', { key: caller.key, query })
      assert.equal(response.statusCode, status, JSON.stringify(query))
      assert.equal(json(response).error.code, code, JSON.stringify(query))
    }
    const noAnalytics = await ctx.keyFor(caller, ['inventory:read'])
    const denied = await ctx.request('GET', '/v1/analytics/categories', { key: noAnalytics })
    assert.equal(denied.statusCode, 403)
    assert.equal(json(denied).error.details.required, 'analytics:read')
  })

  test('splits a line that used several items (a recipe) by their share of its usage cost, evenly when nothing cost anything', () => {
    const line = (usage: [string, number][]) =>
      ({
        revenue: decimal(12),
        usage: usage.map(([itemId, cost]) => ({ itemId, units: decimal(1), cost: decimal(cost) })),
        usageCost: decimal(usage.reduce((total, [, cost]) => total + cost, 0)),
      }) as PeriodLine
    // A $12 gin and tonic costing $1.50 of gin and $0.50 of tonic: 12 × 1.5 / 2 = $9 and 12 × 0.5 / 2 = $3.
    const split = revenueByItem(
      line([
        ['gin', 1.5],
        ['tonic', 0.5],
      ]),
    )
    assert.deepEqual(
      [...split].map(([itemId, revenue]) => [itemId, revenue.toFixed(2)]),
      [
        ['gin', '9.00'],
        ['tonic', '3.00'],
      ],
    )
    const free = revenueByItem(
      line([
        ['water', 0],
        ['ice', 0],
      ]),
    )
    assert.deepEqual(
      [...free].map(([itemId, revenue]) => [itemId, revenue.toFixed(2)]),
      [
        ['water', '6.00'],
        ['ice', '6.00'],
      ],
    )
  })
})
