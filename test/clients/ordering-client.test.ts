import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { BarstockClient } from '../../clients/typescript/src/index.js'
import { clientTestFile, succeeded } from '../helpers/api-client.js'

// Purchasing driven through the generated client against a listening server: a distributor and its
// catalogue, recommendations, and an order's whole life from draft to received stock.

const file = clientTestFile()

/** A client for a fresh account with one distributor and a low vodka (2 bottles, 12 a case). */
async function stockedAccount(api: BarstockClient) {
  const distributor = succeeded(
    await api.POST('/v1/distributors', {
      body: { name: 'Southern Glazer’s', distributor_code: 'SG-NE', region: 'northeast', contact_email: 'orders@wholesaler.example', min_order_amount: 0, lead_time_days: 3 },
    }),
  ).data
  const vodka = succeeded(
    await api.POST('/v1/inventory/items', {
      body: {
        name: 'Tito’s Handmade Vodka 750ml',
        sku: 'TITOS-750',
        category: 'spirits',
        quantity: 2,
        unit: 'bottle',
        case_size: 12,
        location: 'main_bar',
        reorder_point: 4,
        cost_per_unit: 18.5,
      },
    }),
  ).data
  return { distributor, vodka }
}

describe('ordering through the client', () => {
  test('an order goes from draft through submit, processing and shipped to received stock', async () => {
    const api = await file.newClient()
    const { distributor, vodka } = await stockedAccount(api)
    const catalog = await api.PUT('/v1/distributors/{id}/catalog', {
      params: { path: { id: distributor.id } },
      body: [{ inventory_item_id: vodka.id, unit: 'case', unit_price: 198 }],
    })
    succeeded(catalog)

    const draft = await api.POST('/v1/orders', {
      body: { distributor_id: distributor.id, location: 'main_bar', items: [{ inventory_item_id: vodka.id, quantity: 1, unit: 'case' }] },
    })
    assert.equal(draft.response.status, 201)
    const order = succeeded(draft).data
    assert.equal(order.status, 'draft')
    const path = { params: { path: { id: order.id } } }
    assert.equal(succeeded(await api.POST('/v1/orders/{id}/submit', path)).data.status, 'submitted')
    succeeded(await api.PUT('/v1/orders/{id}', { ...path, body: { status: 'processing' } }))
    const shipped = succeeded(await api.PUT('/v1/orders/{id}', { ...path, body: { status: 'shipped', tracking_number: '1Z999AA10123456784', carrier: 'UPS' } })).data
    assert.equal(shipped.carrier, 'UPS')
    succeeded(await api.POST('/v1/orders/{id}/receive', { ...path, body: { received_by: 'Sam', items: [{ inventory_item_id: vodka.id, quantity_received: 1 }] } }))

    assert.equal(succeeded(await api.GET('/v1/orders/{id}', path)).data.status, 'delivered')
    assert.equal(succeeded(await api.GET('/v1/inventory/items/{id}', { params: { path: { id: vodka.id } } })).data.quantity, 14)
    assert.deepEqual(
      succeeded(await api.GET('/v1/orders')).data.map((listed) => listed.id),
      [order.id],
    )
  })

  test('recommends nothing without sales history, and refuses to receive a draft with invalid_status', async () => {
    const api = await file.newClient()
    const { distributor, vodka } = await stockedAccount(api)
    const recommended = succeeded(await api.GET('/v1/orders/recommendations', { params: { query: { location: 'main_bar' } } })).data
    assert.deepEqual([recommended.recommendations, recommended.location], [[], 'main_bar'])

    const order = succeeded(
      await api.POST('/v1/orders', { body: { distributor_id: distributor.id, location: 'main_bar', items: [{ inventory_item_id: vodka.id, quantity: 6, unit: 'bottle' }] } }),
    ).data
    const refused = await api.POST('/v1/orders/{id}/receive', {
      params: { path: { id: order.id } },
      body: { received_by: 'Sam', items: [{ inventory_item_id: vodka.id, quantity_received: 6 }] },
    })
    assert.equal(refused.response.status, 409)
    assert.equal(refused.error?.error.code, 'invalid_status')
    assert.equal(succeeded(await api.GET('/v1/inventory/items/{id}', { params: { path: { id: vodka.id } } })).data.quantity, 2)
  })
})
