import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { listEvents } from '../../src/platform/outbox.js'
import { type Caller, createTestContext, json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

/** A caller whose account has the venues bar_b and storeroom beside main_bar. */
async function groupCaller(): Promise<Caller> {
  const caller = await ctx.newCaller()
  for (const [id, name] of [
    ['bar_b', 'Bar B'],
    ['storeroom', 'Storeroom'],
  ]) {
    const response = await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id, name } })
    assert.equal(response.statusCode, 201, response.body)
  }
  return caller
}

async function itemsOfSku(caller: Caller, sku: string, query: Record<string, string> = {}) {
  const response = await ctx.request('GET', '/v1/inventory/items', { key: caller.key, query: { sku, ...query } })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).data as { id: string; location: string; quantity: number; size_ml: number | null; unit: string }[]
}

/** What an account holds and has told: every item and every event. A refused write leaves both as they were. */
async function accountState(caller: Caller) {
  const items = json(await ctx.request('GET', '/v1/inventory/items', { key: caller.key, query: { per_page: '100' } })).data
  return { items, events: (await listEvents(ctx.database.db, caller.tenant)).length }
}

const TITO = { name: "Tito's Handmade Vodka 750ml", sku: 'TITO-750', unit: 'bottle', size_ml: 750 }

describe('one product at several locations', () => {
  test('the same SKU is accepted at two locations, and the sku filter lists it at both (with location: at one)', async () => {
    const caller = await groupCaller()
    const main = await createItem(ctx, caller, { ...TITO, quantity: 4, cost_per_unit: 20 })
    const second = await createItem(ctx, caller, { ...TITO, location: 'bar_b', quantity: 6, cost_per_unit: 20 })
    await createItem(ctx, caller, { name: 'Grey Goose 750ml', sku: 'GG-750', location: 'bar_b' })
    const everywhere = await itemsOfSku(caller, 'TITO-750')
    assert.deepEqual(
      everywhere.map((item) => [item.id, item.location]).sort(),
      [
        [main.id, 'main_bar'],
        [second.id, 'bar_b'],
      ].sort(),
    )
    assert.deepEqual(
      (await itemsOfSku(caller, 'TITO-750', { location: 'bar_b' })).map((item) => item.id),
      [second.id],
    )
    const value = json(await ctx.request('GET', '/v1/inventory/value', { key: caller.key, query: { sku: 'TITO-750' } })).data
    assert.equal(value.value, 200)
    assert.deepEqual(
      value.locations.map((entry: { location: string; value: number; items: number }) => [entry.location, entry.value, entry.items]),
      [
        ['bar_b', 120, 1],
        ['main_bar', 80, 1],
      ],
    )
  })

  test('the same SKU twice at one location is 409 duplicate_sku and creates nothing', async () => {
    const caller = await groupCaller()
    await createItem(ctx, caller, { ...TITO, location: 'bar_b' })
    const before = await accountState(caller)
    const again = await ctx.request('POST', '/v1/inventory/items', {
      key: caller.key,
      body: { ...TITO, name: 'Another Tito', category: 'spirits', quantity: 1, location: 'bar_b' },
    })
    assert.equal(again.statusCode, 409)
    assert.equal(json(again).error.code, 'duplicate_sku')
    assert.deepEqual(json(again).error.details, { sku: 'TITO-750' })
    assert.match(json(again).error.message, /already exists at bar_b/)
    assert.deepEqual(await accountState(caller), before)
  })

  test('another size_ml or another unit at another location is 409 duplicate_sku naming the field, and creates nothing', async () => {
    const caller = await groupCaller()
    const main = await createItem(ctx, caller, TITO)
    const before = await accountState(caller)
    const liter = await ctx.request('POST', '/v1/inventory/items', {
      key: caller.key,
      body: { ...TITO, size_ml: 1000, category: 'spirits', quantity: 1, location: 'bar_b' },
    })
    assert.equal(liter.statusCode, 409)
    assert.equal(json(liter).error.code, 'duplicate_sku')
    assert.deepEqual(json(liter).error.details, { sku: 'TITO-750', field: 'size_ml', value: 1000, item_id: main.id, location: 'main_bar' })
    assert.match(json(liter).error.message, /is 750 ml at main_bar/)
    const sizeless = await ctx.request('POST', '/v1/inventory/items', {
      key: caller.key,
      body: { name: 'Tito', sku: 'TITO-750', unit: 'bottle', category: 'spirits', quantity: 1, location: 'bar_b' },
    })
    assert.equal(json(sizeless).error.details.field, 'size_ml')
    const canned = await ctx.request('POST', '/v1/inventory/items', {
      key: caller.key,
      body: { ...TITO, unit: 'can', category: 'spirits', quantity: 1, location: 'bar_b' },
    })
    assert.equal(canned.statusCode, 409)
    assert.equal(json(canned).error.code, 'duplicate_sku')
    assert.equal(json(canned).error.details.field, 'unit')
    assert.match(json(canned).error.message, /kept in bottle at main_bar/)
    assert.deepEqual(await accountState(caller), before)
  })

  test('a storeroom may keep the SKU by the case', async () => {
    const caller = await groupCaller()
    await createItem(ctx, caller, TITO)
    const cases = await createItem(ctx, caller, { ...TITO, unit: 'case', case_size: 12, location: 'storeroom', quantity: 3 })
    assert.equal(cases.unit, 'case')
    assert.equal((await itemsOfSku(caller, 'TITO-750')).length, 2)
  })

  test('an update that would collide (sku, location, size_ml, unit) is 409 duplicate_sku and changes nothing', async () => {
    const caller = await groupCaller()
    await createItem(ctx, caller, TITO)
    const second = await createItem(ctx, caller, { ...TITO, location: 'bar_b' })
    const besideSecond = await createItem(ctx, caller, { name: 'Tito 1L', sku: 'TITO-1L', size_ml: 1000, location: 'bar_b' })
    const inStoreroom = await createItem(ctx, caller, { name: 'Tito 1L', sku: 'TITO-1L', size_ml: 1000, location: 'storeroom' })
    const before = await accountState(caller)
    for (const [id, body, field] of [
      [besideSecond.id, { sku: 'TITO-750', size_ml: 750 }, undefined],
      [second.id, { location: 'main_bar' }, undefined],
      [second.id, { size_ml: 700 }, 'size_ml'],
      [second.id, { unit: 'can' }, 'unit'],
      [inStoreroom.id, { sku: 'TITO-750' }, 'size_ml'],
      [inStoreroom.id, { sku: 'TITO-750', size_ml: 750, unit: 'keg', quantity: 2 }, 'unit'],
      [inStoreroom.id, { location: 'bar_b', size_ml: 750 }, undefined],
    ] as const) {
      const response = await ctx.request('PUT', `/v1/inventory/items/${id}`, { key: caller.key, body })
      assert.equal(response.statusCode, 409, `${JSON.stringify(body)}: ${response.body}`)
      assert.equal(json(response).error.code, 'duplicate_sku')
      assert.equal(json(response).error.details.field, field, JSON.stringify(body))
    }
    assert.deepEqual(await accountState(caller), before)
    const moved = await ctx.request('PUT', `/v1/inventory/items/${inStoreroom.id}`, { key: caller.key, body: { sku: 'TITO-750', size_ml: 750 } })
    assert.equal(moved.statusCode, 200, moved.body)
    assert.equal((await itemsOfSku(caller, 'TITO-750')).length, 3)
  })

  test('two venues creating one new SKU at once in two sizes: one is created, the other is 409', async () => {
    const caller = await groupCaller()
    const responses = await Promise.all(
      [
        { location: 'main_bar', size_ml: 750 },
        { location: 'bar_b', size_ml: 1000 },
      ].map((fields) => ctx.request('POST', '/v1/inventory/items', { key: caller.key, body: { ...TITO, category: 'spirits', quantity: 1, ...fields } })),
    )
    assert.deepEqual(responses.map((response) => response.statusCode).sort(), [201, 409])
    assert.equal((await itemsOfSku(caller, 'TITO-750')).length, 1)
  })
})
