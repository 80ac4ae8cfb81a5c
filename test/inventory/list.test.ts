import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestContext, json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'

let ctx: TestContext
let caller: Caller
const names = ['Aperol', 'Bulleit Rye', 'Campari', 'Don Julio Blanco', 'Espolon Reposado']

before(async () => {
  ctx = await createTestContext()
  caller = await ctx.newCaller()
  await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'patio', name: 'Patio bar' } })
  for (const [index, name] of names.entries()) {
    await createItem(ctx, caller, {
      name,
      sku: `L-${index}`,
      category: index % 2 === 0 ? 'liqueur' : 'spirits',
      quantity: 10 - index * 2,
      reorder_point: 5,
      location: index < 3 ? 'main_bar' : 'patio',
    })
  }
})
after(() => ctx.close())

async function list(query: string) {
  const response = await ctx.request('GET', `/v1/inventory/items${query}`, { key: caller.key })
  assert.equal(response.statusCode, 200, response.body)
  return json(response)
}

describe('GET /v1/inventory/items', () => {
  test('sorts by name ascending by default', async () => {
    const body = await list('')
    assert.deepEqual(
      body.data.map((item: { name: string }) => item.name),
      names,
    )
    assert.deepEqual(body.pagination, { total: 5, page: 1, per_page: 50, total_pages: 1, next_page_url: null, prev_page_url: null })
  })

  test('sorts by each field in both directions', async () => {
    const byQuantityDesc = await list('?sort=quantity&order=desc')
    assert.deepEqual(
      byQuantityDesc.data.map((item: { quantity: number }) => item.quantity),
      [10, 8, 6, 4, 2],
    )
    const bySku = await list('?sort=sku&order=desc')
    assert.deepEqual(
      bySku.data.map((item: { sku: string }) => item.sku),
      ['L-4', 'L-3', 'L-2', 'L-1', 'L-0'],
    )
    for (const sort of ['last_updated', 'created_at', 'category']) {
      const ascending = (await list(`?sort=${sort}&order=asc`)).data.map((item: Record<string, string>) => item[sort])
      assert.deepEqual(ascending, [...ascending].sort(), sort)
    }
  })

  test('filters by location, category and low_stock, alone and together', async () => {
    assert.equal((await list('?location=patio')).pagination.total, 2)
    assert.equal((await list('?category=liqueur')).pagination.total, 3)
    const low = await list('?low_stock=true')
    assert.deepEqual(
      low.data.map((item: { name: string }) => item.name),
      ['Don Julio Blanco', 'Espolon Reposado'],
    )
    assert.equal((await list('?low_stock=true&category=liqueur&location=patio')).pagination.total, 1)
  })

  test('a location filter naming no location is 404 location_not_found on both paths, not an empty list', async () => {
    for (const path of ['/v1/inventory/items', '/v1/inventory']) {
      const response = await ctx.request('GET', path, { key: caller.key, query: { location: 'rooftop' } })
      assert.equal(response.statusCode, 404, response.body)
      assert.equal(json(response).error.code, 'location_not_found')
    }
  })

  test('searches name and SKU by every word of q, ignoring case and apostrophes, and finds one SKU exactly', async () => {
    const namesOf = async (query: string) => (await list(query)).data.map((item: { name: string }) => item.name)
    const caller2 = await ctx.newCaller()
    for (const [name, sku] of [
      ["Tito's Handmade Vodka 750ml", 'TITO-750'],
      ["Tito's Handmade Vodka 1L", 'TITO-1L'],
      ['Grey Goose Vodka 750ml', 'GG-750'],
    ]) {
      await createItem(ctx, caller2, { name, sku })
    }
    const search = async (query: Record<string, string>) =>
      json(await ctx.request('GET', '/v1/inventory/items', { key: caller2.key, query })).data.map((item: { name: string }) => item.name)
    assert.deepEqual(await search({ q: 'titos 750' }), ["Tito's Handmade Vodka 750ml"])
    assert.deepEqual(await search({ q: 'VODKA' }), ['Grey Goose Vodka 750ml', "Tito's Handmade Vodka 1L", "Tito's Handmade Vodka 750ml"])
    assert.deepEqual(await search({ q: 'gg-7' }), ['Grey Goose Vodka 750ml'])
    assert.deepEqual(await search({ q: '100%' }), [])
    assert.deepEqual(await search({ sku: 'TITO-1L' }), ["Tito's Handmade Vodka 1L"])
    assert.deepEqual(await search({ sku: 'tito-1l' }), [])
    assert.equal((await namesOf('?q=nothing-like-this')).length, 0)
  })

  test('pages with next and prev URLs that keep the other parameters', async () => {
    const first = await list('?per_page=2&category=spirits&sort=name')
    assert.equal(first.pagination.total_pages, 1)
    const page1 = await list('?per_page=2&sort=name&order=asc')
    assert.equal(page1.pagination.total_pages, 3)
    assert.equal(page1.pagination.next_page_url, '/v1/inventory/items?per_page=2&sort=name&order=asc&page=2')
    assert.equal(page1.pagination.prev_page_url, null)
    const page2 = await list(page1.pagination.next_page_url.replace('/v1/inventory/items', ''))
    assert.deepEqual(
      page2.data.map((item: { name: string }) => item.name),
      ['Campari', 'Don Julio Blanco'],
    )
    assert.equal(page2.pagination.prev_page_url, '/v1/inventory/items?per_page=2&sort=name&order=asc&page=1')
    const beyond = await list('?per_page=2&page=9')
    assert.deepEqual(beyond.data, [])
    assert.equal(beyond.pagination.total, 5)
  })

  test('rejects out-of-range and unknown query values with invalid_parameter', async () => {
    for (const [query, parameter] of [
      ['?per_page=101', 'per_page'],
      ['?per_page=0', 'per_page'],
      ['?page=0', 'page'],
      ['?page=abc', 'page'],
      ['?sort=price', 'sort'],
      ['?order=up', 'order'],
      ['?low_stock=maybe', 'low_stock'],
      ['?category=soda', 'category'],
      ['?colour=red', 'colour'],
    ]) {
      const response = await ctx.request('GET', `/v1/inventory/items${query}`, { key: caller.key })
      assert.equal(response.statusCode, 400, query)
      const error = json(response).error
      assert.equal(error.code, 'invalid_parameter')
      assert.equal(error.details.parameter, parameter, query)
    }
  })
})

