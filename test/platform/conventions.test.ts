import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestContext, json, type TestContext } from '../helpers/context.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext({
    configure: (app) =>
      app.get('/v1/test-crash', async () => {
        throw new Error('SELECT secret FROM internals failed at /srv/app.js:12')
      }),
  })
})
after(() => ctx.close())

describe('the API grammar', () => {
  test('wraps success in data with meta.request_id, also sent as X-Request-Id', async () => {
    const response = await ctx.request('GET', '/v1/auth/test')
    const body = json(response)
    assert.match(body.meta.request_id, /^req_/)
    assert.equal(response.headers['x-request-id'], body.meta.request_id)
    assert.ok(!Number.isNaN(Date.parse(body.meta.timestamp)))
  })

  test('an unknown route is 404 not_found in the error shape', async () => {
    const response = await ctx.request('GET', '/v1/nothing/here')
    assert.equal(response.statusCode, 404)
    const body = json(response)
    assert.equal(body.error.code, 'not_found')
    assert.match(body.meta.request_id, /^req_/)
  })

  test('an unknown query parameter is 400 invalid_parameter on every route, also one that takes no query', async () => {
    const caller = await ctx.newCaller()
    for (const url of ['/v1/auth/test', '/v1/webhooks/wh_nope', '/v1/inventory/items']) {
      const response = await ctx.request('GET', url, { key: caller.key, query: { categroy: 'beer' } })
      assert.equal(response.statusCode, 400, `${url}: ${response.body}`)
      assert.equal(json(response).error.code, 'invalid_parameter')
      assert.equal(json(response).error.message, 'categroy is not a known field')
    }
  })

  test('malformed JSON is 400 invalid_parameter naming the body', async () => {
    const response = await ctx.request('POST', '/v1/inventory/items', {
      headers: { 'content-type': 'application/json' },
      body: '{"name": "x",',
    })
    assert.equal(response.statusCode, 400)
    assert.equal(json(response).error.code, 'invalid_parameter')
    assert.equal(json(response).error.details.parameter, 'body')
  })

  test('an enum error lists the allowed values and a date error shows an example', async () => {
    const caller = await ctx.newCaller()
    const sorted = await ctx.request('GET', '/v1/inventory/items', { key: caller.key, query: { sort: 'price' } })
    assert.equal(sorted.statusCode, 400)
    assert.equal(json(sorted).error.message, 'sort must be one of name, quantity, last_updated, created_at, sku, category')
    const counted = await ctx.request('POST', '/v1/inventory/count', {
      key: caller.key,
      body: { location: 'main_bar', counted_by: 'user_maria', counted_at: 'yesterday', items: [{ item_id: 'item_x', quantity: 1 }] },
    })
    assert.equal(counted.statusCode, 400)
    assert.equal(json(counted).error.message, 'counted_at must be a date-time like 2026-11-22T21:30:00Z, in the years 0001 to 9999')
  })

  test('a pattern error says the rule in words, and a name or SKU of only spaces is refused; nothing is written', async () => {
    const caller = await ctx.newCaller()
    const badId = await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'Patio Bar', name: 'Patio' } })
    assert.equal(json(badId).error.message, 'id must be 1 to 63 lowercase letters, digits, _ or -, starting with a letter or digit (e.g. main_bar)')
    const blankName = await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'patio', name: '   ' } })
    assert.equal(blankName.statusCode, 400)
    assert.equal(json(blankName).error.message, 'name must not be blank (only spaces)')
    const blankSku = await ctx.request('POST', '/v1/inventory/items', {
      key: caller.key,
      body: { name: 'Aperol 1L', sku: '  ', category: 'liqueur', quantity: 1, unit: 'bottle', location: 'main_bar', reorder_point: 1, cost_per_unit: 20 },
    })
    assert.equal(json(blankSku).error.message, 'sku must not be blank (only spaces)')
    assert.equal(json(await ctx.request('GET', '/v1/locations', { key: caller.key })).pagination.total, 1)
    assert.equal(json(await ctx.request('GET', '/v1/inventory/items', { key: caller.key })).pagination.total, 0)
  })

  test('a body over 1 MiB is 413', async () => {
    const response = await ctx.request('POST', '/v1/inventory/items', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }),
    })
    assert.equal(response.statusCode, 413)
    assert.equal(json(response).error.code, 'payload_too_large')
  })

  test('a 500 carries no stack, SQL or message of the failure', async () => {
    const response = await ctx.request('GET', '/v1/test-crash')
    assert.equal(response.statusCode, 500)
    const body = json(response)
    assert.equal(body.error.code, 'internal_error')
    assert.equal(body.error.message, 'Internal server error')
    assert.ok(!response.body.includes('SELECT') && !response.body.includes('app.js'))
  })

  test('healthz and readyz answer without a key', async () => {
    assert.deepEqual(json(await ctx.request('GET', '/healthz', { key: null })), { status: 'ok' })
    assert.deepEqual(json(await ctx.request('GET', '/readyz', { key: null })), { status: 'ready' })
  })

  test('the API reference is served at /docs with its script from the package, nothing from another host', async () => {
    const bare = await ctx.request('GET', '/docs', { key: null })
    assert.equal(bare.statusCode, 301)
    assert.equal(bare.headers.location, '/docs/')
    const page = await ctx.request('GET', '/docs/', { key: null })
    assert.equal(page.statusCode, 200)
    assert.match(String(page.headers['content-type']), /text\/html/)
    assert.match(page.body, /<script src="js\/scalar.js">/)
    assert.match(page.body, /"url": "\/openapi.json"/)
    // No absolute URL in the page: the script and the document come from this server.
    assert.doesNotMatch(page.body, /https?:\/\//)
    const script = await ctx.request('GET', '/docs/js/scalar.js', { key: null })
    assert.equal(script.statusCode, 200)
    assert.match(String(script.headers['content-type']), /javascript/)
    assert.ok(script.body.includes('createApiReference'), 'the Scalar bundle')
  })
})
