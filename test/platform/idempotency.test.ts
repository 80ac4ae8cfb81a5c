import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestContext, json, type TestContext } from '../helpers/context.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

function itemBody(sku: string) {
  return { name: 'Idempotent Gin', sku, category: 'spirits', quantity: 3, unit: 'bottle', location: 'main_bar' }
}

async function itemCount(key: string) {
  return json(await ctx.request('GET', '/v1/inventory/items', { key })).pagination.total as number
}

describe('X-Idempotency-Key', () => {
  test('a repeat returns the original response with Idempotent-Replayed and creates nothing more', async () => {
    const caller = await ctx.newCaller()
    const headers = { 'x-idempotency-key': 'create-gin-1' }
    const first = await ctx.request('POST', '/v1/inventory/items', { key: caller.key, headers, body: itemBody('IDEM-1') })
    const second = await ctx.request('POST', '/v1/inventory/items', { key: caller.key, headers, body: itemBody('IDEM-1') })
    assert.equal(first.statusCode, 201)
    assert.equal(second.statusCode, 201)
    assert.equal(second.headers['idempotent-replayed'], 'true')
    assert.equal(first.headers['idempotent-replayed'], undefined)
    assert.deepEqual(json(second).data, json(first).data)
    assert.equal(await itemCount(caller.key), 1)
  })

  test('the same key with another body is 400 idempotency_key_reused', async () => {
    const caller = await ctx.newCaller()
    const headers = { 'x-idempotency-key': 'reuse' }
    await ctx.request('POST', '/v1/inventory/items', { key: caller.key, headers, body: itemBody('IDEM-2') })
    const response = await ctx.request('POST', '/v1/inventory/items', { key: caller.key, headers, body: itemBody('IDEM-3') })
    assert.equal(response.statusCode, 400)
    assert.equal(json(response).error.code, 'idempotency_key_reused')
    assert.equal(await itemCount(caller.key), 1)
  })

  test('keys are scoped to the API key', async () => {
    const caller = await ctx.newCaller()
    const otherKey = await ctx.keyFor(caller, ['inventory:write', 'inventory:read'])
    const headers = { 'x-idempotency-key': 'shared-name' }
    const first = await ctx.request('POST', '/v1/inventory/items', { key: caller.key, headers, body: itemBody('IDEM-4') })
    const second = await ctx.request('POST', '/v1/inventory/items', { key: otherKey, headers, body: itemBody('IDEM-5') })
    assert.equal(first.statusCode, 201)
    assert.equal(second.statusCode, 201)
    assert.equal(second.headers['idempotent-replayed'], undefined)
  })

  test('a domain error is stored and replayed; a validation rejection is not stored', async () => {
    const caller = await ctx.newCaller()
    const headers = { 'x-idempotency-key': 'bad-location' }
    const body = { ...itemBody('IDEM-6'), location: 'nowhere' }
    const first = await ctx.request('POST', '/v1/inventory/items', { key: caller.key, headers, body })
    assert.equal(first.statusCode, 404)
    await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'nowhere', name: 'Now here' } })
    const replay = await ctx.request('POST', '/v1/inventory/items', { key: caller.key, headers, body })
    assert.equal(replay.statusCode, 404, 'the stored outcome, although the location now exists')
    assert.equal(replay.headers['idempotent-replayed'], 'true')
    assert.equal(json(replay).error.code, 'location_not_found')

    const schemaHeaders = { 'x-idempotency-key': 'schema-reject' }
    const rejected = await ctx.request('POST', '/v1/inventory/items', { key: caller.key, headers: schemaHeaders, body: { name: 'x' } })
    assert.equal(rejected.statusCode, 400)
    const retried = await ctx.request('POST', '/v1/inventory/items', { key: caller.key, headers: schemaHeaders, body: itemBody('IDEM-7') })
    assert.equal(retried.statusCode, 201, 'a schema rejection was not stored, so the key is free')
  })

  test('the same keyed POST fired concurrently creates one resource', async () => {
    const caller = await ctx.newCaller()
    const headers = { 'x-idempotency-key': 'burst' }
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => ctx.request('POST', '/v1/inventory/items', { key: caller.key, headers, body: itemBody('IDEM-8') })),
    )
    const created = responses.filter((response) => response.statusCode === 201)
    const inProgress = responses.filter((response) => response.statusCode === 409)
    assert.equal(created.length + inProgress.length, 10, responses.map((r) => `${r.statusCode} ${r.body}`).join('\n'))
    for (const response of inProgress) assert.equal(json(response).error.code, 'idempotency_in_progress')
    assert.equal(new Set(created.map((response) => json(response).data.id)).size, 1, 'every 201 names the same item')
    assert.equal(await itemCount(caller.key), 1)
  })

  test('a key over 255 characters is invalid_parameter', async () => {
    const response = await ctx.request('POST', '/v1/inventory/items', {
      headers: { 'x-idempotency-key': 'k'.repeat(256) },
      body: itemBody('IDEM-9'),
    })
    assert.equal(response.statusCode, 400)
    assert.equal(json(response).error.details.parameter, 'X-Idempotency-Key')
  })
})
