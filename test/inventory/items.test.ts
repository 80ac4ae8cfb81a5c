import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { listEvents } from '../../src/platform/outbox.js'
import { createTestContext, json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

describe('POST /v1/inventory/items', () => {
  test('creates an item with every field and answers 201 with timestamps', async () => {
    const caller = await ctx.newCaller()
    const response = await ctx.request('POST', '/v1/inventory/items', {
      key: caller.key,
      body: {
        name: 'Buffalo Trace 750ml',
        sku: 'BT-750',
        category: 'spirits',
        quantity: 6.5,
        unit: 'bottle',
        size_ml: 750,
        case_size: 12,
        location: 'main_bar',
        reorder_point: 3,
        cost_per_unit: 24.1234,
      },
    })
    assert.equal(response.statusCode, 201)
    const item = json(response).data
    assert.match(item.id, /^item_/)
    assert.deepEqual(
      { ...item, id: undefined, created_at: undefined, last_updated: undefined },
      {
        id: undefined,
        name: 'Buffalo Trace 750ml',
        sku: 'BT-750',
        category: 'spirits',
        quantity: 6.5,
        unit: 'bottle',
        size_ml: 750,
        case_size: 12,
        location: 'main_bar',
        reorder_point: 3,
        cost_per_unit: 24.1234,
        full_weight_g: null,
        empty_weight_g: null,
        par_level: null,
        created_at: undefined,
        last_updated: undefined,
      },
    )
    assert.ok(!Number.isNaN(Date.parse(item.created_at)))
    const fetched = await ctx.request('GET', `/v1/inventory/items/${item.id}`, { key: caller.key })
    assert.equal(json(fetched).data.quantity, 6.5)
  })

  test('rejects a negative quantity with invalid_quantity and changes nothing', async () => {
    const caller = await ctx.newCaller()
    const response = await ctx.request('POST', '/v1/inventory/items', {
      key: caller.key,
      body: { name: 'X', sku: 'NEG', category: 'beer', quantity: -1, unit: 'can', location: 'main_bar' },
    })
    assert.equal(response.statusCode, 400)
    assert.equal(json(response).error.code, 'invalid_quantity')
    const list = await ctx.request('GET', '/v1/inventory/items', { key: caller.key })
    assert.equal(json(list).pagination.total, 0)
    assert.equal((await listEvents(ctx.database.db, caller.tenant)).length, 0)
  })

  test('rejects more than 3 decimals with invalid_quantity', async () => {
    const caller = await ctx.newCaller()
    const response = await ctx.request('POST', '/v1/inventory/items', {
      key: caller.key,
      body: { name: 'X', sku: 'DEC', category: 'beer', quantity: 1.2345, unit: 'can', location: 'main_bar' },
    })
    assert.equal(response.statusCode, 400)
    assert.equal(json(response).error.code, 'invalid_quantity')
  })

  test('rejects an unknown unit with invalid_unit', async () => {
    const caller = await ctx.newCaller()
    const response = await ctx.request('POST', '/v1/inventory/items', {
      key: caller.key,
      body: { name: 'X', sku: 'U', category: 'beer', quantity: 1, unit: 'barrel', location: 'main_bar' },
    })
    assert.equal(response.statusCode, 400)
    assert.equal(json(response).error.code, 'invalid_unit')
    assert.equal(json(response).error.details.value, 'barrel')
  })

  test('rejects an unknown location with 404 location_not_found', async () => {
    const caller = await ctx.newCaller()
    const response = await ctx.request('POST', '/v1/inventory/items', {
      key: caller.key,
      body: { name: 'X', sku: 'L', category: 'beer', quantity: 1, unit: 'can', location: 'rooftop' },
    })
    assert.equal(response.statusCode, 404)
    assert.equal(json(response).error.code, 'location_not_found')
  })

  test('answers 409 duplicate_sku for a SKU already in use, and allows it again after delete', async () => {
    const caller = await ctx.newCaller()
    const first = await createItem(ctx, caller, { sku: 'DUP-1' })
    const again = await ctx.request('POST', '/v1/inventory/items', {
      key: caller.key,
      body: { name: 'Y', sku: 'DUP-1', category: 'beer', quantity: 1, unit: 'can', location: 'main_bar' },
    })
    assert.equal(again.statusCode, 409)
    assert.equal(json(again).error.code, 'duplicate_sku')
    await ctx.request('DELETE', `/v1/inventory/items/${first.id}`, { key: caller.key })
    const reused = await createItem(ctx, caller, { sku: 'DUP-1' })
    assert.notEqual(reused.id, first.id)
  })

  test('concurrent creates of one SKU make exactly one item; the rest are duplicate_sku', async () => {
    const caller = await ctx.newCaller()
    const body = { name: 'Race', sku: 'RACE-1', category: 'beer', quantity: 1, unit: 'can', location: 'main_bar' }
    const responses = await Promise.all(Array.from({ length: 8 }, () => ctx.request('POST', '/v1/inventory/items', { key: caller.key, body })))
    const statuses = responses.map((response) => response.statusCode).sort()
    assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409, 409, 409])
    for (const response of responses.filter((r) => r.statusCode === 409)) {
      assert.equal(json(response).error.code, 'duplicate_sku')
    }
  })

  test('rejects wrong types and unknown fields with invalid_parameter naming the field', async () => {
    const caller = await ctx.newCaller()
    const wrongType = await ctx.request('POST', '/v1/inventory/items', {
      key: caller.key,
      body: { name: 'X', sku: 'T', category: 'beer', quantity: '3', unit: 'can', location: 'main_bar' },
    })
    assert.equal(wrongType.statusCode, 400)
    assert.deepEqual(json(wrongType).error.details, { parameter: 'quantity', value: '3' })
    const unknown = await ctx.request('POST', '/v1/inventory/items', {
      key: caller.key,
      body: { name: 'X', sku: 'T', category: 'beer', quantity: 3, unit: 'can', location: 'main_bar', colour: 'red' },
    })
    assert.equal(json(unknown).error.code, 'invalid_parameter')
    assert.deepEqual(json(unknown).error.details, { parameter: 'colour', value: 'red' })
    const missing = await ctx.request('POST', '/v1/inventory/items', {
      key: caller.key,
      body: { name: 'X', category: 'beer', quantity: 3, unit: 'can', location: 'main_bar' },
    })
    assert.deepEqual(json(missing).error.details, { parameter: 'sku', value: null })
  })
})

