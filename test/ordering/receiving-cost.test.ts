import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { assertRollupsMatchRaw, count } from '../analytics/analytics-helpers.js'
import { type Caller, createTestContext, json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createDistributor, createOrder, ok, shipOrder, snapshot } from './fixtures.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

/** A shipped order of `cases` cases of the item from a distributor whose catalog sells a case at `casePrice`. */
async function shippedAtCasePrice(caller: Caller, itemId: string, casePrice: number, cases = 2) {
  const distributor = await createDistributor(ctx, caller)
  await ok(ctx, caller, 'PUT', `/v1/distributors/${distributor.id}/catalog`, [{ inventory_item_id: itemId, unit: 'case', unit_price: casePrice }])
  const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: itemId, quantity: cases, unit: 'case' }])
  await shipOrder(ctx, caller, order.id)
  return order
}

async function itemOf(caller: Caller, itemId: string) {
  return ok(ctx, caller, 'GET', `/v1/inventory/items/${itemId}`)
}

/** The item's delivery movements through the API, oldest first: [occurred_at, change, unit_cost]. */
async function deliveriesOf(caller: Caller, itemId: string) {
  const movements = await ok(ctx, caller, 'GET', `/v1/inventory/items/${itemId}/movements`)
  return movements
    .filter((movement: { kind: string }) => movement.kind === 'delivery')
    .map((movement: { occurred_at: string; change: number; unit_cost: number }) => [movement.occurred_at, movement.change, movement.unit_cost])
    .reverse()
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5))

describe('receiving sets the cost', () => {
  test('receiving at a new price sets cost_per_unit to the case price per bottle; the delivery keeps that price', async () => {
    const caller = await ctx.newCaller()
    const vodka = await createItem(ctx, caller, { quantity: 10, case_size: 12, cost_per_unit: 18.5 })
    const order = await shippedAtCasePrice(caller, vodka.id, 240)
    const received = await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/receive`, {
      received_by: 'Sam',
      items: [{ inventory_item_id: vodka.id, quantity_received: 2 }],
    })
    const item = await itemOf(caller, vodka.id)
    assert.equal(item.cost_per_unit, 20, '240 a case of 12')
    assert.equal(item.quantity, 34)
    assert.deepEqual(await deliveriesOf(caller, vodka.id), [[received.delivered_at, 24, 20]])
  })

  test('a receipt back-dated before the item’s latest receipt keeps its own price on its movement and leaves the newer price', async () => {
    const caller = await ctx.newCaller()
    const vodka = await createItem(ctx, caller, { quantity: 10, case_size: 12, cost_per_unit: 18.5 })
    const older = await shippedAtCasePrice(caller, vodka.id, 216)
    const newer = await shippedAtCasePrice(caller, vodka.id, 240)
    await tick()
    const olderArrival = new Date().toISOString()
    await tick()
    const newerReceipt = await ok(ctx, caller, 'POST', `/v1/orders/${newer.id}/receive`, {
      received_by: 'Sam',
      items: [{ inventory_item_id: vodka.id, quantity_received: 2 }],
    })
    // The older invoice is entered last, by PUT, dated when it arrived.
    const olderReceipt = await ok(ctx, caller, 'PUT', `/v1/orders/${older.id}`, {
      status: 'delivered',
      received_by: 'Alex',
      received_at: olderArrival,
      items: [{ inventory_item_id: vodka.id, quantity_received: 2 }],
    })
    assert.equal(olderReceipt.delivered_at, olderArrival)
    const item = await itemOf(caller, vodka.id)
    assert.equal(item.cost_per_unit, 20, 'the newer receipt’s price stands')
    assert.equal(item.quantity, 58, 'both deliveries came after the starting stock')
    assert.deepEqual(await deliveriesOf(caller, vodka.id), [
      [olderArrival, 24, 18],
      [newerReceipt.delivered_at, 24, 20],
    ])
  })

  test('a receipt back-dated before a cost typed in since leaves the typed cost, and keeps its own price on its movement', async () => {
    const caller = await ctx.newCaller()
    const vodka = await createItem(ctx, caller, { quantity: 10, case_size: 12, cost_per_unit: 18.5 })
    const order = await shippedAtCasePrice(caller, vodka.id, 240)
    await tick()
    const arrival = new Date().toISOString()
    await tick()
    await ok(ctx, caller, 'PUT', `/v1/inventory/items/${vodka.id}`, { cost_per_unit: 19 })
    await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/receive`, {
      received_by: 'Sam',
      received_at: arrival,
      items: [{ inventory_item_id: vodka.id, quantity_received: 2 }],
    })
    assert.equal((await itemOf(caller, vodka.id)).cost_per_unit, 19, 'the cost typed after the delivery arrived stands')
    assert.deepEqual(await deliveriesOf(caller, vodka.id), [[arrival, 24, 20]])
  })

  test('a receipt back-dated between a typed cost and a later receipt at that same cost leaves the later receipt’s price', async () => {
    const caller = await ctx.newCaller()
    const vodka = await createItem(ctx, caller, { quantity: 10, case_size: 12, cost_per_unit: 18.5 })
    const older = await shippedAtCasePrice(caller, vodka.id, 216)
    const newer = await shippedAtCasePrice(caller, vodka.id, 240)
    await ok(ctx, caller, 'PUT', `/v1/inventory/items/${vodka.id}`, { cost_per_unit: 20 })
    await tick()
    const olderArrival = new Date().toISOString()
    await tick()
    await ok(ctx, caller, 'POST', `/v1/orders/${newer.id}/receive`, { received_by: 'Sam', items: [{ inventory_item_id: vodka.id, quantity_received: 2 }] })
    await ok(ctx, caller, 'POST', `/v1/orders/${older.id}/receive`, {
      received_by: 'Alex',
      received_at: olderArrival,
      items: [{ inventory_item_id: vodka.id, quantity_received: 2 }],
    })
    assert.equal((await itemOf(caller, vodka.id)).cost_per_unit, 20, 'the latest receipt was at $20 a bottle')
  })

  test('rejects a received_at in the future with 400 invalid_parameter and changes nothing', async () => {
    const caller = await ctx.newCaller()
    const vodka = await createItem(ctx, caller, { quantity: 10, case_size: 12, cost_per_unit: 18.5 })
    const order = await shippedAtCasePrice(caller, vodka.id, 240)
    const before = await snapshot(ctx, caller, order.id)
    const response = await ctx.request('POST', `/v1/orders/${order.id}/receive`, {
      key: caller.key,
      body: {
        received_by: 'Sam',
        received_at: new Date(Date.now() + 3_600_000).toISOString(),
        items: [{ inventory_item_id: vodka.id, quantity_received: 2 }],
      },
    })
    assert.equal(response.statusCode, 400, response.body)
    const { error } = json(response)
    assert.equal(error.code, 'invalid_parameter')
    assert.equal(error.details.parameter, 'received_at')
    assert.match(error.message, /in the future/)
    assert.deepEqual(await snapshot(ctx, caller, order.id), before)
  })
})

