import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestContext, json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createDistributor, createOrder, eventsOf, ok, shipOrder, snapshot } from './fixtures.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

describe('POST /v1/orders', () => {
  test('creates a draft priced at cost, converting cases through case_size, and emits order.created', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const vodka = await createItem(ctx, caller, { name: 'Vodka', cost_per_unit: 18.5, case_size: 12 })
    const lime = await createItem(ctx, caller, { name: 'Lime juice', category: 'mixer', unit: 'liter', size_ml: undefined, cost_per_unit: 3.3333 })
    const response = await ctx.request('POST', '/v1/orders', {
      key: caller.key,
      body: {
        distributor_id: distributor.id,
        location: 'main_bar',
        items: [
          { inventory_item_id: vodka.id, quantity: 2, unit: 'case' },
          { inventory_item_id: lime.id, quantity: 1.5, unit: 'liter' },
        ],
        notes: 'Back door',
      },
    })
    assert.equal(response.statusCode, 201)
    const order = json(response).data
    assert.match(order.id, /^ord_/)
    assert.equal(order.status, 'draft')
    assert.equal(order.distributor_name, distributor.name)
    assert.equal(order.notes, 'Back door')
    assert.deepEqual(
      order.items.map((line: any) => [line.inventory_item_id, line.name, line.quantity, line.unit, line.unit_price, line.total]),
      [
        [vodka.id, 'Vodka', 2, 'case', 222, 444],
        // 1.5 × 3.3333 = 4.99995, rounded half up to cents.
        [lime.id, 'Lime juice', 1.5, 'liter', 3.3333, 5],
      ],
    )
    assert.equal(order.total_amount, 449)
    assert.equal(order.submitted_at, null)
    assert.ok(order.created_at.endsWith('Z'))
    assert.deepEqual(await eventsOf(ctx, caller, 'order.created'), [
      { order_id: order.id, distributor_id: distributor.id, distributor_name: distributor.name, status: 'draft', total_amount: 449, location: 'main_bar' },
    ])
  })

  test('prices from the catalog when it lists the item, converting a bottle price to a case', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const gin = await createItem(ctx, caller, { cost_per_unit: 30, case_size: 6 })
    await ok(ctx, caller, 'PUT', `/v1/distributors/${distributor.id}/catalog`, [{ inventory_item_id: gin.id, unit: 'bottle', unit_price: 21.25 }])
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: gin.id, quantity: 3, unit: 'case' }])
    assert.equal(order.items[0].unit_price, 127.5)
    assert.equal(order.total_amount, 382.5)
  })

  const rejections: Array<{ name: string; status: number; code: string; body: (ids: { dist: string; item: string; wine: string }) => object }> = [
    {
      name: 'an unknown distributor',
      status: 404,
      code: 'distributor_not_found',
      body: ({ item }) => ({ distributor_id: 'dist_nope', location: 'main_bar', items: [{ inventory_item_id: item, quantity: 1, unit: 'bottle' }] }),
    },
    {
      name: 'an unknown location',
      status: 404,
      code: 'location_not_found',
      body: ({ dist, item }) => ({ distributor_id: dist, location: 'rooftop', items: [{ inventory_item_id: item, quantity: 1, unit: 'bottle' }] }),
    },
    {
      name: 'an unknown item',
      status: 404,
      code: 'item_not_found',
      body: ({ dist }) => ({ distributor_id: dist, location: 'main_bar', items: [{ inventory_item_id: 'item_nope', quantity: 1, unit: 'bottle' }] }),
    },
    {
      name: 'an unknown unit',
      status: 400,
      code: 'invalid_unit',
      body: ({ dist, item }) => ({ distributor_id: dist, location: 'main_bar', items: [{ inventory_item_id: item, quantity: 1, unit: 'barrel' }] }),
    },
    {
      name: 'a unit the item is not sold in',
      status: 400,
      code: 'invalid_unit',
      body: ({ dist, item }) => ({ distributor_id: dist, location: 'main_bar', items: [{ inventory_item_id: item, quantity: 1, unit: 'kg' }] }),
    },
    {
      name: 'a zero quantity',
      status: 400,
      code: 'invalid_quantity',
      body: ({ dist, item }) => ({ distributor_id: dist, location: 'main_bar', items: [{ inventory_item_id: item, quantity: 0, unit: 'bottle' }] }),
    },
    {
      name: 'a negative quantity',
      status: 400,
      code: 'invalid_quantity',
      body: ({ dist, item }) => ({ distributor_id: dist, location: 'main_bar', items: [{ inventory_item_id: item, quantity: -2, unit: 'bottle' }] }),
    },
    {
      name: 'an item outside the supported categories',
      status: 400,
      code: 'item_not_available',
      body: ({ dist, wine }) => ({ distributor_id: dist, location: 'main_bar', items: [{ inventory_item_id: wine, quantity: 1, unit: 'bottle' }] }),
    },
    {
      name: 'the same item twice',
      status: 400,
      code: 'invalid_parameter',
      body: ({ dist, item }) => ({
        distributor_id: dist,
        location: 'main_bar',
        items: [
          { inventory_item_id: item, quantity: 1, unit: 'bottle' },
          { inventory_item_id: item, quantity: 1, unit: 'bottle' },
        ],
      }),
    },
  ]
  for (const rejection of rejections) {
    test(`rejects ${rejection.name} with ${rejection.code} and changes nothing`, async () => {
      const caller = await ctx.newCaller()
      const distributor = await createDistributor(ctx, caller, { supported_categories: ['spirits'] })
      const item = await createItem(ctx, caller)
      const wine = await createItem(ctx, caller, { category: 'wine' })
      const before = await snapshot(ctx, caller)
      const response = await ctx.request('POST', '/v1/orders', { key: caller.key, body: rejection.body({ dist: distributor.id, item: item.id, wine: wine.id }) })
      assert.equal(response.statusCode, rejection.status, response.body)
      assert.equal(json(response).error.code, rejection.code)
      assert.deepEqual(await snapshot(ctx, caller), before)
    })
  }

  test('rejects an item missing from the catalog with item_not_available, and more than is available with insufficient_stock', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const listed = await createItem(ctx, caller, { case_size: 12 })
    const unlisted = await createItem(ctx, caller)
    await ok(ctx, caller, 'PUT', `/v1/distributors/${distributor.id}/catalog`, [{ inventory_item_id: listed.id, unit: 'case', unit_price: 200, available_quantity: 2 }])
    const before = await snapshot(ctx, caller)
    const missing = await ctx.request('POST', '/v1/orders', {
      key: caller.key,
      body: { distributor_id: distributor.id, location: 'main_bar', items: [{ inventory_item_id: unlisted.id, quantity: 1, unit: 'bottle' }] },
    })
    assert.equal(missing.statusCode, 400)
    assert.equal(json(missing).error.code, 'item_not_available')
    // 2 cases are 24 bottles: 25 bottles is one too many.
    const tooMany = await ctx.request('POST', '/v1/orders', {
      key: caller.key,
      body: { distributor_id: distributor.id, location: 'main_bar', items: [{ inventory_item_id: listed.id, quantity: 25, unit: 'bottle' }] },
    })
    assert.equal(tooMany.statusCode, 400)
    assert.equal(json(tooMany).error.code, 'insufficient_stock')
    assert.deepEqual(await snapshot(ctx, caller), before)
    const fits = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: listed.id, quantity: 24, unit: 'bottle' }])
    assert.equal(fits.total_amount, 400)
  })

  test("another tenant's distributor is distributor_not_found", async () => {
    const owner = await ctx.newCaller()
    const stranger = await ctx.newCaller()
    const distributor = await createDistributor(ctx, owner)
    const item = await createItem(ctx, stranger)
    const response = await ctx.request('POST', '/v1/orders', {
      key: stranger.key,
      body: { distributor_id: distributor.id, location: 'main_bar', items: [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }] },
    })
    assert.equal(response.statusCode, 404)
    assert.equal(json(response).error.code, 'distributor_not_found')
  })
})

