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
          body: { location: 'main_bar', counted_by: `counter-${index}`, items: [{ item_id: item.id, quantity: 30 + (index % 5) }, { item_id: other.id, quantity: index % 3 }] },
        })
      case 2:
        return ctx.request('POST', '/v1/inventory/batch', {
          key: caller.key,
          body: { updates: [{ item_id: other.id, change: 1 }, { item_id: item.id, change: 1.25 }] },
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
    const updates = (await listEvents(ctx.database.db, caller.tenant, 'inventory.updated')).filter(
      (event) => (event.data as { item_id: string }).item_id === target.id,
    )
    // An absolute quantity equal to the stock is still an anchor row, with nothing to announce.
    const changes = ledger.filter((row) => !new Big(row.delta).eq(0))
    assert.ok(ledger.filter((row) => new Big(row.delta).eq(0)).every((row) => row.anchor), 'only anchors write zero-delta rows')
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
    body: { location: 'main_bar', counted_by: 'x', items: [{ item_id: item.id, quantity: 1 }, { item_id: 'item_missing', quantity: 1 }] },
  })
  assert.equal(response.statusCode, 404)
  assert.equal(json(await ctx.request('GET', `/v1/inventory/items/${item.id}`, { key: caller.key })).data.quantity, 5)
  assert.deepEqual(await listEvents(ctx.database.db, caller.tenant), before)
})
