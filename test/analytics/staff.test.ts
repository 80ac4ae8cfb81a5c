import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createPosTestContext, createSyncedConnection, runFirstSync } from '../pos/pos-helpers.js'
import { count, dateOf, daysAgo, salesChannel } from './analytics-helpers.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

async function staffReport(caller: Caller, query: Record<string, string> = {}) {
  const response = await ctx.request('GET', '/v1/analytics/staff', { key: caller.key, query })
  assert.equal(response.statusCode, 200, response.body)
  return json(response)
}

/** Ten business days, 50 to 41 days ago; the counts 51 and 41 days ago bound every item's window. */
const PERIOD = { date_from: dateOf(daysAgo(50)), date_to: dateOf(daysAgo(41)) }

/**
 * A POS employee list from the first sync of the sandbox Square (its own sales land at a `sim` location in
 * the last 30 days, outside PERIOD), then a bar history at main_bar inside PERIOD:
 *   vodka (750 ml, $20; a 30 ml pour is 0.04 bottle, $0.80): Maria 100 pours and Sam 25 at $8;
 *     counted 10 → 4.9: 5.1 used against 5 sold, 0.1 × $20 = $2 of variance.
 *   lager ($1.25 a can): Lee 24 cans at $5 on two lines without a check; counted 48 → 23: 25 used against
 *     24 sold, $1.25 of variance.
 *   gin (750 ml, $25; a 30 ml pour is $1): Kim 20 pours at $10; counted 3 → 2: 1 used against 0.8 sold,
 *     0.2 × $25 = $5 of variance.
 *   Sam also rings 5 unmapped house shots at $4, and one unmapped line has no staff at all.
 */
async function staffHistory(caller: Caller) {
  assert.equal((await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'sim', name: 'Simulated bar' } })).statusCode, 201)
  const simulated = await createSyncedConnection(ctx, caller, { location: 'sim' })
  // Only this first run syncs: the sales channel's own first run stays queued, with no worker to take it.
  assert.equal((await runFirstSync(ctx, caller, simulated)).status, 'completed')
  const roster = (await staffReport(caller, { per_page: '100' })).data as { staff_id: string; name: string; role: string }[]
  const maria = roster.find((member) => member.name === 'Maria Lopez')
  assert.ok(maria, 'the POS employee list names Maria')
  const vodka = await createItem(ctx, caller, { name: 'Vodka 750ml', quantity: 4.9, cost_per_unit: 20 })
  const lager = await createItem(ctx, caller, { name: 'Lager Can', unit: 'can', size_ml: 355, category: 'beer', quantity: 23, cost_per_unit: 1.25 })
  const gin = await createItem(ctx, caller, { name: 'Gin 750ml', quantity: 2, cost_per_unit: 25 })
  const pos = await salesChannel(ctx, caller)
  await pos.map('VODKA-30', { inventory_item_id: vodka.id, conversion_factor: 30, conversion_unit: 'ml' })
  await pos.map('GIN-30', { inventory_item_id: gin.id, conversion_factor: 30, conversion_unit: 'ml' })
  await pos.map('LAGER', { inventory_item_id: lager.id, conversion_factor: 1, conversion_unit: 'can' })
  const items = (quantities: number[]) => [vodka, lager, gin].map((item, index) => ({ item_id: item.id, quantity: quantities[index] as number }))
  await count(ctx, caller, items([10, 48, 3]), daysAgo(51))
  await count(ctx, caller, items([4.9, 23, 2]), daysAgo(41))
  const at = (days: number) => daysAgo(days, 21)
  await pos.sell([
    { pos_item_id: 'VODKA-30', name: 'Vodka 30ml', quantity: 60, unit_price: 8, sold_at: at(48), staff_id: maria.staff_id, staff_name: 'Maria L.', check_id: 'C1', tip: 48 },
    { pos_item_id: 'VODKA-30', name: 'Vodka 30ml', quantity: 40, unit_price: 8, sold_at: at(45), staff_id: maria.staff_id, staff_name: 'Maria L.', check_id: 'C2', tip: 32 },
    { pos_item_id: 'VODKA-30', name: 'Vodka 30ml', quantity: 25, unit_price: 8, sold_at: at(44), staff_id: 'S-SAM', staff_name: 'Sam', check_id: 'C3', tip: 30 },
    { pos_item_id: 'HOUSE-SHOT', name: 'House Shot', quantity: 5, unit_price: 4, sold_at: at(44), staff_id: 'S-SAM', staff_name: 'Sam', check_id: 'C3' },
    { pos_item_id: 'LAGER', name: 'Lager', quantity: 12, unit_price: 5, sold_at: at(47), staff_id: 'S-LEE', staff_name: 'Lee' },
    { pos_item_id: 'LAGER', name: 'Lager', quantity: 12, unit_price: 5, sold_at: at(43), staff_id: 'S-LEE', staff_name: 'Lee' },
    { pos_item_id: 'GIN-30', name: 'Gin 30ml', quantity: 20, unit_price: 10, sold_at: at(46), staff_id: 'S-KIM', check_id: 'C4', tip: 0 },
    { pos_item_id: 'HOUSE-SHOT', name: 'House Shot', quantity: 3, unit_price: 4, sold_at: at(46) },
  ])
  return { maria, items: { vodka, lager, gin } }
}