describe('GET /v1/orders', () => {
  test('filters by status, distributor and dates, newest first, with pagination', async () => {
    const caller = await ctx.newCaller()
    const first = await createDistributor(ctx, caller)
    const second = await createDistributor(ctx, caller)
    const item = await createItem(ctx, caller)
    const line = [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }]
    const a = await createOrder(ctx, caller, first.id, line)
    const b = await createOrder(ctx, caller, first.id, line)
    const c = await createOrder(ctx, caller, second.id, line)
    await ok(ctx, caller, 'POST', `/v1/orders/${b.id}/submit`)

    const all = json(await ctx.request('GET', '/v1/orders?per_page=2', { key: caller.key }))
    assert.deepEqual(
      all.data.map((order: any) => order.id),
      [c.id, b.id],
    )
    assert.equal(all.pagination.total, 3)
    assert.equal(all.pagination.next_page_url, '/v1/orders?per_page=2&page=2')
    assert.deepEqual(Object.keys(all.data[0]).sort(), ['created_at', 'distributor_id', 'distributor_name', 'estimated_delivery', 'id', 'location', 'status', 'total_amount'])

    const submitted = json(await ctx.request('GET', '/v1/orders?status=submitted', { key: caller.key }))
    assert.deepEqual(
      submitted.data.map((order: any) => order.id),
      [b.id],
    )
    const byDistributor = json(await ctx.request(`GET`, `/v1/orders?distributor_id=${first.id}`, { key: caller.key }))
    assert.deepEqual(
      byDistributor.data.map((order: any) => order.id),
      [b.id, a.id],
    )

    const today = new Date().toISOString().slice(0, 10)
    const inDay = json(await ctx.request('GET', `/v1/orders?date_from=${today}&date_to=${today}`, { key: caller.key }))
    assert.equal(inDay.pagination.total, 3)
    const future = json(await ctx.request('GET', `/v1/orders?date_from=2999-01-01`, { key: caller.key }))
    assert.equal(future.pagination.total, 0)
    const sinceC = json(await ctx.request('GET', `/v1/orders?date_from=${encodeURIComponent(c.created_at)}`, { key: caller.key }))
    assert.deepEqual(
      sinceC.data.map((order: any) => order.id),
      [c.id],
    )
  })

  test('rejects a bad date, a date that does not exist, a reversed range and per_page over 100 with invalid_parameter', async () => {
    const caller = await ctx.newCaller()
    const queries = ['date_from=yesterday', 'date_from=2026-02-30', 'date_to=2026-04-31T10:00:00Z', 'date_from=2026-02-01&date_to=2026-01-01', 'per_page=101', 'status=lost']
    for (const query of queries) {
      const response = await ctx.request('GET', `/v1/orders?${query}`, { key: caller.key })
      assert.equal(response.statusCode, 400, query)
      assert.equal(json(response).error.code, 'invalid_parameter')
    }
  })
})

