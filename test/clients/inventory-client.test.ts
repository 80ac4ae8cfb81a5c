import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { BarstockClient } from '../../clients/typescript/src/index.js'
import { clientTestFile, succeeded } from '../helpers/api-client.js'

// Locations and inventory driven through the generated client against a listening server: the
// requests compile against the document, and every answer is checked against it at run time.

const file = clientTestFile()

async function createVodka(api: BarstockClient, location = 'main_bar') {
  const created = await api.POST('/v1/inventory/items', {
    body: {
      name: 'Tito’s Handmade Vodka 750ml',
      sku: 'TITOS-750',
      category: 'spirits',
      quantity: 10,
      unit: 'bottle',
      size_ml: 750,
      location,
      reorder_point: 4,
      cost_per_unit: 18.5,
    },
  })
  assert.equal(created.response.status, 201)
  return succeeded(created).data
}

describe('locations through the client', () => {
  test('creates a location, lists it and answers duplicate_location for its id again', async () => {
    const api = await file.newClient()
    const created = succeeded(await api.POST('/v1/locations', { body: { id: 'back_bar', name: 'Back bar' } })).data
    assert.equal(created.id, 'back_bar')
    const listed = succeeded(await api.GET('/v1/locations')).data
    assert.ok(listed.some((location) => location.id === 'back_bar'))
    const again = await api.POST('/v1/locations', { body: { id: 'back_bar', name: 'Again' } })
    assert.equal(again.response.status, 409)
    assert.equal(again.error?.error.code, 'duplicate_location')
  })
})

describe('inventory through the client', () => {
  test('an item is created, found, filtered, paged, changed and valued', async () => {
    const api = await file.newClient()
    const vodka = await createVodka(api)
    await api.POST('/v1/inventory/items', {
      body: { name: 'Hendrick’s Gin 750ml', sku: 'HEND-750', category: 'spirits', quantity: 2, unit: 'bottle', location: 'main_bar', reorder_point: 3 },
    })

    assert.equal(succeeded(await api.GET('/v1/inventory/items/{id}', { params: { path: { id: vodka.id } } })).data.sku, 'TITOS-750')
    const lowStock = succeeded(await api.GET('/v1/inventory/items', { params: { query: { low_stock: true } } }))
    assert.deepEqual(
      lowStock.data.map((item) => item.sku),
      ['HEND-750'],
    )
    const firstPage = succeeded(await api.GET('/v1/inventory/items', { params: { query: { per_page: 1, sort: 'sku', order: 'asc' } } }))
    assert.deepEqual([firstPage.data.map((item) => item.sku), firstPage.pagination.total], [['HEND-750'], 2])

    const updated = succeeded(await api.PUT('/v1/inventory/items/{id}', { params: { path: { id: vodka.id } }, body: { quantity: 7 } })).data
    assert.equal(updated.quantity, 7)
    const movements = succeeded(await api.GET('/v1/inventory/items/{id}/movements', { params: { path: { id: vodka.id } } })).data
    assert.ok(movements.length >= 1)
    const value = succeeded(await api.GET('/v1/inventory/value')).data
    assert.ok(value)
  })

  test('a count records its variance and is listed with its lines', async () => {
    const api = await file.newClient()
    const vodka = await createVodka(api)
    const count = await api.POST('/v1/inventory/count', {
      body: { location: 'main_bar', counted_by: 'Maria', items: [{ item_id: vodka.id, quantity: 8.5, notes: 'one open bottle' }] },
    })
    assert.equal(count.response.status, 201)
    const result = succeeded(count).data
    assert.deepEqual(result.variance_detected, [{ item_id: vodka.id, expected: 10, actual: 8.5, variance: -1.5 }])
    const counts = succeeded(await api.GET('/v1/inventory/counts')).data
    assert.equal(counts.length, 1)
    const detail = succeeded(await api.GET('/v1/inventory/counts/{count_id}', { params: { path: { count_id: counts[0]!.count_id } } })).data
    assert.deepEqual(detail.items, [{ item_id: vodka.id, expected: 10, actual: 8.5, variance: -1.5, notes: 'one open bottle', weights_g: null }])
  })

  test('errors arrive typed, by their code, and change nothing', async () => {
    const api = await file.newClient()
    const missing = await api.GET('/v1/inventory/items/{id}', { params: { path: { id: 'item_nope' } } })
    assert.equal(missing.response.status, 404)
    assert.equal(missing.error?.error.code, 'item_not_found')
    const negative = await api.POST('/v1/inventory/items', {
      body: { name: 'Aperol 1L', sku: 'APEROL-1L', category: 'liqueur', quantity: -1, unit: 'bottle', location: 'main_bar' },
    })
    assert.equal(negative.response.status, 400)
    assert.ok(negative.error?.error.code)
    assert.equal(succeeded(await api.GET('/v1/inventory/items')).pagination.total, 0)
  })
})