describe('GET /v1/analytics/staff', () => {
  let caller: Caller
  let mariaId: string
  let items: { vodka: { id: string }; lager: { id: string }; gin: { id: string } }
  before(async () => {
    caller = await ctx.newCaller({ environment: 'sandbox' })
    const history = await staffHistory(caller)
    mariaId = history.maria.staff_id
    items = history.items
  })

  test('shares each item’s window variance by units sold, counts drinks, tickets and tips, compares with the mean and rates each member', async () => {
    const body = await staffReport(caller, PERIOD)
    // Drinks: Maria 100, Sam 25 + 5 = 30, Lee 24, Kim 20; mean 174 / 4 = 43.5.
    // variance_rate: Maria takes 4/5 of vodka's $2 = $1.60 on 100 × $0.80 = $80: 2 %; Sam 1/5, $0.40 on $20: 2 %;
    //   Lee all of lager's $1.25 on 24 × $1.25 = $30: 4.1666… → 4.17 %; Kim all of gin's $5 on 20 × $1 = $20: 25 %.
    //   Mean (2 + 2 + 4.17 + 25) / 4 = 8.2925.
    // Ratings against the target 3: Maria ≤ 3 with drinks above the mean: excellent; Sam ≤ 3 below the mean:
    //   good; Lee in (3, 6] below the mean: average; Kim above 6: needs_attention.
    // Each member's evidence: one item window each; their share of its sales, their variance and expected
    // cost, and the rate of everyone else who sold the item (null when nobody else did).
    const evidence = (
      item: 'vodka' | 'lager' | 'gin',
      name: string,
      sales_share_percentage: number,
      variance_cost: number,
      expected_cost: number,
      rates: [number, number | null],
    ) => ({
      items: 1,
      windows: 1,
      windows_explained: 0,
      sales_share_percentage,
      variance_cost,
      expected_cost,
      by_item: [
        {
          item_id: items[item].id,
          name,
          location: 'main_bar',
          windows: [{ opened_at: daysAgo(51), closed_at: daysAgo(41), sales_share_percentage, variance_cost, explained: false }],
          windows_counted: 1,
          sales_share_percentage,
          variance_cost,
          expected_cost,
          variance_rate: rates[0],
          others_variance_rate: rates[1],
        },
      ],
    })
    assert.deepEqual(body.data, [
      {
        staff_id: mariaId,
        // From the POS's employee list, not the lines' staff_name.
        name: 'Maria Lopez',
        // As the POS reports it (Square's job title).
        role: 'Bartender',
        // $800 over checks C1 and C2; tips $80 / $800.
        metrics: { variance_rate: 2, drinks_served: 100, average_ticket: 400, customer_satisfaction: 10 },
        comparison: {
          variance_rate_vs_avg: -6.29,
          drinks_served_vs_avg: 56.5,
          performance_rating: 'excellent',
          rating_evidence: evidence('vodka', 'Vodka 750ml', 80, 1.6, 80, [2, 2]),
        },
      },
      {
        staff_id: 'S-SAM',
        name: 'Sam',
        role: null,
        // $200 + $20 on one check C3; the $30 tip was reported on the $200 line only: 30 / 200.
        metrics: { variance_rate: 2, drinks_served: 30, average_ticket: 220, customer_satisfaction: 15 },
        comparison: {
          variance_rate_vs_avg: -6.29,
          drinks_served_vs_avg: -13.5,
          performance_rating: 'good',
          rating_evidence: evidence('vodka', 'Vodka 750ml', 20, 0.4, 20, [2, 2]),
        },
      },
      {
        staff_id: 'S-LEE',
        name: 'Lee',
        role: null,
        // $120 on two lines without a check: two tickets of $60; no tips reported.
        metrics: { variance_rate: 4.17, drinks_served: 24, average_ticket: 60, customer_satisfaction: null },
        comparison: {
          variance_rate_vs_avg: -4.12,
          drinks_served_vs_avg: -19.5,
          performance_rating: 'average',
          rating_evidence: evidence('lager', 'Lager Can', 100, 1.25, 30, [4.17, null]),
        },
      },
      {
        staff_id: 'S-KIM',
        name: null,
        role: null,
        // A reported tip of 0 is 0 %.
        metrics: { variance_rate: 25, drinks_served: 20, average_ticket: 200, customer_satisfaction: 0 },
        comparison: {
          variance_rate_vs_avg: 16.71,
          drinks_served_vs_avg: -23.5,
          performance_rating: 'needs_attention',
          rating_evidence: evidence('gin', 'Gin 750ml', 100, 5, 20, [25, null]),
        },
      },
    ])
    assert.equal(body.pagination.total, 4)
  })

  test('filters by staff_id against the mean of everyone, pages, and answers an empty list for a known member without sales in the period', async () => {
    const lee = await staffReport(caller, { ...PERIOD, staff_id: 'S-LEE' })
    assert.deepEqual(
      lee.data.map((member: { staff_id: string }) => member.staff_id),
      ['S-LEE'],
    )
    assert.equal(lee.data[0].comparison.drinks_served_vs_avg, -19.5)
    const paged = await staffReport(caller, { ...PERIOD, per_page: '2', page: '2' })
    assert.deepEqual(
      paged.data.map((member: { staff_id: string }) => member.staff_id),
      ['S-LEE', 'S-KIM'],
    )
    assert.deepEqual([paged.pagination.total, paged.pagination.total_pages, paged.pagination.next_page_url], [4, 2, null])
    const quiet = await staffReport(caller, { date_from: dateOf(daysAgo(100)), date_to: dateOf(daysAgo(90)), staff_id: mariaId })
    assert.deepEqual([quiet.data, quiet.pagination.total], [[], 0])
  })

  test('answers staff_not_found for an unknown staff_id and changes nothing; invalid_date_range, invalid_parameter and 403', async () => {
    const before = await staffReport(caller, PERIOD)
    const unknown = await ctx.request('GET', '/v1/analytics/staff', { key: caller.key, query: { ...PERIOD, staff_id: 'S-NOBODY' } })
    assert.equal(unknown.statusCode, 404)
    assert.equal(json(unknown).error.code, 'staff_not_found')
    // Another tenant's staff are unknown here.
    const stranger = await ctx.newCaller({ environment: 'sandbox' })
    const foreign = await ctx.request('GET', '/v1/analytics/staff', { key: stranger.key, query: { staff_id: 'S-SAM' } })
    assert.equal(json(foreign).error.code, 'staff_not_found')
    assert.deepEqual((await staffReport(caller, PERIOD)).data, before.data)
    const cases: [Record<string, string>, number, string][] = [
      [{ date_from: '2026-11-10', date_to: '2026-11-01' }, 400, 'invalid_date_range'],
      [{ date_from: '2024-01-01', date_to: '2026-01-02' }, 400, 'invalid_date_range'],
      [{ date_to: 'tomorrow' }, 400, 'invalid_parameter'],
      [{ per_page: '101' }, 400, 'invalid_parameter'],
      [{ location: 'main_bar' }, 400, 'invalid_parameter'],
    ]
    for (const [query, status, code] of cases) {
      const response = await ctx.request('GET', '/v1/analytics/staff', { key: caller.key, query })
      assert.equal(response.statusCode, status, JSON.stringify(query))
      assert.equal(json(response).error.code, code, JSON.stringify(query))
    }
    const noAnalytics = await ctx.keyFor(caller, ['pos:read'])
    const denied = await ctx.request('GET', '/v1/analytics/staff', { key: noAnalytics })
    assert.equal(denied.statusCode, 403)
    assert.equal(json(denied).error.details.required, 'analytics:read')
  })
})
