import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestContext, json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

describe('/v1/locations', () => {
  test('a new account has main_bar; locations are created, read, updated and listed', async () => {
    const caller = await ctx.newCaller()
    const initial = json(await ctx.request('GET', '/v1/locations', { key: caller.key }))
    assert.deepEqual(
      initial.data.map((location: { id: string }) => location.id),
      ['main_bar'],
    )
    const created = await ctx.request('POST', '/v1/locations', {
      key: caller.key,
      body: { id: 'rooftop', name: 'Rooftop bar', timezone: 'America/New_York', business_day_cutoff: '03:30' },
    })
    assert.equal(created.statusCode, 201)
    assert.equal(json(created).data.timezone, 'America/New_York')
    const updated = await ctx.request('PUT', '/v1/locations/rooftop', { key: caller.key, body: { name: 'Roof' } })
    assert.equal(json(updated).data.name, 'Roof')
    assert.equal(json(updated).data.business_day_cutoff, '03:30')
    const fetched = json(await ctx.request('GET', '/v1/locations/rooftop', { key: caller.key })).data
    assert.equal(fetched.name, 'Roof')
  })

  test('defaults to UTC and a 04:00 cut-off', async () => {
    const caller = await ctx.newCaller()
    const created = json(await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'cellar', name: 'Cellar' } })).data
    assert.equal(created.timezone, 'UTC')
    assert.equal(created.business_day_cutoff, '04:00')
  })

  test('rejects a taken id (409), a bad slug, time zone or cut-off (400)', async () => {
    const caller = await ctx.newCaller()
    const duplicate = await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'main_bar', name: 'Again' } })
    assert.equal(duplicate.statusCode, 409)
    assert.equal(json(duplicate).error.code, 'duplicate_location')
    for (const body of [
      { id: 'Main Bar', name: 'x' },
      { id: 'ok', name: 'x', timezone: 'Mars/Olympus' },
      { id: 'ok', name: 'x', business_day_cutoff: '25:00' },
    ]) {
      const response = await ctx.request('POST', '/v1/locations', { key: caller.key, body })
      assert.equal(response.statusCode, 400, JSON.stringify(body))
      assert.equal(json(response).error.code, 'invalid_parameter')
    }
    assert.equal(json(await ctx.request('GET', '/v1/locations', { key: caller.key })).pagination.total, 1)
  })

  test('a location in use cannot be deleted; an empty one can; unknown ones are 404', async () => {
    const caller = await ctx.newCaller()
    await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'patio', name: 'Patio' } })
    const item = await createItem(ctx, caller, { location: 'patio' })
    const inUse = await ctx.request('DELETE', '/v1/locations/patio', { key: caller.key })
    assert.equal(inUse.statusCode, 409)
    assert.equal(json(inUse).error.code, 'location_in_use')
    await ctx.request('DELETE', `/v1/inventory/items/${item.id}`, { key: caller.key })
    const deleted = await ctx.request('DELETE', '/v1/locations/patio', { key: caller.key })
    assert.deepEqual(json(deleted).data, { id: 'patio', deleted: true })
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const response = await ctx.request(method, '/v1/locations/patio', { key: caller.key, ...(method === 'PUT' ? { body: { name: 'x' } } : {}) })
      assert.equal(response.statusCode, 404, method)
      assert.equal(json(response).error.code, 'location_not_found')
    }
  })

  test('country is optional, validated against ISO 3166-1, and cleared with null', async () => {
    const caller = await ctx.newCaller()
    const plain = json(await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'plain', name: 'Plain' } })).data
    assert.equal(plain.country, null)
    assert.equal(json(await ctx.request('GET', '/v1/locations/main_bar', { key: caller.key })).data.country, null)
    const created = await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'berlin', name: 'Berlin', country: 'DE' } })
    assert.equal(created.statusCode, 201)
    assert.equal(json(created).data.country, 'DE')
    const moved = await ctx.request('PUT', '/v1/locations/berlin', { key: caller.key, body: { country: 'AT' } })
    assert.equal(json(moved).data.country, 'AT')
    const renamed = await ctx.request('PUT', '/v1/locations/berlin', { key: caller.key, body: { name: 'Vienna' } })
    assert.equal(json(renamed).data.country, 'AT', 'an update without country keeps it')
    for (const country of ['at', 'AUT', 'QQ', 'UK', 'EU', 'ZZ', 'XK', 1]) {
      for (const [method, url, body] of [
        ['POST', '/v1/locations', { id: 'other', name: 'Other', country }],
        ['PUT', '/v1/locations/berlin', { country }],
      ] as const) {
        const response = await ctx.request(method, url, { key: caller.key, body })
        assert.equal(response.statusCode, 400, `${method} ${country}`)
        assert.equal(json(response).error.code, 'invalid_parameter')
        assert.equal(json(response).error.details.parameter, 'country')
      }
    }
    assert.equal(json(await ctx.request('GET', '/v1/locations/berlin', { key: caller.key })).data.country, 'AT')
    assert.equal((await ctx.request('GET', '/v1/locations/other', { key: caller.key })).statusCode, 404)
    const cleared = await ctx.request('PUT', '/v1/locations/berlin', { key: caller.key, body: { country: null } })
    assert.equal(json(cleared).data.country, null)
    const listed = json(await ctx.request('GET', '/v1/locations', { key: caller.key })).data
    assert.deepEqual(
      listed.map((location: { id: string; country: string | null }) => [location.id, location.country]),
      [
        ['berlin', null],
        ['main_bar', null],
        ['plain', null],
      ],
    )
    const us = await ctx.request('PUT', '/v1/locations/main_bar', { key: caller.key, body: { country: 'US' } })
    assert.equal(json(us).data.country, 'US')
  })

  test('a shelf order is saved once for the location, read back without deleted items, and refused item by item', async () => {
    const caller = await ctx.newCaller()
    const other = await ctx.newCaller()
    await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'cellar', name: 'Cellar' } })
    const [gin, rum, vodka] = [await createItem(ctx, caller, { name: 'Gin' }), await createItem(ctx, caller, { name: 'Rum' }), await createItem(ctx, caller, { name: 'Vodka' })]
    const inCellar = await createItem(ctx, caller, { name: 'Cellar wine', location: 'cellar' })
    const strangers = await createItem(ctx, other, { name: 'Not yours' })
    const url = '/v1/locations/main_bar/shelf-order'
    const never = json(await ctx.request('GET', url, { key: caller.key })).data
    assert.deepEqual(never, { location: 'main_bar', item_ids: [], updated_at: null })

    const saved = await ctx.request('PUT', url, { key: caller.key, body: { item_ids: [vodka.id, gin.id] } })
    assert.equal(saved.statusCode, 200)
    assert.deepEqual(json(saved).data.item_ids, [vodka.id, gin.id])
    assert.ok(json(saved).data.updated_at)

    const refusals: [unknown, string, string][] = [
      [{ item_ids: [rum.id, rum.id] }, 'item_ids[1]', 'listed twice'],
      [{ item_ids: [rum.id, inCellar.id] }, 'item_ids[1]', 'not an item at location main_bar'],
      [{ item_ids: [strangers.id] }, 'item_ids[0]', 'not an item at location main_bar'],
      [{ item_ids: ['item_missing'] }, 'item_ids[0]', 'not an item at location main_bar'],
      [{ item_ids: [''] }, 'item_ids[0]', ''],
      [{ items: [rum.id] }, '', ''],
    ]
    for (const [body, parameter, message] of refusals) {
      const response = await ctx.request('PUT', url, { key: caller.key, body })
      assert.equal(response.statusCode, 400, JSON.stringify(body))
      assert.equal(json(response).error.code, 'invalid_parameter')
      if (parameter) assert.equal(json(response).error.details.parameter, parameter)
      assert.match(json(response).error.message, new RegExp(message))
    }
    const missing = await ctx.request('PUT', '/v1/locations/nowhere/shelf-order', { key: caller.key, body: { item_ids: [] } })
    assert.equal(missing.statusCode, 404)
    assert.equal(json(missing).error.code, 'location_not_found')
    assert.equal((await ctx.request('GET', '/v1/locations/main_bar/shelf-order', { key: other.key })).statusCode, 200)
    assert.equal((await ctx.request('GET', '/v1/locations/cellar/shelf-order', { key: other.key })).statusCode, 404)
    // Nothing refused changed the saved order.
    assert.deepEqual(json(await ctx.request('GET', url, { key: caller.key })).data.item_ids, [vodka.id, gin.id])

    await ctx.request('DELETE', `/v1/inventory/items/${vodka.id}`, { key: caller.key })
    assert.deepEqual(json(await ctx.request('GET', url, { key: caller.key })).data.item_ids, [gin.id])
  })

  test('another account’s location is invisible', async () => {
    const owner = await ctx.newCaller()
    const stranger = await ctx.newCaller()
    await ctx.request('POST', '/v1/locations', { key: owner.key, body: { id: 'private', name: 'Private' } })
    assert.equal((await ctx.request('GET', '/v1/locations/private', { key: stranger.key })).statusCode, 404)
  })
})