describe('GET /v1/orders/:id', () => {
  test('answers 404 order_not_found for an unknown or foreign order', async () => {
    const owner = await ctx.newCaller()
    const stranger = await ctx.newCaller()
    const distributor = await createDistributor(ctx, owner)
    const item = await createItem(ctx, owner)
    const order = await createOrder(ctx, owner, distributor.id, [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }])
    for (const [key, id] of [
      [stranger.key, order.id],
      [owner.key, 'ord_nope'],
    ]) {
      const response = await ctx.request('GET', `/v1/orders/${id}`, { key })
      assert.equal(response.statusCode, 404)
      assert.equal(json(response).error.code, 'order_not_found')
    }
  })
})

describe('PUT /v1/orders/:id', () => {
  test('replaces the items of a draft and re-prices it', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const item = await createItem(ctx, caller, { cost_per_unit: 10 })
    const other = await createItem(ctx, caller, { cost_per_unit: 2.5 })
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }])
    const updated = await ok(ctx, caller, 'PUT', `/v1/orders/${order.id}`, {
      items: [{ inventory_item_id: other.id, quantity: 4, unit: 'bottle' }],
    })
    assert.equal(updated.status, 'draft')
    assert.deepEqual(
      updated.items.map((line: any) => [line.inventory_item_id, line.total]),
      [[other.id, 10]],
    )
    assert.equal(updated.total_amount, 10)
    assert.ok(updated.updated_at >= order.updated_at)
  })

  test('changes items and submits in one request', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller, { min_order_amount: 50 })
    const item = await createItem(ctx, caller, { cost_per_unit: 10 })
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }])
    const updated = await ok(ctx, caller, 'PUT', `/v1/orders/${order.id}`, {
      status: 'submitted',
      items: [{ inventory_item_id: item.id, quantity: 6, unit: 'bottle' }],
    })
    assert.equal(updated.status, 'submitted')
    assert.equal(updated.total_amount, 60)
    assert.match(updated.confirmation_number, /^PO-\d{8}-[0-9A-Z]{8}$/)
  })

  test('rejects item changes outside draft with 409 invalid_status and changes nothing', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const item = await createItem(ctx, caller)
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }])
    await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/submit`)
    const before = await snapshot(ctx, caller, order.id)
    const response = await ctx.request('PUT', `/v1/orders/${order.id}`, {
      key: caller.key,
      body: { items: [{ inventory_item_id: item.id, quantity: 5, unit: 'bottle' }] },
    })
    assert.equal(response.statusCode, 409)
    assert.equal(json(response).error.code, 'invalid_status')
    assert.deepEqual(await snapshot(ctx, caller, order.id), before)
  })

  test('walks submitted → processing → shipped, emitting order.shipped with the spec fields', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const item = await createItem(ctx, caller)
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }])
    await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/submit`)
    assert.equal((await ok(ctx, caller, 'PUT', `/v1/orders/${order.id}`, { status: 'processing' })).status, 'processing')
    const missingCarrier = await ctx.request('PUT', `/v1/orders/${order.id}`, { key: caller.key, body: { status: 'shipped', tracking_number: 'T1' } })
    assert.equal(missingCarrier.statusCode, 400)
    assert.equal(json(missingCarrier).error.details.parameter, 'carrier')
    const shipped = await ok(ctx, caller, 'PUT', `/v1/orders/${order.id}`, {
      status: 'shipped',
      tracking_number: '1Z999AA10123456784',
      carrier: 'UPS',
      estimated_delivery: '2030-01-02T10:00:00.000Z',
    })
    assert.equal(shipped.status, 'shipped')
    assert.equal(shipped.tracking_number, '1Z999AA10123456784')
    assert.equal(shipped.carrier, 'UPS')
    assert.equal(shipped.estimated_delivery, '2030-01-02T10:00:00.000Z')
    assert.deepEqual(await eventsOf(ctx, caller, 'order.shipped'), [
      { order_id: order.id, tracking_number: '1Z999AA10123456784', carrier: 'UPS', estimated_delivery: '2030-01-02T10:00:00.000Z' },
    ])
  })

  const invalidMoves: Array<[string, string[], Record<string, unknown>]> = [
    ['draft', [], { status: 'processing' }],
    ['draft', [], { status: 'shipped', tracking_number: 'T', carrier: 'C' }],
    ['submitted', ['submit'], { status: 'submitted' }],
    ['submitted', ['submit'], { status: 'shipped', tracking_number: 'T', carrier: 'C' }],
    ['processing', ['submit', 'processing'], { status: 'delivered', received_by: 'Sam', items: [] }],
    ['shipped', ['submit', 'processing', 'shipped'], { status: 'cancelled' }],
    ['cancelled', ['submit', 'cancelled'], { status: 'processing' }],
    ['cancelled', ['submit', 'cancelled'], { notes: 'too late' }],
    // The move is refused before the fields it would need are checked.
    ['submitted', ['submit'], { status: 'delivered' }],
  ]
  for (const [from, steps, body] of invalidMoves) {
    test(`rejects ${JSON.stringify(body)} on a ${from} order with 409 invalid_status and changes nothing`, async () => {
      const caller = await ctx.newCaller()
      const distributor = await createDistributor(ctx, caller)
      const item = await createItem(ctx, caller)
      const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }])
      for (const step of steps) {
        if (step === 'submit') await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/submit`)
        else if (step === 'shipped') await ok(ctx, caller, 'PUT', `/v1/orders/${order.id}`, { status: 'shipped', tracking_number: 'T', carrier: 'C' })
        else await ok(ctx, caller, 'PUT', `/v1/orders/${order.id}`, { status: step })
      }
      const requestBody = 'items' in body ? { ...body, items: [{ inventory_item_id: item.id, quantity_received: 1 }] } : body
      const before = await snapshot(ctx, caller, order.id)
      const response = await ctx.request('PUT', `/v1/orders/${order.id}`, { key: caller.key, body: requestBody })
      assert.equal(response.statusCode, 409, response.body)
      assert.equal(json(response).error.code, 'invalid_status')
      if (body.status !== undefined) assert.match(json(response).error.message, /it can (become|no longer change)/)
      assert.deepEqual(await snapshot(ctx, caller, order.id), before)
    })
  }

  test('rejects shipping fields without status shipped with invalid_parameter', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const item = await createItem(ctx, caller)
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }])
    const response = await ctx.request('PUT', `/v1/orders/${order.id}`, { key: caller.key, body: { tracking_number: 'T' } })
    assert.equal(response.statusCode, 400)
    assert.equal(json(response).error.details.parameter, 'tracking_number')
  })
})

describe('POST /v1/orders/:id/submit', () => {
  test('sets submitted_at, a confirmation number and estimated_delivery = submission + lead time, and emits order.submitted', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller, { lead_time_days: 4 })
    const item = await createItem(ctx, caller)
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }])
    const response = await ctx.request('POST', `/v1/orders/${order.id}/submit`, { key: caller.key, headers: { 'content-type': 'application/json' } })
    assert.equal(response.statusCode, 200, response.body)
    const submitted = json(response).data
    assert.equal(submitted.id, order.id)
    assert.equal(submitted.status, 'submitted')
    assert.equal(Date.parse(submitted.estimated_delivery) - Date.parse(submitted.submitted_at), 4 * DAY_MS)
    assert.deepEqual(submitted.purchase_order, { status: 'skipped', attempts: 0, last_error: null, sent_at: null })
    assert.deepEqual(await eventsOf(ctx, caller, 'order.submitted'), [
      {
        order_id: order.id,
        distributor_name: distributor.name,
        confirmation_number: submitted.confirmation_number,
        estimated_delivery: submitted.estimated_delivery,
      },
    ])
  })

  test('refuses a body it does not take (a field, or text) with 400 invalid_parameter, as DELETE does; the order stays a draft', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const item = await createItem(ctx, caller)
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }])
    const before = await snapshot(ctx, caller, order.id)
    const refused = [
      await ctx.request('POST', `/v1/orders/${order.id}/submit`, { key: caller.key, body: { foo: 1 } }),
      await ctx.request('POST', `/v1/orders/${order.id}/submit`, { key: caller.key, body: 'hello', headers: { 'content-type': 'text/plain' } }),
      await ctx.request('DELETE', `/v1/orders/${order.id}`, { key: caller.key, body: { foo: 1 } }),
    ]
    for (const response of refused) {
      assert.equal(response.statusCode, 400, response.body)
      assert.equal(json(response).error.code, 'invalid_parameter')
      assert.equal(json(response).error.details.parameter, 'body')
    }
    assert.deepEqual(await snapshot(ctx, caller, order.id), before)
    const submitted = await ctx.request('POST', `/v1/orders/${order.id}/submit`, { key: caller.key, body: {} })
    assert.equal(submitted.statusCode, 200, submitted.body)
  })

  test('rejects an order below the distributor minimum with below_min_order and changes nothing', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller, { min_order_amount: 100 })
    const item = await createItem(ctx, caller, { cost_per_unit: 18.5 })
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 5, unit: 'bottle' }])
    const before = await snapshot(ctx, caller, order.id)
    const response = await ctx.request('POST', `/v1/orders/${order.id}/submit`, { key: caller.key })
    assert.equal(response.statusCode, 400)
    assert.equal(json(response).error.code, 'below_min_order')
    assert.deepEqual(json(response).error.details, { total_amount: 92.5, min_order_amount: 100 })
    assert.deepEqual(await snapshot(ctx, caller, order.id), before)
  })

  test('concurrent submits of one order make one submission, one confirmation number and one event', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const item = await createItem(ctx, caller)
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }])
    const responses = await Promise.all([
      ...Array.from({ length: 4 }, () => ctx.request('POST', `/v1/orders/${order.id}/submit`, { key: caller.key })),
      ...Array.from({ length: 2 }, () => ctx.request('PUT', `/v1/orders/${order.id}`, { key: caller.key, body: { status: 'submitted' } })),
    ])
    const statuses = responses.map((response) => response.statusCode).sort()
    assert.deepEqual(statuses, [200, 409, 409, 409, 409, 409])
    assert.equal((await eventsOf(ctx, caller, 'order.submitted')).length, 1)
    const winner = json(responses.find((response) => response.statusCode === 200)!).data
    assert.equal((await ok(ctx, caller, 'GET', `/v1/orders/${order.id}`)).confirmation_number, winner.confirmation_number)
    const dispatches = await ctx.database.db.selectFrom('purchase_order_dispatches').selectAll().where('order_id', '=', order.id).execute()
    assert.equal(dispatches.length, 1)
  })

  test('a draft of a deleted distributor cannot be submitted: distributor_not_found', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const item = await createItem(ctx, caller)
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }])
    await ok(ctx, caller, 'DELETE', `/v1/distributors/${distributor.id}`)
    const response = await ctx.request('POST', `/v1/orders/${order.id}/submit`, { key: caller.key })
    assert.equal(response.statusCode, 404)
    assert.equal(json(response).error.code, 'distributor_not_found')
    const kept = await ok(ctx, caller, 'GET', `/v1/orders/${order.id}`)
    assert.equal(kept.status, 'draft')
    assert.equal(kept.distributor_name, distributor.name)
  })

  test('an idempotency key replays the first submission', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const item = await createItem(ctx, caller)
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }])
    const headers = { 'x-idempotency-key': `submit-${order.id}` }
    const first = await ctx.request('POST', `/v1/orders/${order.id}/submit`, { key: caller.key, headers })
    const again = await ctx.request('POST', `/v1/orders/${order.id}/submit`, { key: caller.key, headers })
    assert.equal(again.statusCode, 200)
    assert.equal(again.headers['idempotent-replayed'], 'true')
    assert.equal(json(again).data.confirmation_number, json(first).data.confirmation_number)
  })
})

describe('DELETE /v1/orders/:id', () => {
  test('deletes a draft', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const item = await createItem(ctx, caller)
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }])
    assert.deepEqual(await ok(ctx, caller, 'DELETE', `/v1/orders/${order.id}`), { id: order.id, deleted: true })
    assert.equal((await ctx.request('GET', `/v1/orders/${order.id}`, { key: caller.key })).statusCode, 404)
  })

  test('cancels a submitted order and stops its purchase order', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const item = await createItem(ctx, caller)
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }])
    await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/submit`)
    assert.deepEqual(await ok(ctx, caller, 'DELETE', `/v1/orders/${order.id}`), { id: order.id, deleted: true, status: 'cancelled' })
    assert.equal((await ok(ctx, caller, 'GET', `/v1/orders/${order.id}`)).status, 'cancelled')
  })

  test('rejects deleting a shipped order with 409 invalid_status and changes nothing', async () => {
    const caller = await ctx.newCaller()
    const distributor = await createDistributor(ctx, caller)
    const item = await createItem(ctx, caller)
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: item.id, quantity: 1, unit: 'bottle' }])
    await shipOrder(ctx, caller, order.id)
    const before = await snapshot(ctx, caller, order.id)
    const response = await ctx.request('DELETE', `/v1/orders/${order.id}`, { key: caller.key })
    assert.equal(response.statusCode, 409)
    assert.equal(json(response).error.code, 'invalid_status')
    assert.deepEqual(await snapshot(ctx, caller, order.id), before)
  })

  test('answers 404 order_not_found for an unknown order', async () => {
    const caller = await ctx.newCaller()
    const response = await ctx.request('DELETE', '/v1/orders/ord_nope', { key: caller.key })
    assert.equal(response.statusCode, 404)
    assert.equal(json(response).error.code, 'order_not_found')
  })
})

describe('ordering permissions', () => {
  test('ordering:read reads but cannot write; without it nothing is readable', async () => {
    const caller = await ctx.newCaller()
    const reader = await ctx.keyFor(caller, ['ordering:read'])
    const outsider = await ctx.keyFor(caller, ['inventory:read'])
    assert.equal((await ctx.request('GET', '/v1/orders', { key: reader })).statusCode, 200)
    assert.equal((await ctx.request('GET', '/v1/distributors', { key: reader })).statusCode, 200)
    const write = await ctx.request('POST', '/v1/orders', { key: reader, body: { distributor_id: 'x', location: 'main_bar', items: [] } })
    assert.equal(write.statusCode, 403)
    assert.equal(json(write).error.details.required, 'ordering:write')
    assert.equal((await ctx.request('GET', '/v1/orders/recommendations', { key: outsider })).statusCode, 403)
  })
})
