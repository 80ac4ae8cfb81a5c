import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, test } from 'node:test'
import { type Caller, createTestContext, json, type TestContext } from '../helpers/context.js'
import { recordErrorCodes } from '../helpers/error-codes-seen.js'
import { createItem } from '../helpers/inventory.js'

/**
 * Input no route should see is refused in the API's error shape, never a 500 and never Fastify's or
 * Node's own answer: NUL characters, deep nesting, huge echoes, broken percent-encoding, over-long path
 * segments and over-large headers. Each refusal changes nothing.
 */

let ctx: TestContext
let caller: Caller
before(async () => {
  ctx = await createTestContext()
  caller = await ctx.newCaller()
})
after(() => ctx.close())

async function locationCount(): Promise<number> {
  return json(await ctx.request('GET', '/v1/locations', { key: caller.key })).pagination.total
}

function assertRefused(response: Awaited<ReturnType<TestContext['request']>>, parameter: string | RegExp) {
  assert.equal(response.statusCode, 400, response.body)
  const body = json(response)
  assert.equal(body.error.code, 'invalid_parameter')
  assert.match(body.meta.request_id, /^req_/)
  if (typeof parameter === 'string') assert.equal(body.error.details.parameter, parameter)
  else assert.match(body.error.details.parameter, parameter)
}

test('a NUL character in a body string is 400 invalid_parameter naming the field, and nothing is written', async () => {
  const before = await locationCount()
  const response = await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'nul1', name: 'a\u0000b' } })
  assertRefused(response, 'name')
  assert.match(json(response).error.message, /NUL/)
  assert.equal(await locationCount(), before)
})

test('a NUL character in a path parameter or a query parameter is 400 invalid_parameter naming it', async () => {
  assertRefused(await ctx.request('GET', '/v1/locations/%00', { key: caller.key }), 'id')
  assertRefused(await ctx.request('GET', '/v1/inventory/items', { key: caller.key, query: { location: '\u0000' } }), 'location')
})

test('an unpaired surrogate (a JSON \\ud800 escape) in a body string is 400 invalid_parameter and writes nothing; a pair is taken', async () => {
  const before = await locationCount()
  const response = await ctx.request('POST', '/v1/locations', {
    key: caller.key,
    body: '{"id":"lone1","name":"Bar \\ud800"}',
    headers: { 'content-type': 'application/json' },
  })
  assertRefused(response, 'name')
  assert.match(json(response).error.message, /unpaired UTF-16 surrogate/)
  assert.equal(await locationCount(), before)
  const paired = await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'pair1', name: 'Bar \ud83d\ude00' } })
  assert.equal(paired.statusCode, 201, paired.body)
  assert.equal(json(paired).data.name, 'Bar 😀')
})

test('a body nested 5,000 levels deep is 400 invalid_parameter, and the answer stays small', async () => {
  const before = await locationCount()
  const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`
  const response = await ctx.request('POST', '/v1/locations', {
    key: caller.key,
    body: `{"id":"deep1","name":${deep}}`,
    headers: { 'content-type': 'application/json' },
  })
  assertRefused(response, /^name/)
  assert.ok(response.body.length < 2000, `${response.body.length} bytes`)
  assert.equal(await locationCount(), before)
})

test('a refused value is echoed cut to 200 characters, with its length', async () => {
  const name = 'x'.repeat(1_000_000 - 100)
  const response = await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'big1', name } })
  assertRefused(response, 'name')
  assert.equal(json(response).error.details.value, `${'x'.repeat(200)}… (${name.length} characters)`)
})

test('malformed percent-encoding in the path is 400 invalid_parameter in the API shape, with the rate-limit headers of every /v1 answer', async () => {
  for (const path of ['/v1/orders/%zz', '/v1/orders/%C3%28', '/v1/orders/%', `/v1/orders/${'a'.repeat(501)}`]) {
    const response = await ctx.request('GET', path, { key: caller.key })
    assertRefused(response, 'path')
    // Refused before routing, so before the key is read: counted against the client address.
    for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) assert.ok(response.headers[header] !== undefined, `${path}: ${header}`)
  }
})

test('a path segment over 500 characters is 400 invalid_parameter; one of 150 reaches the route', async () => {
  assertRefused(await ctx.request('GET', `/v1/orders/${'a'.repeat(501)}`, { key: caller.key }), 'path')
  const reached = await ctx.request('GET', `/v1/orders/${'a'.repeat(150)}`, { key: caller.key })
  assert.equal(reached.statusCode, 404)
  assert.equal(json(reached).error.code, 'order_not_found')
})

test("headers over 16 KiB are 431 headers_too_large in the API shape, not Node's bare status line", async () => {
  await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = ctx.app.server.address() as { port: number }
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET /v1/locations HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${'k'.repeat(20_000)}\r\n\r\n`)
    })
    let received = ''
    socket.on('data', (chunk) => (received += chunk.toString()))
    socket.on('end', () => resolve(received))
    socket.on('error', reject)
  })
  assert.match(answer, /^HTTP\/1\.1 431 /)
  const bodyText = answer.slice(answer.indexOf('\r\n\r\n') + 4)
  // Node answers this before Fastify (and its inject) sees a request: the test records the answer itself.
  recordErrorCodes({ statusCode: 431, body: bodyText })
  const body = JSON.parse(bodyText)
  assert.equal(body.error.code, 'headers_too_large')
  assert.match(body.meta.request_id, /^req_/)
})