describe('GET /v1/inventory/items/:id', () => {
  test('answers 404 item_not_found for an unknown id and for another account’s item', async () => {
    const owner = await ctx.newCaller()
    const stranger = await ctx.newCaller()
    const item = await createItem(ctx, owner)
    for (const [key, id] of [
      [owner.key, 'item_missing'],
      [stranger.key, item.id],
    ]) {
      const response = await ctx.request('GET', `/v1/inventory/items/${id}`, { key })
      assert.equal(response.statusCode, 404)
      assert.equal(json(response).error.code, 'item_not_found')
    }
  })

  test('keeps sandbox and production data apart on one account', async () => {
    const live = await ctx.newCaller()
    const sandboxKey = await ctx.keyFor(live, ['inventory:read'], 'sandbox')
    const item = await createItem(ctx, live)
    assert.equal((await ctx.request('GET', `/v1/inventory/items/${item.id}`, { key: live.key })).statusCode, 200)
    const fromSandbox = await ctx.request('GET', `/v1/inventory/items/${item.id}`, { key: sandboxKey })
    assert.equal(fromSandbox.statusCode, 404)
    assert.equal(json(await ctx.request('GET', '/v1/inventory/items', { key: sandboxKey })).pagination.total, 0)
  })
})

describe('PUT /v1/inventory/items/:id', () => {
  test('updates fields and moves last_updated', async () => {
    const caller = await ctx.newCaller()
    const item = await createItem(ctx, caller)
    await new Promise((resolve) => setTimeout(resolve, 5))
    const response = await ctx.request('PUT', `/v1/inventory/items/${item.id}`, {
      key: caller.key,
      body: { quantity: 7.25, reorder_point: 2, cost_per_unit: 19, name: 'Renamed' },
    })
    assert.equal(response.statusCode, 200)
    const updated = json(response).data
    assert.equal(updated.quantity, 7.25)
    assert.equal(updated.reorder_point, 2)
    assert.equal(updated.cost_per_unit, 19)
    assert.equal(updated.name, 'Renamed')
    assert.ok(Date.parse(updated.last_updated) > Date.parse(item.last_updated as string), `${updated.last_updated} after ${item.last_updated}`)
  })

  test('moves last_updated when it sets the quantity the item already has (the quantity is confirmed), with no inventory.updated', async () => {
    const caller = await ctx.newCaller()
    const item = await createItem(ctx, caller, { quantity: 20 })
    // last_updated has millisecond precision: a later PUT must land in a later millisecond.
    await new Promise((resolve) => setTimeout(resolve, 5))
    const response = await ctx.request('PUT', `/v1/inventory/items/${item.id}`, { key: caller.key, body: { quantity: 20 } })
    assert.equal(response.statusCode, 200, response.body)
    const updated = json(response).data
    assert.equal(updated.quantity, 20)
    assert.ok(Date.parse(updated.last_updated) > Date.parse(item.last_updated as string), `${updated.last_updated} after ${item.last_updated}`)
    assert.equal((await listEvents(ctx.database.db, caller.tenant, 'inventory.updated')).length, 1, 'only the creation')
  })

  test('emits inventory.updated with the spec fields, and low_stock only when crossing below', async () => {
    const caller = await ctx.newCaller()
    const item = await createItem(ctx, caller, { quantity: 10, reorder_point: 4 })
    for (const quantity of [5, 3, 2]) {
      await ctx.request('PUT', `/v1/inventory/items/${item.id}`, { key: caller.key, body: { quantity } })
    }
    const updates = await listEvents(ctx.database.db, caller.tenant, 'inventory.updated')
    assert.equal(updates.length, 4)
    assert.deepEqual(updates[1]!.data, {
      item_id: item.id,
      name: item.name,
      previous_quantity: 10,
      new_quantity: 5,
      change: -5,
      location: 'main_bar',
      updated_by: caller.keyId,
    })
    const low = await listEvents(ctx.database.db, caller.tenant, 'inventory.low_stock')
    assert.equal(low.length, 1, 'one crossing, one event')
    assert.deepEqual(low[0]!.data, {
      item_id: item.id,
      name: item.name,
      current_quantity: 3,
      reorder_point: 4,
      location: 'main_bar',
      recommended_order: 5,
    })
  })

  test('answers item_not_found, invalid_quantity, invalid_unit and duplicate_sku, changing nothing', async () => {
    const caller = await ctx.newCaller()
    const item = await createItem(ctx, caller, { quantity: 5 })
    const other = await createItem(ctx, caller)
    const cases: [string, unknown, number, string][] = [
      ['item_nope', { quantity: 1 }, 404, 'item_not_found'],
      [item.id, { quantity: -2 }, 400, 'invalid_quantity'],
      [item.id, { unit: 'jug', quantity: 1 }, 400, 'invalid_unit'],
      [item.id, { sku: other.sku, quantity: 1 }, 409, 'duplicate_sku'],
      [item.id, { location: 'nowhere', quantity: 1 }, 404, 'location_not_found'],
      [item.id, {}, 400, 'invalid_parameter'],
    ]
    for (const [id, body, status, code] of cases) {
      const response = await ctx.request('PUT', `/v1/inventory/items/${id}`, { key: caller.key, body })
      assert.equal(response.statusCode, status, code)
      assert.equal(json(response).error.code, code)
    }
    const unchanged = json(await ctx.request('GET', `/v1/inventory/items/${item.id}`, { key: caller.key })).data
    assert.equal(unchanged.quantity, 5)
    assert.equal(unchanged.sku, item.sku)
    const movements = await ctx.database.db.selectFrom('stock_movements').selectAll().where('item_id', '=', item.id).execute()
    assert.equal(movements.length, 1, 'only the creation row')
  })
})

describe('DELETE /v1/inventory/items/:id', () => {
  test('answers {id, deleted: true} and the item is gone', async () => {
    const caller = await ctx.newCaller()
    const item = await createItem(ctx, caller)
    const response = await ctx.request('DELETE', `/v1/inventory/items/${item.id}`, { key: caller.key })
    assert.deepEqual(json(response).data, { id: item.id, deleted: true })
    assert.equal((await ctx.request('GET', `/v1/inventory/items/${item.id}`, { key: caller.key })).statusCode, 404)
    assert.equal((await ctx.request('DELETE', `/v1/inventory/items/${item.id}`, { key: caller.key })).statusCode, 404)
  })
})
