import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { type Caller, createTestContext, json, type TestContext } from '../helpers/context.js'
import { createItem, createLocations } from '../helpers/inventory.js'

/**
 * Transfers, waste and counts running at once on the same items lose no movement and never deadlock:
 * each takes its items' locks in one statement in id order. Needs a server, where the requests run on
 * several connections at once: skipped on the embedded database (one connection, one statement at a time).
 */

const url = process.env.DATABASE_URL
let ctx: TestContext

before(async () => {
  if (url) ctx = await createTestContext()
})
after(async () => {
  if (ctx) await ctx.close()
})

const skip = !url && 'needs DATABASE_URL (PostgreSQL)'

async function quantityOf(caller: Caller, itemId: string): Promise<number> {
  return json(await ctx.request('GET', `/v1/inventory/items/${itemId}`, { key: caller.key })).data.quantity
}

/** Every ledger row of the item chains on the one before, and the last one's after is the stock. */
async function assertLedgerChains(caller: Caller, itemId: string) {
  const rows = await ctx.database.db.selectFrom('stock_movements').select(['quantity_before', 'quantity_after']).where('item_id', '=', itemId).orderBy('sequence').execute()
  for (let index = 1; index < rows.length; index++) assert.equal(Number(rows[index]!.quantity_before), Number(rows[index - 1]!.quantity_after), `row ${index} of ${itemId}`)
  assert.equal(Number(rows.at(-1)!.quantity_after), await quantityOf(caller, itemId))
}

test('transfers both ways and waste at once on the same items all land, and the ledger chains', { skip }, async () => {
  const caller = await ctx.newCaller()
  await createLocations(ctx, caller, ['storeroom'])
  const product = { name: 'Tanqueray 750ml', sku: 'TANQ', size_ml: 750 }
  const store = await createItem(ctx, caller, { ...product, location: 'storeroom', quantity: 100 })
  const bar = await createItem(ctx, caller, { ...product, location: 'main_bar', quantity: 100 })
  const move = (from: string, to: string, itemId: string, quantity: number) =>
    ctx.request('POST', '/v1/inventory/transfers', {
      key: caller.key,
      body: { from_location: from, to_location: to, transferred_by: 'sam', items: [{ item_id: itemId, quantity }] },
    })
  const requests = [
    ...Array.from({ length: 10 }, () => move('storeroom', 'main_bar', store.id, 1)),
    ...Array.from({ length: 10 }, () => move('main_bar', 'storeroom', bar.id, 2)),
    ...Array.from({ length: 5 }, () =>
      ctx.request('POST', '/v1/inventory/waste', {
        key: caller.key,
        body: { location: 'main_bar', recorded_by: 'maria', items: [{ item_id: bar.id, quantity: 0.5, reason: 'spill' }] },
      }),
    ),
  ]
  for (const response of await Promise.all(requests)) assert.equal(response.statusCode, 201, response.body)
  assert.equal(await quantityOf(caller, store.id), 110)
  assert.equal(await quantityOf(caller, bar.id), 87.5)
  await assertLedgerChains(caller, store.id)
  await assertLedgerChains(caller, bar.id)
})

test('transfers racing a count keep every movement in the ledger; transfers creating one destination create it once', { skip }, async () => {
  const caller = await ctx.newCaller()
  await createLocations(ctx, caller, ['storeroom', 'bar_b'])
  const store = await createItem(ctx, caller, { name: 'Lager', sku: 'LAGER', unit: 'can', size_ml: 355, category: 'beer', location: 'storeroom', quantity: 200 })
  const transfers = Array.from({ length: 8 }, () =>
    ctx.request('POST', '/v1/inventory/transfers', {
      key: caller.key,
      body: { from_location: 'storeroom', to_location: 'bar_b', transferred_by: 'sam', items: [{ item_id: store.id, quantity: 3 }] },
    }),
  )
  const count = ctx.request('POST', '/v1/inventory/count', { key: caller.key, body: { location: 'storeroom', counted_by: 'maria', items: [{ item_id: store.id, quantity: 150 }] } })
  const [counted, ...moved] = await Promise.all([count, ...transfers])
  assert.equal(counted.statusCode, 201, counted.body)
  for (const response of moved) assert.equal(response.statusCode, 201, response.body)
  const atB = json(await ctx.request('GET', '/v1/inventory/items', { key: caller.key, query: { location: 'bar_b' } })).data
  assert.equal(atB.length, 1, 'one destination item, created by the first transfer and found by the others')
  assert.equal(atB[0].quantity, 24)
  await assertLedgerChains(caller, store.id)
  const storeQuantity = await quantityOf(caller, store.id)
  const countedAfter = moved.filter((response) => json(response).data.transferred_at > json(counted).data.counted_at).length
  assert.equal(storeQuantity, 150 - 3 * countedAfter, 'the count, less the transfers timed after it')
})
