import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { listEvents } from '../../src/platform/outbox.js'
import { type Caller, createTestContext, json, type TestContext } from '../helpers/context.js'
import { createItem, createLocations } from '../helpers/inventory.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

/** A caller whose account has a storeroom and a second bar beside main_bar. */
async function groupCaller(): Promise<Caller> {
  const caller = await ctx.newCaller()
  await createLocations(ctx, caller, ['storeroom', 'bar_b'])
  return caller
}

async function quantityOf(caller: Caller, itemId: string): Promise<number> {
  return json(await ctx.request('GET', `/v1/inventory/items/${itemId}`, { key: caller.key })).data.quantity
}

async function movementsOf(caller: Caller, itemId: string) {
  return json(await ctx.request('GET', `/v1/inventory/items/${itemId}/movements`, { key: caller.key })).data as {
    kind: string
    change: number
    reference_id: string | null
    actor: string
  }[]
}

/** Every item, transfer and event of the account: a refused request leaves all three as they were. */
async function accountState(caller: Caller) {
  const items = json(await ctx.request('GET', '/v1/inventory/items', { key: caller.key, query: { per_page: '100' } })).data
  const transfers = json(await ctx.request('GET', '/v1/inventory/transfers', { key: caller.key })).data
  return { items, transfers, events: (await listEvents(ctx.database.db, caller.tenant)).length }
}

function transfer(caller: Caller, body: Record<string, unknown>) {
  return ctx.request('POST', '/v1/inventory/transfers', { key: caller.key, body: { from_location: 'storeroom', to_location: 'main_bar', transferred_by: 'sam', ...body } })
}

const GIN = { name: 'Tanqueray 750ml', sku: 'TANQ-750', size_ml: 750, cost_per_unit: 21 }