test('GET /v1/inventory, the quick start’s short path, answers the same list', async () => {
  const short = json(await ctx.request('GET', '/v1/inventory?sort=name&per_page=2', { key: caller.key }))
  const long = await list('?sort=name&per_page=2')
  assert.deepEqual(short.data, long.data)
  assert.equal(short.pagination.total, 5)
  assert.equal(short.pagination.next_page_url, '/v1/inventory?sort=name&per_page=2&page=2')
})

test('GET /v1/inventory/value sums quantity × cost per location and category, stock below zero counting as none', async () => {
  const owner = await ctx.newCaller()
  await ctx.request('POST', '/v1/locations', { key: owner.key, body: { id: 'patio', name: 'Patio bar' } })
  await createItem(ctx, owner, { name: 'Aperol 1L', category: 'liqueur', quantity: 3, cost_per_unit: 21.5 })
  await createItem(ctx, owner, { name: 'Campari 1L', category: 'liqueur', quantity: 2.5, cost_per_unit: 28 })
  await createItem(ctx, owner, { name: 'Tito’s 1L', category: 'spirits', quantity: 4, cost_per_unit: 19.99, location: 'patio' })
  const short = await createItem(ctx, owner, { name: 'Well Gin 1L', category: 'spirits', quantity: 1, cost_per_unit: 9 })
  await ctx.request('POST', '/v1/inventory/batch', { key: owner.key, body: { updates: [{ item_id: short.id, change: -1 }] } })
  const value = json(await ctx.request('GET', '/v1/inventory/value', { key: owner.key })).data
  assert.deepEqual(value, {
    currency: 'USD',
    value: 214.46,
    items: 4,
    locations: [
      {
        location: 'main_bar',
        value: 134.5,
        items: 3,
        categories: [
          { category: 'liqueur', value: 134.5, items: 2 },
          { category: 'spirits', value: 0, items: 1 },
        ],
      },
      { location: 'patio', value: 79.96, items: 1, categories: [{ category: 'spirits', value: 79.96, items: 1 }] },
    ],
  })
  const patio = json(await ctx.request('GET', '/v1/inventory/value', { key: owner.key, query: { location: 'patio' } })).data
  assert.equal(patio.value, 79.96)
  const unknown = await ctx.request('GET', '/v1/inventory/value', { key: owner.key, query: { location: 'rooftop' } })
  assert.equal(unknown.statusCode, 404)
  assert.equal(json(unknown).error.code, 'location_not_found')
})
