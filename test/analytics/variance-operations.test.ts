import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { listEvents } from '../../src/platform/outbox.js'
import { json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem, createLocations } from '../helpers/inventory.js'
import { createPosTestContext } from '../pos/pos-helpers.js'
import { count, dateOf, daysAgo, salesChannel } from './analytics-helpers.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

async function report(caller: Caller, query: Record<string, string> = {}) {
  const response = await ctx.request('GET', '/v1/analytics/variance', { key: caller.key, query: { date_from: dateOf(daysAgo(10)), date_to: dateOf(daysAgo(3)), ...query } })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).data
}

const GIN = { name: 'Tanqueray 750ml', sku: 'TANQ-750', size_ml: 750, cost_per_unit: 21 }

/**
 * A storeroom and a bar entering a week of history: both counted ten days ago, 6 bottles moved to the bar
 * a week ago, 3 bottles sold at the bar, one broken there, both counted three days ago with nothing missing.
 */
async function weekWithMovesAndBreakage(caller: Caller) {
  await createLocations(ctx, caller, ['storeroom'])
  const store = await createItem(ctx, caller, { ...GIN, location: 'storeroom', quantity: 18 })
  const bar = await createItem(ctx, caller, { ...GIN, location: 'main_bar', quantity: 4 })
  await count(ctx, caller, [{ item_id: store.id, quantity: 24 }], daysAgo(10), 'storeroom')
  await count(ctx, caller, [{ item_id: bar.id, quantity: 2 }], daysAgo(10))
  const moved = await ctx.request('POST', '/v1/inventory/transfers', {
    key: caller.key,
    body: { from_location: 'storeroom', to_location: 'main_bar', transferred_by: 'sam', transferred_at: daysAgo(7), items: [{ item_id: store.id, quantity: 6 }] },
  })
  assert.equal(moved.statusCode, 201, moved.body)
  const pos = await salesChannel(ctx, caller)
  await pos.map('TANQ-BTL', { inventory_item_id: bar.id, conversion_factor: 1, conversion_unit: 'bottle' })
  await pos.sell([{ pos_item_id: 'TANQ-BTL', name: 'Tanqueray bottle', quantity: 3, unit_price: 90, sold_at: daysAgo(6, 21) }])
  const broken = await ctx.request('POST', '/v1/inventory/waste', {
    key: caller.key,
    body: { location: 'main_bar', recorded_by: 'maria', occurred_at: daysAgo(5, 23), items: [{ item_id: bar.id, quantity: 1, reason: 'breakage', notes: 'dropped' }] },
  })
  assert.equal(broken.statusCode, 201, broken.body)
  await count(ctx, caller, [{ item_id: store.id, quantity: 18 }], daysAgo(3), 'storeroom')
  await count(ctx, caller, [{ item_id: bar.id, quantity: 4 }], daysAgo(3))
  return { store, bar, transfer: json(moved).data, waste: json(broken).data }
}

describe('variance with transfers and recorded waste', () => {
  test('a storeroom move and a recorded breakage are explained movements: no loss on either side', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { store, bar } = await weekWithMovesAndBreakage(caller)
    const data = await report(caller)
    const byId = new Map(data.items.map((item: { inventory_item_id: string }) => [item.inventory_item_id, item]))
    const storeItem = byId.get(store.id) as Record<string, any>
    const barItem = byId.get(bar.id) as Record<string, any>
    assert.deepEqual(
      [storeItem.window.transfers_out, storeItem.window.transfers_in, storeItem.actual_consumption, storeItem.variance, storeItem.estimated_loss, storeItem.potential_causes],
      [6, 0, 0, 0, 0, []],
    )
    // 2 + 6 in − 4 closing = 4 used: 3 sold and 1 broken.
    assert.deepEqual(
      [barItem.window.transfers_in, barItem.window.recorded_waste, barItem.window.recorded_waste_cost, barItem.actual_consumption, barItem.expected_consumption, barItem.variance],
      [6, 1, 21, 4, 3, 0],
    )
    assert.deepEqual(barItem.potential_causes, [])
    assert.equal(barItem.recorded_waste_cost, 21)
    assert.equal(data.total_variance, 0)
    assert.equal(data.summary.recorded_waste_cost, 21)
    assert.deepEqual(data.summary.waste_by_reason, { breakage: 21 })
    assert.equal(data.summary.items_above_threshold, 0)
  })

  test('voiding the waste or the transfer restates the report (stored windows are forgotten)', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { store, bar, transfer, waste } = await weekWithMovesAndBreakage(caller)
    await report(caller)
    const voided = await ctx.request('DELETE', `/v1/inventory/waste/${waste.id}`, { key: caller.key })
    assert.equal(voided.statusCode, 200, voided.body)
    let data = await report(caller)
    let barItem = data.items.find((item: { inventory_item_id: string }) => item.inventory_item_id === bar.id)
    assert.deepEqual([barItem.window.recorded_waste, barItem.variance, barItem.estimated_loss], [0, 1, 21])
    assert.deepEqual(data.summary.waste_by_reason, {})

    const undone = await ctx.request('DELETE', `/v1/inventory/transfers/${transfer.id}`, { key: caller.key })
    assert.equal(undone.statusCode, 200, undone.body)
    data = await report(caller)
    const storeItem = data.items.find((item: { inventory_item_id: string }) => item.inventory_item_id === store.id)
    barItem = data.items.find((item: { inventory_item_id: string }) => item.inventory_item_id === bar.id)
    assert.deepEqual([storeItem.window.transfers_out, storeItem.variance], [0, 6], 'without the transfer the storeroom lost 6')
    assert.deepEqual([barItem.window.transfers_in, barItem.variance], [0, -5], 'and the bar gained what it did not receive')
    // The net ($126 lost − $105 gained) hides most of the loss; the gross figures do not.
    assert.deepEqual([data.total_variance, data.summary.gross_loss, data.summary.gross_gain], [21, 126, 105])
    assert.deepEqual(data.period_measured, { from: daysAgo(10), to: daysAgo(3) })
  })
})

describe('the count alert on the gross loss rate', () => {
  test('a count where one item lost what another gained fires variance.threshold_exceeded, with the net as total_loss', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const gin = await createItem(ctx, caller, { ...GIN, quantity: 10 })
    const vodka = await createItem(ctx, caller, { ...GIN, name: 'Vodka', sku: 'VODKA', quantity: 10 })
    await count(ctx, caller, [
      { item_id: gin.id, quantity: 10 },
      { item_id: vodka.id, quantity: 10 },
    ])
    await count(ctx, caller, [
      { item_id: gin.id, quantity: 8 },
      { item_id: vodka.id, quantity: 12 },
    ])
    const alerts = await listEvents(ctx.database.db, caller.tenant, 'variance.threshold_exceeded')
    assert.equal(alerts.length, 1, 'two bottles gone cannot hide behind two bottles found')
    const alert = alerts[0]!.data as { total_loss: number; variance_rate: number }
    assert.deepEqual([alert.total_loss, alert.variance_rate], [0, 100])
  })
})