describe('POST /v1/inventory/transfers', () => {
  test('moves stock out of the source and into the item of the same SKU, with ledger rows and events on both sides', async () => {
    const caller = await groupCaller()
    const store = await createItem(ctx, caller, { ...GIN, location: 'storeroom', quantity: 24, reorder_point: 0 })
    const bar = await createItem(ctx, caller, { ...GIN, location: 'main_bar', quantity: 2, reorder_point: 3 })
    const response = await transfer(caller, { items: [{ item_id: store.id, quantity: 6 }], notes: 'Friday' })
    assert.equal(response.statusCode, 201, response.body)
    const result = json(response).data
    assert.match(result.id, /^trf_/)
    assert.deepEqual(result.items, [{ from_item_id: store.id, to_item_id: bar.id, quantity: 6, unit_cost: 21 }])
    assert.equal(result.from_location, 'storeroom')
    assert.equal(result.to_location, 'main_bar')
    assert.equal(result.notes, 'Friday')
    assert.equal(result.voided_at, null)
    assert.equal(await quantityOf(caller, store.id), 18)
    assert.equal(await quantityOf(caller, bar.id), 8)
    const [storeMove] = await movementsOf(caller, store.id)
    const [barMove] = await movementsOf(caller, bar.id)
    assert.deepEqual([storeMove!.kind, storeMove!.change, storeMove!.reference_id, storeMove!.actor], ['transfer', -6, result.id, 'sam'])
    assert.deepEqual([barMove!.kind, barMove!.change, barMove!.reference_id], ['transfer', 6, result.id])
    const updated = await listEvents(ctx.database.db, caller.tenant, 'inventory.updated')
    const byItem = new Map(updated.map((event) => [(event.data as { item_id: string }).item_id, event.data as { change: number; updated_by: string }]))
    assert.deepEqual([byItem.get(store.id)?.change, byItem.get(store.id)?.updated_by], [-6, 'sam'])
    assert.equal(byItem.get(bar.id)?.change, 6)
    assert.deepEqual(json(await ctx.request('GET', `/v1/inventory/transfers/${result.id}`, { key: caller.key })).data, result)
  })

  test('creates the destination item from the source’s product fields when that location has none, and a case arrives as its units', async () => {
    const caller = await groupCaller()
    const cases = await createItem(ctx, caller, {
      ...GIN,
      sku: 'TANQ-CASE',
      location: 'storeroom',
      unit: 'case',
      case_size: 12,
      quantity: 5,
      cost_per_unit: 240,
      reorder_point: 1,
      par_level: 4,
    })
    const result = json(await transfer(caller, { items: [{ item_id: cases.id, quantity: 1 }] })).data
    const created = json(await ctx.request('GET', `/v1/inventory/items/${result.items[0].to_item_id}`, { key: caller.key })).data
    assert.equal(created.location, 'main_bar')
    assert.deepEqual(
      [created.sku, created.unit, created.case_size, created.cost_per_unit, created.quantity, created.reorder_point, created.par_level],
      ['TANQ-CASE', 'case', 12, 240, 1, 0, null],
    )
    const weighed = await createItem(ctx, caller, { ...GIN, sku: 'TANQ-W', location: 'storeroom', quantity: 3, full_weight_g: 1250, empty_weight_g: 450 })
    const withWeights = json(await transfer(caller, { items: [{ item_id: weighed.id, quantity: 1 }] })).data
    const weighedThere = json(await ctx.request('GET', `/v1/inventory/items/${withWeights.items[0].to_item_id}`, { key: caller.key })).data
    assert.deepEqual([weighedThere.full_weight_g, weighedThere.empty_weight_g], [1250, 450])
    assert.equal(await quantityOf(caller, cases.id), 4)

    // The bar keeps the product by the bottle: a case of 12 arrives as 12 bottles, at a twelfth of the case's cost.
    const bottles = await createItem(ctx, caller, { ...GIN, sku: 'TANQ-CASE', location: 'bar_b', quantity: 1, cost_per_unit: 20 })
    const toBottles = json(await transfer(caller, { to_location: 'bar_b', items: [{ item_id: cases.id, quantity: 2 }] })).data
    assert.equal(toBottles.items[0].to_item_id, bottles.id)
    assert.equal(await quantityOf(caller, bottles.id), 25)
    const [inward] = await movementsOf(caller, bottles.id)
    assert.deepEqual([inward!.kind, inward!.change], ['transfer', 24])
  })

  test('a transfer back-dated before the items’ latest counts is history: their stock stays as counted', async () => {
    const caller = await groupCaller()
    const store = await createItem(ctx, caller, { ...GIN, location: 'storeroom', quantity: 10 })
    const bar = await createItem(ctx, caller, { ...GIN, location: 'main_bar', quantity: 1 })
    const count = await ctx.request('POST', '/v1/inventory/count', {
      key: caller.key,
      body: { location: 'main_bar', counted_by: 'maria', items: [{ item_id: bar.id, quantity: 5 }] },
    })
    assert.equal(count.statusCode, 201, count.body)
    const response = await transfer(caller, { transferred_at: new Date(Date.now() - 3_600_000).toISOString(), items: [{ item_id: store.id, quantity: 4 }] })
    assert.equal(response.statusCode, 201, response.body)
    assert.equal(await quantityOf(caller, bar.id), 5, 'the count after the transfer already saw it on the shelf')
    assert.equal(await quantityOf(caller, store.id), 10, 'stocked after it: the starting quantity already left it out')
    assert.deepEqual(
      (await movementsOf(caller, bar.id)).map((move) => move.kind),
      ['count', 'adjustment'],
      'no ledger row: history',
    )
  })

  test('refuses bad transfers with the documented code, and changes nothing', async () => {
    const caller = await groupCaller()
    const store = await createItem(ctx, caller, { ...GIN, location: 'storeroom', quantity: 10 })
    const atBar = await createItem(ctx, caller, { name: 'Lime juice', sku: 'LIME', location: 'main_bar', unit: 'bottle', size_ml: 1000 })
    const caseWithoutSize = await createItem(ctx, caller, { ...GIN, sku: 'TANQ-C2', location: 'storeroom', unit: 'case', quantity: 3 })
    await createItem(ctx, caller, { ...GIN, sku: 'TANQ-C2', location: 'main_bar', unit: 'bottle', quantity: 1 })
    const before = await accountState(caller)
    const cases: [Record<string, unknown>, number, string, string?][] = [
      [{ to_location: 'storeroom', items: [{ item_id: store.id, quantity: 1 }] }, 400, 'invalid_parameter', 'to_location'],
      [{ items: [{ item_id: store.id, quantity: 0 }] }, 400, 'invalid_quantity', 'items[0].quantity'],
      [{ items: [{ item_id: store.id, quantity: -2 }] }, 400, 'invalid_quantity'],
      [{ items: [{ item_id: store.id, quantity: 1.2345 }] }, 400, 'invalid_quantity'],
      [{ to_location: 'nowhere', items: [{ item_id: store.id, quantity: 1 }] }, 404, 'location_not_found'],
      [{ from_location: 'nowhere', items: [{ item_id: store.id, quantity: 1 }] }, 404, 'location_not_found'],
      [{ items: [{ item_id: 'item_missing', quantity: 1 }] }, 404, 'item_not_found'],
      [{ items: [{ item_id: atBar.id, quantity: 1 }] }, 400, 'invalid_parameter', 'items[0].item_id'],
      [
        {
          items: [
            { item_id: store.id, quantity: 1 },
            { item_id: store.id, quantity: 2 },
          ],
        },
        400,
        'invalid_parameter',
        'items[1].item_id',
      ],
      [{ transferred_at: new Date(Date.now() + DAY_MS).toISOString(), items: [{ item_id: store.id, quantity: 1 }] }, 400, 'invalid_parameter', 'transferred_at'],
      [
        {
          items: [
            { item_id: store.id, quantity: 1 },
            { item_id: caseWithoutSize.id, quantity: 1 },
          ],
        },
        409,
        'transfer_mismatch',
        'items[1].item_id',
      ],
    ]
    for (const [body, status, code, parameter] of cases) {
      const response = await transfer(caller, body)
      assert.equal(response.statusCode, status, `${JSON.stringify(body)}: ${response.body}`)
      const error = json(response).error
      assert.equal(error.code, code, response.body)
      if (parameter) assert.equal(error.details?.parameter, parameter, response.body)
    }
    assert.deepEqual(await accountState(caller), before)
    const missing = await ctx.request('GET', '/v1/inventory/transfers/trf_missing', { key: caller.key })
    assert.equal(json(missing).error.code, 'transfer_not_found')
    const voidMissing = await ctx.request('DELETE', '/v1/inventory/transfers/trf_missing', { key: caller.key })
    assert.equal(voidMissing.statusCode, 404)
    assert.deepEqual(await accountState(caller), before)
  })
})

