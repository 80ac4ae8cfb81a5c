import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestContext, json, type TestContext, type Caller } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createDistributor, createOrder, eventsOf, ok, shipOrder, snapshot } from './fixtures.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

/** A shipped order of 2 cases of vodka (12 a case, 10 in stock) and 3 bottles of gin (5 in stock). */
async function shippedOrder(caller: Caller) {
  const distributor = await createDistributor(ctx, caller)
  const vodka = await createItem(ctx, caller, { name: 'Vodka', quantity: 10, case_size: 12 })
  const gin = await createItem(ctx, caller, { name: 'Gin', quantity: 5 })
  const order = await createOrder(ctx, caller, distributor.id, [
    { inventory_item_id: vodka.id, quantity: 2, unit: 'case' },
    { inventory_item_id: gin.id, quantity: 3, unit: 'bottle' },
  ])
  await shipOrder(ctx, caller, order.id)
  return { order, vodka, gin }
}

async function quantityOf(caller: Caller, itemId: string): Promise<number> {
  return (await ok(ctx, caller, 'GET', `/v1/inventory/items/${itemId}`)).quantity
}

describe('POST /v1/orders/:id/receive', () => {
  test('adds received minus damaged to stock in item units through the ledger, and emits the events', async () => {
    const caller = await ctx.newCaller()
    const { order, vodka, gin } = await shippedOrder(caller)
    const received = await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/receive`, {
      received_by: 'Sam',
      items: [
        { inventory_item_id: vodka.id, quantity_received: 2, quantity_damaged: 0.5 },
        { inventory_item_id: gin.id, quantity_received: 3 },
      ],
    })
    assert.equal(received.status, 'delivered')
    assert.equal(received.received_by, 'Sam')
    assert.deepEqual(
      received.items.map((line: any) => [line.inventory_item_id, line.quantity_received, line.quantity_damaged]),
      [
        [vodka.id, 2, 0.5],
        [gin.id, 3, 0],
      ],
    )
    // 1.5 good cases of 12 = 18 bottles.
    assert.equal(await quantityOf(caller, vodka.id), 28)
    assert.equal(await quantityOf(caller, gin.id), 8)
    const deliveries = await ctx.database.db
      .selectFrom('stock_movements')
      .select(['item_id', 'delta', 'reference_id', 'actor'])
      .where('kind', '=', 'delivery')
      .where('account_id', '=', caller.tenant.accountId)
      .orderBy('item_id')
      .execute()
    assert.deepEqual(
      deliveries.map((row) => [row.item_id, Number(row.delta), row.reference_id, row.actor]),
      [
        [vodka.id, 18, order.id, 'Sam'],
        [gin.id, 3, order.id, 'Sam'],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    )
    const updates = (await eventsOf(ctx, caller, 'inventory.updated')).filter((event) => event.updated_by === 'Sam')
    assert.deepEqual(
      updates.map((event) => [event.item_id, event.previous_quantity, event.new_quantity, event.change]).sort(),
      [
        [vodka.id, 10, 28, 18],
        [gin.id, 5, 8, 3],
      ].sort(),
    )
    assert.deepEqual(await eventsOf(ctx, caller, 'order.delivered'), [
      { order_id: order.id, delivered_at: received.delivered_at, received_by: 'Sam', items_received: 2, items_damaged: 1 },
    ])
  })

  test('units_damaged gives the damage in the item’s unit: 1 bottle of a case of 12', async () => {
    const caller = await ctx.newCaller()
    const { order, vodka, gin } = await shippedOrder(caller)
    const received = await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/receive`, {
      received_by: 'Sam',
      items: [
        { inventory_item_id: vodka.id, quantity_received: 2, units_damaged: 1 },
        { inventory_item_id: gin.id, quantity_received: 3, quantity_damaged: 1 },
      ],
    })
    assert.deepEqual(
      received.items.map((line: any) => [line.inventory_item_id, line.quantity_received, line.quantity_damaged, line.units_damaged]),
      [
        [vodka.id, 2, 0.0833, 1],
        [gin.id, 3, 1, 1],
      ],
    )
    // 24 bottles arrived, 1 broken.
    assert.equal(await quantityOf(caller, vodka.id), 33)
    assert.equal(await quantityOf(caller, gin.id), 7)
    assert.equal((await eventsOf(ctx, caller, 'order.delivered'))[0].items_damaged, 2)
  })

  test('rejects quantity_damaged and units_damaged on one line with invalid_parameter and changes nothing', async () => {
    const caller = await ctx.newCaller()
    const { order, vodka } = await shippedOrder(caller)
    const before = await snapshot(ctx, caller, order.id)
    const response = await ctx.request('POST', `/v1/orders/${order.id}/receive`, {
      key: caller.key,
      body: { received_by: 'Sam', items: [{ inventory_item_id: vodka.id, quantity_received: 2, quantity_damaged: 0.5, units_damaged: 1 }] },
    })
    assert.equal(response.statusCode, 400, response.body)
    const { error } = json(response)
    assert.equal(error.code, 'invalid_parameter')
    assert.equal(error.details.parameter, 'items[0].units_damaged')
    assert.match(error.message, /not both/)
    assert.deepEqual(await snapshot(ctx, caller, order.id), before)
  })

  test('PUT status delivered with the same fields receives too; unlisted lines count as not delivered', async () => {
    const caller = await ctx.newCaller()
    const { order, vodka, gin } = await shippedOrder(caller)
    const received = await ok(ctx, caller, 'PUT', `/v1/orders/${order.id}`, {
      status: 'delivered',
      received_by: 'Alex',
      items: [{ inventory_item_id: gin.id, quantity_received: 2 }],
    })
    assert.equal(received.status, 'delivered')
    assert.equal(await quantityOf(caller, gin.id), 7)
    assert.equal(await quantityOf(caller, vodka.id), 10)
    assert.equal(received.items.find((line: any) => line.inventory_item_id === vodka.id).quantity_received, 0)
  })

  test('receiving twice is rejected with 409 invalid_status and changes nothing', async () => {
    const caller = await ctx.newCaller()
    const { order, gin } = await shippedOrder(caller)
    const body = { received_by: 'Sam', items: [{ inventory_item_id: gin.id, quantity_received: 3 }] }
    await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/receive`, body)
    const before = await snapshot(ctx, caller, order.id)
    const again = await ctx.request('POST', `/v1/orders/${order.id}/receive`, { key: caller.key, body })
    assert.equal(again.statusCode, 409)
    assert.equal(json(again).error.code, 'invalid_status')
    assert.deepEqual(await snapshot(ctx, caller, order.id), before)
  })

  test('concurrent receipts of one order land once', async () => {
    const caller = await ctx.newCaller()
    const { order, vodka, gin } = await shippedOrder(caller)
    const body = {
      received_by: 'Sam',
      items: [
        { inventory_item_id: vodka.id, quantity_received: 2 },
        { inventory_item_id: gin.id, quantity_received: 3 },
      ],
    }
    const responses = await Promise.all([
      ...Array.from({ length: 4 }, () => ctx.request('POST', `/v1/orders/${order.id}/receive`, { key: caller.key, body })),
      ctx.request('PUT', `/v1/orders/${order.id}`, { key: caller.key, body: { status: 'delivered', ...body } }),
    ])
    assert.deepEqual(responses.map((response) => response.statusCode).sort(), [200, 409, 409, 409, 409])
    assert.equal(await quantityOf(caller, vodka.id), 34)
    assert.equal(await quantityOf(caller, gin.id), 8)
    assert.equal((await eventsOf(ctx, caller, 'order.delivered')).length, 1)
  })

  test('rejects receiving an order that has not shipped with 409 invalid_status and changes nothing', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const item = await createItem(ctx, caller)
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }])
    await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/submit`)
    const before = await snapshot(ctx, caller, order.id)
    const response = await ctx.request('POST', `/v1/orders/${order.id}/receive`, {
      key: caller.key,
      body: { received_by: 'Sam', items: [{ inventory_item_id: item.id, quantity_received: 1 }] },
    })
    assert.equal(response.statusCode, 409)
    assert.equal(json(response).error.code, 'invalid_status')
    assert.deepEqual(await snapshot(ctx, caller, order.id), before)
  })

  const badReceipts: Array<[string, string, (ids: { vodka: string; gin: string }) => object]> = [
    ['more damaged than received', 'invalid_quantity', ({ gin }) => ({ inventory_item_id: gin, quantity_received: 1, quantity_damaged: 2 })],
    ['more units damaged than arrived', 'invalid_quantity', ({ vodka }) => ({ inventory_item_id: vodka, quantity_received: 1, units_damaged: 13 })],
    ['a negative quantity', 'invalid_quantity', ({ gin }) => ({ inventory_item_id: gin, quantity_received: -1 })],
    ['an item not on the order', 'invalid_parameter', () => ({ inventory_item_id: 'item_other', quantity_received: 1 })],
  ]
  for (const [name, code, line] of badReceipts) {
    test(`rejects ${name} with ${code} and changes nothing`, async () => {
      const caller = await ctx.newCaller()
      const { order, vodka, gin } = await shippedOrder(caller)
      const before = await snapshot(ctx, caller, order.id)
      const response = await ctx.request('POST', `/v1/orders/${order.id}/receive`, {
        key: caller.key,
        body: { received_by: 'Sam', items: [line({ vodka: vodka.id, gin: gin.id })] },
      })
      assert.equal(response.statusCode, 400, response.body)
      assert.equal(json(response).error.code, code)
      assert.deepEqual(await snapshot(ctx, caller, order.id), before)
    })
  }

  test('answers 404 order_not_found for an unknown order', async () => {
    const caller = await ctx.newCaller()
    const response = await ctx.request('POST', '/v1/orders/ord_nope/receive', {
      key: caller.key,
      body: { received_by: 'Sam', items: [{ inventory_item_id: 'item_x', quantity_received: 1 }] },
    })
    assert.equal(response.statusCode, 404)
    assert.equal(json(response).error.code, 'order_not_found')
  })
})
