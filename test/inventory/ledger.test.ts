import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import Big from 'big.js'
import { listEvents } from '../../src/platform/outbox.js'
import { createTestContext, json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

test('concurrent PUTs, counts and batches on one item leave a ledger that chains and sums to the stock', async () => {
  const caller = await ctx.newCaller()
  const item = await createItem(ctx, caller, { quantity: 50 })
  const other = await createItem(ctx, caller, { quantity: 5 })
  const requests = Array.from({ length: 60 }, (_, index) => {
    switch (index % 4) {
      case 0:
        return ctx.request('PUT', `/v1/inventory/items/${item.id}`, { key: caller.key, body: { quantity: 40 + (index % 7) } })
      case 1:
        return ctx.request('POST', '/v1/inventory/count', {
          key: caller.key,
          body: {
            location: 'main_bar',
            counted_by: `counter-${index}`,
            items: [
              { item_id: item.id, quantity: 30 + (index % 5) },
              { item_id: other.id, quantity: index % 3 },
            ],
          },
        })
      case 2:
        return ctx.request('POST', '/v1/inventory/batch', {
          key: caller.key,
          body: {
            updates: [
              { item_id: other.id, change: 1 },
              { item_id: item.id, change: 1.25 },
            ],
          },
        })
      default:
        return ctx.request('POST', '/v1/inventory/batch', { key: caller.key, body: { updates: [{ item_id: item.id, change: -0.5 }] } })
    }
  })
  const responses = await Promise.all(requests)
  for (const response of responses) assert.ok([200, 201].includes(response.statusCode), response.body)

  for (const target of [item, other]) {
    const stock = json(await ctx.request('GET', `/v1/inventory/items/${target.id}`, { key: caller.key })).data.quantity
    const ledger = await ctx.database.db
      .selectFrom('stock_movements')
      .select(['delta', 'quantity_before', 'quantity_after', 'anchor'])
      .where('item_id', '=', target.id)
      .orderBy('sequence')
      .execute()
    let running = new Big(0)
    for (const row of ledger) {
      assert.equal(new Big(row.quantity_before).toString(), running.toString(), 'each row starts where the previous ended')
      running = running.plus(row.delta)
      assert.equal(new Big(row.quantity_after).toString(), running.toString())
    }
    assert.equal(running.toNumber(), stock, 'the ledger sums to the final quantity')
    const updates = (await listEvents(ctx.database.db, caller.tenant, 'inventory.updated')).filter((event) => (event.data as { item_id: string }).item_id === target.id)
    // An absolute quantity equal to the stock is still an anchor row, with nothing to announce.
    const changes = ledger.filter((row) => !new Big(row.delta).eq(0))
    assert.ok(
      ledger.filter((row) => new Big(row.delta).eq(0)).every((row) => row.anchor),
      'only anchors write zero-delta rows',
    )
    assert.equal(updates.length, changes.length, 'one inventory.updated per ledger row that changed the stock')
  }
})

test('a request that fails midway leaves no ledger row, no event and no stock change', async () => {
  const caller = await ctx.newCaller()
  const item = await createItem(ctx, caller, { quantity: 5 })
  const before = await listEvents(ctx.database.db, caller.tenant)
  // The first line is valid and would be applied; the second fails the whole count.
  const response = await ctx.request('POST', '/v1/inventory/count', {
    key: caller.key,
    body: {
      location: 'main_bar',
      counted_by: 'x',
      items: [
        { item_id: item.id, quantity: 1 },
        { item_id: 'item_missing', quantity: 1 },
      ],
    },
  })
  assert.equal(response.statusCode, 404)
  assert.equal(json(await ctx.request('GET', `/v1/inventory/items/${item.id}`, { key: caller.key })).data.quantity, 5)
  assert.deepEqual(await listEvents(ctx.database.db, caller.tenant), before)
})

test('GET /v1/inventory/items/:id/movements shows the ledger newest first, with what changed, who and from what; an unknown item is 404', async () => {
  const caller = await ctx.newCaller()
  const item = await createItem(ctx, caller, { quantity: 10, cost_per_unit: 18.5 })
  await ctx.request('PUT', `/v1/inventory/items/${item.id}`, { key: caller.key, body: { quantity: 12 } })
  const count = await ctx.request('POST', '/v1/inventory/count', {
    key: caller.key,
    body: { location: 'main_bar', counted_by: 'user_maria', items: [{ item_id: item.id, quantity: 11.5 }] },
  })
  const countId = json(count).data.count_id
  const response = await ctx.request('GET', `/v1/inventory/items/${item.id}/movements`, { key: caller.key, query: { per_page: '2' } })
  assert.equal(response.statusCode, 200, response.body)
  const page = json(response)
  assert.equal(page.pagination.total, 3)
  assert.deepEqual(
    page.data.map((movement: Record<string, unknown>) => [movement.kind, movement.change, movement.quantity_before, movement.quantity_after, movement.reference_id]),
    [
      ['count', -0.5, 12, 11.5, countId],
      ['adjustment', 2, 10, 12, null],
    ],
  )
  assert.equal(page.data[0].unit_cost, 18.5)
  assert.equal(page.data[0].location, 'main_bar')
  assert.equal(typeof page.data[0].actor, 'string')
  const missing = await ctx.request('GET', '/v1/inventory/items/item_nope/movements', { key: caller.key })
  assert.equal(missing.statusCode, 404)
  assert.equal(json(missing).error.code, 'item_not_found')
})