describe('GET and DELETE /v1/inventory/transfers', () => {
  test('lists by a location on either side, by item and by date, and a void reverses the stock and keeps the record', async () => {
    const caller = await groupCaller()
    const store = await createItem(ctx, caller, { ...GIN, location: 'storeroom', quantity: 30 })
    const toMain = json(await transfer(caller, { items: [{ item_id: store.id, quantity: 2 }] })).data
    const toB = json(await transfer(caller, { to_location: 'bar_b', items: [{ item_id: store.id, quantity: 3 }], transferred_at: '2026-01-10T20:00:00Z' })).data
    const list = (query: Record<string, string>) => ctx.request('GET', '/v1/inventory/transfers', { key: caller.key, query }).then((response) => json(response))
    assert.deepEqual(
      (await list({})).data.map((entry: { id: string }) => entry.id),
      [toMain.id, toB.id],
    )
    assert.deepEqual(
      (await list({ location: 'bar_b' })).data.map((entry: { id: string }) => entry.id),
      [toB.id],
    )
    assert.deepEqual((await list({ location: 'storeroom' })).pagination.total, 2)
    assert.deepEqual(
      (await list({ item_id: toMain.items[0].to_item_id })).data.map((entry: { id: string }) => entry.id),
      [toMain.id],
    )
    assert.deepEqual(
      (await list({ date_from: '2026-01-01', date_to: '2026-01-31' })).data.map((entry: { id: string }) => entry.id),
      [toB.id],
    )
    assert.equal((await list({ location: 'nowhere' })).error.code, 'location_not_found')
    assert.equal((await list({ date_from: '2026-02-01', date_to: '2026-01-01' })).error.code, 'invalid_parameter')

    assert.equal(await quantityOf(caller, store.id), 28, 'the January transfer is history for the storeroom item, stocked today')
    assert.equal(await quantityOf(caller, toB.items[0].to_item_id), 3, 'the item it created at bar_b was stocked just before it')
    const voided = await ctx.request('DELETE', `/v1/inventory/transfers/${toMain.id}`, { key: caller.key })
    assert.equal(voided.statusCode, 200, voided.body)
    assert.ok(json(voided).data.voided_at)
    assert.equal(await quantityOf(caller, store.id), 30)
    assert.equal(await quantityOf(caller, toMain.items[0].to_item_id), 0)
    const again = await ctx.request('DELETE', `/v1/inventory/transfers/${toMain.id}`, { key: caller.key })
    assert.equal(again.statusCode, 200)
    assert.equal(await quantityOf(caller, store.id), 30, 'voiding twice changes nothing')
    assert.deepEqual(
      (await movementsOf(caller, store.id)).slice(0, 2).map((move) => [move.kind, move.change]),
      [
        ['transfer', 2],
        ['transfer', -2],
      ],
    )
  })
})