describe('a receipt back-dated before a count', () => {
  test('leaves current stock as counted, and the variance window counts the delivery', async () => {
    const caller = await ctx.newCaller()
    const lager = await createItem(ctx, caller, { name: 'Lager 12oz Can', unit: 'can', size_ml: 355, category: 'beer', quantity: 24, cost_per_unit: 1.25, case_size: 24 })
    await count(ctx, caller, [{ item_id: lager.id, quantity: 24 }])
    const order = await shippedAtCasePrice(caller, lager.id, 33.6)
    await tick()
    const arrivedAt = new Date().toISOString()
    await tick()
    const afterArrival = new Date().toISOString()
    await tick()
    // The closing count saw the 48 cans on the shelf before anyone entered the invoice.
    await count(ctx, caller, [{ item_id: lager.id, quantity: 70 }])
    const received = await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/receive`, {
      received_by: 'Sam',
      received_at: arrivedAt,
      items: [{ inventory_item_id: lager.id, quantity_received: 2 }],
    })
    assert.equal(received.delivered_at, arrivedAt)
    const item = await itemOf(caller, lager.id)
    assert.equal(item.quantity, 70, 'as counted')
    assert.equal(item.cost_per_unit, 1.4, 'still its latest receipt: 33.60 a case of 24')
    assert.deepEqual(await deliveriesOf(caller, lager.id), [], 'history takes no current stock')
    const report = json(await ctx.request('GET', '/v1/analytics/variance', { key: caller.key })).data
    const [line] = report.items
    assert.deepEqual([line.window.opening, line.window.deliveries, line.window.closing, line.actual_consumption], [24, 48, 70, 2])
    await assertRollupsMatchRaw(ctx, caller)
    // A count entered later for a moment after the delivery expects it.
    const between = await count(ctx, caller, [{ item_id: lager.id, quantity: 71 }], afterArrival)
    assert.deepEqual(between.variance_detected, [{ item_id: lager.id, expected: 72, actual: 71, variance: -1 }])
  })
})
