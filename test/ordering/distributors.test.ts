import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestContext, json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createDistributor, ok } from './fixtures.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

const ALL_CATEGORIES = ['spirits', 'liqueur', 'beer', 'wine', 'cider', 'mixer', 'non_alcoholic', 'food', 'supplies', 'other']

describe('distributors', () => {
  test('creates a distributor with every field, defaulting supported_categories to all ten', async () => {
    const caller = await ctx.newCaller()
    const response = await ctx.request('POST', '/v1/distributors', {
      key: caller.key,
      body: { name: 'Breakthru', distributor_code: 'BB-1', region: 'west', contact_email: 'po@breakthru.example', min_order_amount: 250.5, lead_time_days: 2 },
    })
    assert.equal(response.statusCode, 201)
    const created = json(response).data
    assert.match(created.id, /^dist_/)
    assert.deepEqual(
      { ...created, id: undefined, created_at: undefined, updated_at: undefined },
      {
        id: undefined,
        name: 'Breakthru',
        distributor_code: 'BB-1',
        region: 'west',
        contact_email: 'po@breakthru.example',
        min_order_amount: 250.5,
        lead_time_days: 2,
        supported_categories: ALL_CATEGORIES,
        created_at: undefined,
        updated_at: undefined,
      },
    )
    assert.deepEqual(await ok(ctx, caller, 'GET', `/v1/distributors/${created.id}`), created)
  })

  test('lists distributors by name with pagination and without contact details', async () => {
    const caller = await ctx.newCaller()
    await createDistributor(ctx, caller, { name: 'Charlie' })
    await createDistributor(ctx, caller, { name: 'Alpha', supported_categories: ['beer', 'cider'] })
    await createDistributor(ctx, caller, { name: 'Bravo' })
    const page = json(await ctx.request('GET', '/v1/distributors?per_page=2', { key: caller.key }))
    assert.deepEqual(
      page.data.map((row: any) => row.name),
      ['Alpha', 'Bravo'],
    )
    assert.deepEqual(Object.keys(page.data[0]).sort(), ['id', 'lead_time_days', 'min_order_amount', 'name', 'region', 'supported_categories'])
    assert.deepEqual(page.data[0].supported_categories, ['beer', 'cider'])
    assert.deepEqual({ total: page.pagination.total, total_pages: page.pagination.total_pages }, { total: 3, total_pages: 2 })
    const other = await ctx.newCaller()
    assert.equal(json(await ctx.request('GET', '/v1/distributors', { key: other.key })).pagination.total, 0)
  })

  test('updates and deletes a distributor; afterwards it is distributor_not_found', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const updated = await ok(ctx, caller, 'PUT', `/v1/distributors/${distributor.id}`, { lead_time_days: 5, supported_categories: ['wine'] })
    assert.equal(updated.lead_time_days, 5)
    assert.deepEqual(updated.supported_categories, ['wine'])
    assert.deepEqual(await ok(ctx, caller, 'DELETE', `/v1/distributors/${distributor.id}`), { id: distributor.id, deleted: true })
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { region: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const response = await ctx.request(method, `/v1/distributors/${distributor.id}`, { key: caller.key, body })
      assert.equal(response.statusCode, 404)
      assert.equal(json(response).error.code, 'distributor_not_found')
    }
    assert.equal(json(await ctx.request('GET', '/v1/distributors', { key: caller.key })).pagination.total, 0)
  })

  test("another tenant's distributor is distributor_not_found and stays unchanged", async () => {
    const owner = await ctx.newCaller()
    const stranger = await ctx.newCaller()
    const distributor = await createDistributor(ctx, owner)
    const response = await ctx.request('PUT', `/v1/distributors/${distributor.id}`, { key: stranger.key, body: { name: 'Hijacked' } })
    assert.equal(response.statusCode, 404)
    assert.equal(json(response).error.code, 'distributor_not_found')
    assert.equal((await ok(ctx, owner, 'GET', `/v1/distributors/${distributor.id}`)).name, distributor.name)
  })

  test('rejects an invalid e-mail, an unknown category and sub-cent amounts with invalid_parameter, never echoing the address', async () => {
    const caller = await ctx.newCaller()
    const base = { name: 'X', distributor_code: 'X', region: 'x', contact_email: 'a@b.example' }
    for (const body of [
      { ...base, contact_email: 'not-an-address' },
      { ...base, supported_categories: ['tobacco'] },
      { ...base, min_order_amount: 1.001 },
    ]) {
      const response = await ctx.request('POST', '/v1/distributors', { key: caller.key, body })
      assert.equal(response.statusCode, 400, JSON.stringify(body))
      assert.equal(json(response).error.code, 'invalid_parameter')
      assert.ok(!json(response).error.message.includes('not-an-address'))
    }
    assert.equal(json(await ctx.request('GET', '/v1/distributors', { key: caller.key })).pagination.total, 0)
  })
})

