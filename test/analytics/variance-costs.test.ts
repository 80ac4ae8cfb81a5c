import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createDistributor, createOrder, eventsOf, ok, shipOrder } from '../ordering/fixtures.js'
import { createPosTestContext } from '../pos/pos-helpers.js'
import { count, dateOf, daysAgo, salesChannel } from './analytics-helpers.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

async function get(caller: Caller, url: string, query: Record<string, string>) {
  const response = await ctx.request('GET', url, { key: caller.key, query })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).data
}

/** The variance report from `from` to `to` days ago. */
function variance(caller: Caller, from: number, to: number) {
  return get(caller, '/v1/analytics/variance', { date_from: dateOf(daysAgo(from)), date_to: dateOf(daysAgo(to)) })
}

/** Receives `cases` cases of the item at `casePrice` a case, dated `receivedAt`. */
async function receiveAtCasePrice(caller: Caller, itemId: string, casePrice: number, cases: number, receivedAt: string) {
  const distributor = await createDistributor(ctx, caller)
  await ok(ctx, caller, 'PUT', `/v1/distributors/${distributor.id}/catalog`, [{ inventory_item_id: itemId, unit: 'case', unit_price: casePrice }])
  const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: itemId, quantity: cases, unit: 'case' }])
  await shipOrder(ctx, caller, order.id)
  await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/receive`, {
    received_by: 'Sam',
    received_at: receivedAt,
    items: [{ inventory_item_id: itemId, quantity_received: cases }],
  })
}

/**
 * A month of Tito's at $20 a bottle (sold by the bottle): counted 30 twenty days ago, 10 sold, counted 18
 * fourteen days ago (2 lost); two cases received ten days ago at $264 a case ($22 a bottle); 15 sold,
 * counted 24 three days ago (3 lost).
 */
async function monthWithNewPrice(caller: Caller) {
  const titos = await createItem(ctx, caller, { name: "Tito's Handmade Vodka 750ml", size_ml: 750, case_size: 12, quantity: 24, cost_per_unit: 20 })
  const pos = await salesChannel(ctx, caller)
  await pos.map('TITO-BTL', { inventory_item_id: titos.id, conversion_factor: 1, conversion_unit: 'bottle' })
  const sell = (quantity: number, soldAt: string) => pos.sell([{ pos_item_id: 'TITO-BTL', name: "Tito's bottle", quantity, unit_price: 60, sold_at: soldAt, staff_id: 'emp_sam' }])
  await count(ctx, caller, [{ item_id: titos.id, quantity: 30 }], daysAgo(20))
  await sell(10, daysAgo(17, 21))
  await count(ctx, caller, [{ item_id: titos.id, quantity: 18 }], daysAgo(14))
  await receiveAtCasePrice(caller, titos.id, 264, 2, daysAgo(10))
  await sell(15, daysAgo(7, 21))
  await count(ctx, caller, [{ item_id: titos.id, quantity: 24 }], daysAgo(3))
  return { titos, sell }
}

/** Each report item's [variance in units, estimated_loss], and the report's total and gross loss. */
function lossesOf(report: { items: { variance: number; estimated_loss: number }[]; total_variance: number; summary: { gross_loss: number } }) {
  return { items: report.items.map((item) => [item.variance, item.estimated_loss]), total: report.total_variance, grossLoss: report.summary.gross_loss }
}

describe('reports value each count window at the cost of its time', () => {
  test('a receipt at a new price mid-month: the window before it keeps the old cost, the one after takes the new, and the month adds them up', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { titos } = await monthWithNewPrice(caller)
    assert.equal((await ok(ctx, caller, 'GET', `/v1/inventory/items/${titos.id}`)).cost_per_unit, 22, 'receiving set the cost')

    const first = await variance(caller, 20, 14)
    assert.deepEqual(lossesOf(first), { items: [[2, 40]], total: 40, grossLoss: 40 }, '2 bottles at the $20 of that window, not today’s $22')
    const second = await variance(caller, 13, 3)
    assert.deepEqual(lossesOf(second), { items: [[3, 66]], total: 66, grossLoss: 66 }, '3 bottles at the $22 received inside it')

    const month = await variance(caller, 20, 3)
    assert.deepEqual(lossesOf(month), { items: [[5, 106]], total: 106, grossLoss: 106 }, 'the month is its two windows: 40 + 66')
    assert.equal(month.items[0].variance_percentage, 20, '5 of 25 expected, in units')
    // Σ variance cost / Σ expected cost: 106 / (10 × 20 + 15 × 22).
    assert.equal(month.variance_percentage, 20)
    assert.equal(month.summary.gross_loss_percentage, 20)

    // Category analysis and metrics value the windows alike.
    const categories = await get(caller, '/v1/analytics/categories', { date_from: dateOf(daysAgo(20)), date_to: dateOf(daysAgo(14)) })
    assert.equal(categories.find((entry: { category: string }) => entry.category === 'spirits').variance, 40)
    const metrics = await get(caller, '/v1/analytics/performance', { date_from: dateOf(daysAgo(20)), date_to: dateOf(daysAgo(3)) })
    assert.equal(metrics.metrics.variance_rate.value, 20)
    // Sam sold every bottle, so carries each window's whole variance, at the cost of that window's time.
    const [sam] = await get(caller, '/v1/analytics/staff', { date_from: dateOf(daysAgo(20)), date_to: dateOf(daysAgo(3)) })
    assert.equal(sam.staff_id, 'emp_sam')
    const evidence = sam.comparison.rating_evidence
    assert.deepEqual([evidence.windows, evidence.variance_cost, evidence.expected_cost], [2, 106, 530], '2 × $20 + 3 × $22 lost of 10 × $20 + 15 × $22 expected')
  })

  test('a PUT of cost_per_unit values the windows counted after it, never those before', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { titos, sell } = await monthWithNewPrice(caller)
    const before = await variance(caller, 20, 3)
    const put = await ctx.request('PUT', `/v1/inventory/items/${titos.id}`, { key: caller.key, body: { cost_per_unit: 30 } })
    assert.equal(put.statusCode, 200, put.body)

    assert.deepEqual(await variance(caller, 20, 3), before, 'the windows counted before the change keep their costs')
    assert.deepEqual(lossesOf(await variance(caller, 20, 14)), { items: [[2, 40]], total: 40, grossLoss: 40 })

    // Counted after the change: 24 − 2 sold − 1 lost = 21, the lost bottle at $30.
    await sell(2, new Date(Date.now() - 60_000).toISOString())
    await count(ctx, caller, [{ item_id: titos.id, quantity: 21 }])
    assert.deepEqual(lossesOf(await variance(caller, 2, 0)), { items: [[1, 30]], total: 30, grossLoss: 30 })
    assert.deepEqual(lossesOf(await variance(caller, 20, 0)), { items: [[6, 136]], total: 136, grossLoss: 136 }, '40 + 66 + 30')
  })

  test('a receipt at the price already in force, and a PUT that keeps the cost, leave each window at its cost', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { titos } = await monthWithNewPrice(caller)
    const before = await variance(caller, 20, 3)
    await receiveAtCasePrice(caller, titos.id, 264, 1, daysAgo(5))
    const put = await ctx.request('PUT', `/v1/inventory/items/${titos.id}`, { key: caller.key, body: { cost_per_unit: 22, reorder_point: 2 } })
    assert.equal(put.statusCode, 200, put.body)
    const after = await variance(caller, 20, 3)
    // The extra case is in the window: 12 more bottles used than counted, a loss at $22.
    assert.deepEqual(lossesOf(after), { items: [[17, 370]], total: 370, grossLoss: 370 })
    assert.equal(before.items[0].estimated_loss, 106)
  })

  test('sales imported after a receipt at a new price are costed at the cost in force when they were sold', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const titos = await createItem(ctx, caller, { size_ml: 750, case_size: 12, quantity: 24, cost_per_unit: 20 })
    const pos = await salesChannel(ctx, caller)
    await pos.map('TITO-BTL', { inventory_item_id: titos.id, conversion_factor: 1, conversion_unit: 'bottle' })
    await receiveAtCasePrice(caller, titos.id, 264, 2, daysAgo(10))
    // A week of history imported after the receipt: sold before it at $20 a bottle, after it at $22.
    await pos.sell([
      { pos_item_id: 'TITO-BTL', name: "Tito's bottle", quantity: 10, unit_price: 60, sold_at: daysAgo(15, 21) },
      { pos_item_id: 'TITO-BTL', name: "Tito's bottle", quantity: 10, unit_price: 60, sold_at: daysAgo(5, 21) },
    ])
    const pourCost = async (from: number, to: number) =>
      (await get(caller, '/v1/analytics/performance', { date_from: dateOf(daysAgo(from)), date_to: dateOf(daysAgo(to)) })).metrics.pour_cost.value
    assert.equal(await pourCost(16, 14), 33.33, '10 × $20 / 10 × $60')
    assert.equal(await pourCost(6, 4), 36.67, '10 × $22 / 10 × $60')
  })

  test('a count entered after a PUT of the cost, dated before it, values its window at the cost of its time', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { titos } = await monthWithNewPrice(caller)
    await ok(ctx, caller, 'PUT', `/v1/inventory/items/${titos.id}`, { cost_per_unit: 30 })
    // Yesterday's count, entered today: 1 bottle lost since the count three days ago, at the $22 of yesterday.
    await count(ctx, caller, [{ item_id: titos.id, quantity: 23 }], daysAgo(1))
    const detected = (await eventsOf(ctx, caller, 'variance.detected')).filter((event: { item_id: string }) => event.item_id === titos.id)
    assert.deepEqual(
      detected.map((event: { variance: number; estimated_loss: number }) => [event.variance, event.estimated_loss]),
      [
        [2, 40],
        [3, 66],
        [1, 22],
      ],
    )
    assert.deepEqual(lossesOf(await variance(caller, 2, 1)), { items: [[1, 22]], total: 22, grossLoss: 22 })
  })
})
