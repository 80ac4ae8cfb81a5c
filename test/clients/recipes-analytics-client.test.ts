import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { clientTestFile, succeeded } from '../helpers/api-client.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

// Settings, recipes and the analytics reports read through the generated client against a listening
// server: each report's answer, and each refusal, is checked against the document.

const file = clientTestFile()

describe('settings and recipes through the client', () => {
  test('settings are changed and read back; a recipe is created, costed, updated, listed and deleted', async () => {
    const api = await file.newClient()
    const settings = succeeded(await api.PUT('/v1/settings', { body: { currency: 'EUR', targets: { pour_cost: 22.5 } } })).data
    assert.equal(settings.currency, 'EUR')
    assert.equal(succeeded(await api.GET('/v1/settings')).data.targets.pour_cost, 22.5)

    const item = (body: { name: string; sku: string; unit: string; size_ml?: number; cost_per_unit: number }) =>
      api.POST('/v1/inventory/items', { body: { category: 'spirits', quantity: 10, location: 'main_bar', ...body } })
    const vodka = succeeded(await item({ name: 'Tito’s Handmade Vodka 750ml', sku: 'TITOS-750', unit: 'bottle', size_ml: 750, cost_per_unit: 18.5 })).data
    const lime = succeeded(await item({ name: 'Lime', sku: 'LIME', unit: 'each', cost_per_unit: 0.3 })).data
    const created = await api.POST('/v1/recipes', {
      body: {
        name: 'Vodka gimlet',
        category: 'cocktail',
        selling_price: 12.5,
        ingredients: [
          { inventory_item_id: vodka.id, quantity: 1.5, unit: 'oz' },
          { inventory_item_id: lime.id, quantity: 0.5, unit: 'each' },
        ],
      },
    })
    assert.equal(created.response.status, 201)
    const recipe = succeeded(created).data
    const path = { params: { path: { id: recipe.id } } }
    assert.equal(succeeded(await api.PUT('/v1/recipes/{id}', { ...path, body: { selling_price: 13 } })).data.selling_price, 13)
    assert.deepEqual(
      succeeded(await api.GET('/v1/recipes')).data.map((listed) => listed.id),
      [recipe.id],
    )
    const costing = succeeded(await api.GET('/v1/analytics/costing')).data
    assert.ok(JSON.stringify(costing).includes(recipe.id))

    assert.equal((await api.DELETE('/v1/recipes/{id}', path)).response.status, 200)
    const gone = await api.GET('/v1/recipes/{id}', path)
    assert.equal(gone.response.status, 404)
    assert.equal(gone.error?.error.code, 'recipe_not_found')
  })
})

describe('analytics reports through the client', () => {
  test('variance, performance, staff and categories answer as documented once an item has two counts; forecast waits for sales', async () => {
    const api = await file.newClient()
    const gin = succeeded(
      await api.POST('/v1/inventory/items', {
        body: { name: 'Hendrick’s Gin 750ml', sku: 'HEND-750', category: 'spirits', quantity: 6, unit: 'bottle', location: 'main_bar', cost_per_unit: 32 },
      }),
    ).data
    const early = await api.GET('/v1/analytics/variance')
    assert.equal(early.response.status, 400)
    assert.equal(early.error?.error.code, 'insufficient_data')

    for (const [daysAgo, quantity] of [
      [20, 6],
      [1, 4.5],
    ] as const) {
      const countedAt = new Date(Date.now() - daysAgo * DAY_MS).toISOString()
      succeeded(await api.POST('/v1/inventory/count', { body: { location: 'main_bar', counted_by: 'Maria', counted_at: countedAt, items: [{ item_id: gin.id, quantity }] } }))
    }
    // The answers' shapes are checked against the document by the client itself; here, that they succeed.
    for (const report of ['/v1/analytics/variance', '/v1/analytics/performance', '/v1/analytics/staff', '/v1/analytics/categories'] as const) {
      const { response, error } = await api.GET(report)
      assert.equal(response.status, 200, `${report} ${JSON.stringify(error)}`)
    }
    const forecast = await api.GET('/v1/analytics/forecast')
    assert.equal(forecast.error?.error.code, 'forecast_unavailable')
  })
})