test('a trailing slash is ignored on every route, and the document writes no path with one', async () => {
  for (const path of ['/v1/inventory/items/', '/v1/orders/', '/v1/locations/']) {
    const response = await ctx.request('GET', path, { key: caller.key })
    assert.equal(response.statusCode, 200, `${path}: ${response.body}`)
  }
  const document = json(await ctx.request('GET', '/openapi.json', { key: null }))
  assert.deepEqual(
    Object.keys(document.paths).filter((path) => path.length > 1 && path.endsWith('/')),
    [],
  )
  assert.deepEqual(Object.keys(document.paths['/v1/orders']).sort(), ['get', 'post'])
})

test('an empty body sent as application/json is an empty body on every route: accepted where none is needed, invalid_parameter naming the first required field where one is', async () => {
  const headers = { 'content-type': 'application/json' }
  const created = await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'empty_body_bar', name: 'Empty Body Bar' } })
  assert.equal(created.statusCode, 201, created.body)
  const deleted = await ctx.app.inject({ method: 'DELETE', url: '/v1/locations/empty_body_bar', headers: { ...headers, 'x-api-key': caller.key }, payload: '' })
  assert.equal(deleted.statusCode, 200, deleted.body)
  const before = await locationCount()
  const missing = await ctx.app.inject({ method: 'POST', url: '/v1/locations', headers: { ...headers, 'x-api-key': caller.key }, payload: '' })
  assertRefused(missing, 'id')
  assert.equal(await locationCount(), before)
})

test('a date-time outside the years 0001 to 9999, or a leap second, is 400 invalid_parameter, and the count is not recorded', async () => {
  const item = await createItem(ctx, caller)
  const counts = async () => json(await ctx.request('GET', '/v1/inventory/counts', { key: caller.key })).pagination.total
  const before = await counts()
  for (const countedAt of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00', '2016-12-31T23:59:60Z', '9999-12-31T23:59:59-12:00']) {
    const response = await ctx.request('POST', '/v1/inventory/count', {
      key: caller.key,
      body: { location: 'main_bar', counted_by: 'dates', counted_at: countedAt, items: [{ item_id: item.id, quantity: 3 }] },
    })
    assertRefused(response, 'counted_at')
  }
  assert.equal(await counts(), before)
  assert.equal(json(await ctx.request('GET', `/v1/inventory/items/${item.id}`, { key: caller.key })).data.quantity, item.quantity)
})

test('an order date filter outside the years 0001 to 9999 is 400 invalid_parameter; a date_to of 9999-12-31 bounds nothing', async () => {
  assertRefused(await ctx.request('GET', '/v1/orders', { key: caller.key, query: { date_from: '0000-01-01' } }), 'date_from')
  assertRefused(await ctx.request('GET', '/v1/orders', { key: caller.key, query: { date_to: '0000-06-01T00:00:00Z' } }), 'date_to')
  for (const query of [{ date_to: '9999-12-31' }, { date_from: '0001-01-01', date_to: '9999-12-31T23:59:59.999Z' }] as Record<string, string>[]) {
    const response = await ctx.request('GET', '/v1/orders', { key: caller.key, query })
    assert.equal(response.statusCode, 200, response.body)
  }
})

test('a report date outside 1900-01-01 to 9998-12-31 is 400 invalid_parameter; periods at both ends answer, in any time zone', async () => {
  const reports = ['variance', 'performance', 'staff', 'categories']
  for (const report of reports) {
    assertRefused(await ctx.request('GET', `/v1/analytics/${report}`, { key: caller.key, query: { date_from: '0000-01-01', date_to: '0000-12-31' } }), 'date_to')
    assertRefused(await ctx.request('GET', `/v1/analytics/${report}`, { key: caller.key, query: { date_from: '9999-12-01', date_to: '9999-12-31' } }), 'date_to')
  }
  const reportCaller = await ctx.newCaller()
  for (const [id, timezone, cutoff] of [
    ['east_end', 'Pacific/Kiritimati', '23:59'],
    ['west_end', 'Etc/GMT+12', '00:00'],
  ]) {
    const created = await ctx.request('POST', '/v1/locations', { key: reportCaller.key, body: { id, name: id, timezone, business_day_cutoff: cutoff } })
    assert.equal(created.statusCode, 201, created.body)
  }
  for (const report of reports) {
    for (const query of [
      { date_from: '1900-01-01', date_to: '1900-12-31' },
      { date_from: '9998-01-01', date_to: '9998-12-31' },
    ]) {
      const response = await ctx.request('GET', `/v1/analytics/${report}`, { key: reportCaller.key, query })
      assert.ok(response.statusCode < 500, `${report} ${JSON.stringify(query)}: ${response.statusCode} ${response.body}`)
    }
  }
})
