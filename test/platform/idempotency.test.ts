import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LookupAddress } from 'node:dns'
import { json, type RequestOptions, type TestContext } from '../helpers/context.js'
import { createPosTestContext, SQUARE_CREDENTIALS, startSwitchableSquare } from '../pos/pos-helpers.js'

let ctx: TestContext
/** Production Square calls go to a simulator a test can break. */
let square: Awaited<ReturnType<typeof startSwitchableSquare>>
/** What webhook hosts resolve to: a public address, until a test makes DNS fail. */
const dns = { failing: false }
before(async () => {
  square = await startSwitchableSquare()
  ctx = await createPosTestContext({
    env: { BARSTOCK_POS_BASE_URLS: `square=${square.url}` },
    resolver: async (): Promise<LookupAddress[]> => {
      if (dns.failing) throw Object.assign(new Error('queryA ENOTFOUND'), { code: 'ENOTFOUND' })
      return [{ address: '93.184.216.34', family: 4 }]
    },
  })
})
after(async () => {
  await ctx.close()
  await square.close()
})

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
    const responses = await Promise.all(Array.from({ length: 10 }, () => ctx.request('POST', '/v1/inventory/items', { key: caller.key, headers, body: itemBody('IDEM-8') })))
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

  /** Creates with a key, breaks the network step the create waits on, repeats: the stored 201, and one resource. */
  async function assertReplayedDespite(breakNetwork: () => void, path: string, request: RequestOptions & { key: string }) {
    const first = await ctx.request('POST', path, request)
    assert.equal(first.statusCode, 201, first.body)
    breakNetwork()
    const replay = await ctx.request('POST', path, request)
    assert.equal(replay.statusCode, 201, replay.body)
    assert.equal(replay.headers['idempotent-replayed'], 'true')
    assert.deepEqual(json(replay).data, json(first).data)
    const listed = json(await ctx.request('GET', path, { key: request.key }))
    assert.deepEqual(
      listed.data.map((created: { id: string }) => created.id),
      [json(first).data.id],
    )
  }

  test('a repeated POS connection create is the stored 201 even when the vendor now refuses the login, and no second connection exists', async (t) => {
    t.after(() => (square.state.mode = 'ok'))
    const caller = await ctx.newCaller({ environment: 'production' })
    await assertReplayedDespite(() => (square.state.mode = 'unauthorized'), '/v1/pos/connections', {
      key: caller.key,
      headers: { 'x-idempotency-key': 'connect-square' },
      body: { pos_type: 'square', name: 'Front bar', credentials: SQUARE_CREDENTIALS },
    })
  })

  test('a failed vendor login is not stored: the same key succeeds once the vendor answers', async (t) => {
    t.after(() => (square.state.mode = 'ok'))
    const caller = await ctx.newCaller({ environment: 'production' })
    const request = {
      key: caller.key,
      headers: { 'x-idempotency-key': 'connect-after-outage' },
      body: { pos_type: 'square', name: 'Front bar', credentials: SQUARE_CREDENTIALS },
    }
    square.state.mode = 'unauthorized'
    const refused = await ctx.request('POST', '/v1/pos/connections', request)
    assert.equal(refused.statusCode, 400, refused.body)
    assert.equal(json(refused).error.code, 'invalid_credentials')
    square.state.mode = 'ok'
    const retried = await ctx.request('POST', '/v1/pos/connections', request)
    assert.equal(retried.statusCode, 201, retried.body)
    assert.equal(retried.headers['idempotent-replayed'], undefined)
  })

  test('a repeated webhook create is the stored 201 even when its host no longer resolves, and no second webhook exists', async (t) => {
    t.after(() => (dns.failing = false))
    const caller = await ctx.newCaller()
    await assertReplayedDespite(() => (dns.failing = true), '/v1/webhooks', {
      key: caller.key,
      headers: { 'x-idempotency-key': 'hook-once' },
      body: { url: 'https://hooks.example.com/barstock', events: ['*'] },
    })
  })

  test('the same key with another webhook body is still 400 idempotency_key_reused before any DNS lookup', async (t) => {
    t.after(() => (dns.failing = false))
    const caller = await ctx.newCaller()
    const headers = { 'x-idempotency-key': 'hook-reused' }
    const first = await ctx.request('POST', '/v1/webhooks', { key: caller.key, headers, body: { url: 'https://hooks.example.com/a', events: ['*'] } })
    assert.equal(first.statusCode, 201, first.body)
    dns.failing = true
    const reused = await ctx.request('POST', '/v1/webhooks', { key: caller.key, headers, body: { url: 'https://hooks.example.com/b', events: ['*'] } })
    assert.equal(reused.statusCode, 400, reused.body)
    assert.equal(json(reused).error.code, 'idempotency_key_reused')
    assert.equal(json(await ctx.request('GET', '/v1/webhooks', { key: caller.key })).pagination.total, 1)
  })
})
