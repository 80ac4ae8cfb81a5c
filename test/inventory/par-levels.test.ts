import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parse } from 'csv-parse/sync'
import { listEvents } from '../../src/platform/outbox.js'
import { createTestContext, json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

async function getItem(caller: Caller, id: string) {
  return json(await ctx.request('GET', `/v1/inventory/items/${id}`, { key: caller.key })).data
}

async function names(caller: Caller, query: string) {
  const response = await ctx.request('GET', `/v1/inventory/items${query}`, { key: caller.key })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).data.map((item: { name: string }) => item.name)
}

describe('par_level on items', () => {
  test('is kept on create (null when not given), answered by get and CSV, changed by PUT and cleared by null', async () => {
    const caller = await ctx.newCaller()
    const unset = await createItem(ctx, caller, { name: 'A no par' })
    assert.equal(unset.par_level, null)
    const item = await createItem(ctx, caller, { name: 'B par', par_level: 12.125 })
    assert.equal(item.par_level, 12.125)
    assert.equal((await getItem(caller, item.id)).par_level, 12.125)
    const csv = parse((await ctx.request('GET', '/v1/inventory/items?format=csv', { key: caller.key })).body, { columns: true }) as Record<string, string>[]
    assert.deepEqual(
      csv.map((row) => [row.name, row.par_level]),
      [
        ['A no par', ''],
        ['B par', '12.125'],
      ],
    )

    const changed = await ctx.request('PUT', `/v1/inventory/items/${item.id}`, { key: caller.key, body: { par_level: 0 } })
    assert.equal(json(changed).data.par_level, 0)
    const cleared = await ctx.request('PUT', `/v1/inventory/items/${item.id}`, { key: caller.key, body: { par_level: null } })
    assert.equal(cleared.statusCode, 200, cleared.body)
    assert.equal(json(cleared).data.par_level, null)
  })

  test('refuses a negative par or more than 3 decimals with invalid_quantity, changing nothing', async () => {
    const caller = await ctx.newCaller()
    const item = await createItem(ctx, caller, { par_level: 6 })
    const before = await getItem(caller, item.id)
    for (const par_level of [-1, 2.0001]) {
      const created = await ctx.request('POST', '/v1/inventory/items', {
        key: caller.key,
        body: { name: 'Gin', sku: 'GIN', category: 'spirits', quantity: 3, unit: 'bottle', location: 'main_bar', par_level },
      })
      assert.equal(created.statusCode, 400, created.body)
      assert.deepEqual([json(created).error.code, json(created).error.details.parameter], ['invalid_quantity', 'par_level'])
      const updated = await ctx.request('PUT', `/v1/inventory/items/${item.id}`, { key: caller.key, body: { par_level, name: 'Renamed' } })
      assert.equal(updated.statusCode, 400, updated.body)
      assert.equal(json(updated).error.code, 'invalid_quantity')
    }
    assert.deepEqual(await getItem(caller, item.id), before)
    assert.equal(json(await ctx.request('GET', '/v1/inventory/items', { key: caller.key })).pagination.total, 1)
  })

  test('below_par=true lists items under their par; false the others, items without a par included', async () => {
    const caller = await ctx.newCaller()
    await createItem(ctx, caller, { name: 'Under par', quantity: 9.5, par_level: 10 })
    await createItem(ctx, caller, { name: 'At par', quantity: 10, par_level: 10 })
    await createItem(ctx, caller, { name: 'Over par', quantity: 11, par_level: 10 })
    await createItem(ctx, caller, { name: 'Empty, zero par', quantity: 0, par_level: 0 })
    await createItem(ctx, caller, { name: 'No par', quantity: 0 })
    assert.deepEqual(await names(caller, '?below_par=true'), ['Under par'])
    assert.deepEqual(await names(caller, '?below_par=false'), ['At par', 'Empty, zero par', 'No par', 'Over par'])
    assert.equal((await names(caller, '')).length, 5)
    const csv = parse((await ctx.request('GET', '/v1/inventory/items?below_par=true&format=csv', { key: caller.key })).body, { columns: true }) as Record<string, string>[]
    assert.deepEqual(
      csv.map((row) => row.name),
      ['Under par'],
    )
    const bad = await ctx.request('GET', '/v1/inventory/items?below_par=maybe', { key: caller.key })
    assert.equal(bad.statusCode, 400)
    assert.equal(json(bad).error.code, 'invalid_parameter')
  })

  test('inventory.low_stock recommends an order up to the par when the item has one', async () => {
    const caller = await ctx.newCaller()
    const item = await createItem(ctx, caller, { quantity: 10, reorder_point: 4, par_level: 15, case_size: 6 })
    await ctx.request('PUT', `/v1/inventory/items/${item.id}`, { key: caller.key, body: { quantity: 3 } })
    const [low] = await listEvents(ctx.database.db, caller.tenant, 'inventory.low_stock')
    // 15 − 3 = 12: two cases of 6 (without a par, twice the reorder point: 8 − 3, one case).
    assert.equal((low!.data as { recommended_order: number }).recommended_order, 12)
  })
})