describe('distributor catalog', () => {
  test('replaces and lists the catalog with pagination; an empty list removes it', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const gin = await createItem(ctx, caller, { name: 'Gin', case_size: 6 })
    const rum = await createItem(ctx, caller, { name: 'Rum' })
    const entries = await ok(ctx, caller, 'PUT', `/v1/distributors/${distributor.id}/catalog`, [
      { inventory_item_id: gin.id, unit: 'bottle', unit_price: 21.1234, available_quantity: 40 },
      { inventory_item_id: gin.id, unit: 'case', unit_price: 120 },
      { inventory_item_id: rum.id, unit: 'bottle', unit_price: 15 },
    ])
    assert.deepEqual(entries, [
      { inventory_item_id: gin.id, name: 'Gin', unit: 'bottle', unit_price: 21.1234, available_quantity: 40 },
      { inventory_item_id: gin.id, name: 'Gin', unit: 'case', unit_price: 120, available_quantity: null },
      { inventory_item_id: rum.id, name: 'Rum', unit: 'bottle', unit_price: 15, available_quantity: null },
    ])
    const page = json(await ctx.request('GET', `/v1/distributors/${distributor.id}/catalog?per_page=2&page=2`, { key: caller.key }))
    assert.deepEqual(page.data, [entries[2]])
    assert.equal(page.pagination.total, 3)
    assert.deepEqual(await ok(ctx, caller, 'PUT', `/v1/distributors/${distributor.id}/catalog`, []), [])
    assert.equal(json(await ctx.request('GET', `/v1/distributors/${distributor.id}/catalog`, { key: caller.key })).pagination.total, 0)
  })

  const rejections: Array<[string, number, string, (item: string) => object]> = [
    ['an unknown item', 404, 'item_not_found', () => ({ inventory_item_id: 'item_nope', unit: 'bottle', unit_price: 1 })],
    ['a unit the item is not sold in', 400, 'invalid_unit', (item) => ({ inventory_item_id: item, unit: 'case', unit_price: 1 })],
    ['a negative available quantity', 400, 'invalid_quantity', (item) => ({ inventory_item_id: item, unit: 'bottle', unit_price: 1, available_quantity: -1 })],
    ['a price with 5 decimals', 400, 'invalid_parameter', (item) => ({ inventory_item_id: item, unit: 'bottle', unit_price: 1.00001 })],
  ]
  for (const [name, status, code, entry] of rejections) {
    test(`rejects ${name} with ${code} and keeps the old catalog`, async () => {
      const caller = await ctx.newCaller()
      const distributor = await createDistributor(ctx, caller)
      const item = await createItem(ctx, caller)
      const old = await ok(ctx, caller, 'PUT', `/v1/distributors/${distributor.id}/catalog`, [{ inventory_item_id: item.id, unit: 'bottle', unit_price: 9 }])
      const response = await ctx.request('PUT', `/v1/distributors/${distributor.id}/catalog`, { key: caller.key, body: [entry(item.id)] })
      assert.equal(response.statusCode, status, response.body)
      assert.equal(json(response).error.code, code)
      assert.deepEqual(json(await ctx.request('GET', `/v1/distributors/${distributor.id}/catalog`, { key: caller.key })).data, old)
    })
  }

  test('answers distributor_not_found for the catalog of an unknown distributor', async () => {
    const caller = await ctx.newCaller()
    for (const method of ['GET', 'PUT'] as const) {
      const response = await ctx.request(method, '/v1/distributors/dist_nope/catalog', { key: caller.key, body: method === 'PUT' ? [] : undefined })
      assert.equal(response.statusCode, 404)
      assert.equal(json(response).error.code, 'distributor_not_found')
    }
  })
})
