import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { after, before, test } from 'node:test'
import type { Resolver } from '../../src/platform/network-guard.js'
import { json, type TestContext } from '../helpers/context.js'
import { createPosTestContext, SQUARE_CREDENTIALS } from './pos-helpers.js'

let ctx: TestContext
let closedPort: number

before(async () => {
  // A port that was just free: nothing listens there, so connecting is refused.
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  closedPort = (probe.address() as { port: number }).port
  await new Promise((resolve) => probe.close(resolve))
  ctx = await createPosTestContext({ env: { BARSTOCK_POS_BASE_URLS: `square=http://127.0.0.1:${closedPort}` } })
})
after(() => ctx.close())

test('answers 502 connection_failed when the production POS cannot be reached, and creates nothing', async () => {
  const caller = await ctx.newCaller({ environment: 'production' })
  const response = await ctx.request('POST', '/v1/pos/connections', {
    key: caller.key,
    body: { pos_type: 'square', name: 'Live', credentials: SQUARE_CREDENTIALS },
  })
  assert.equal(response.statusCode, 502)
  assert.equal(json(response).error.code, 'connection_failed')
  const list = json(await ctx.request('GET', '/v1/pos/connections', { key: caller.key }))
  assert.equal(list.pagination.total, 0)
})

test('a Simphony host in the credentials on loopback or a private network is never connected to: 502 connection_failed without the low-level reason, nothing created', async () => {
  const caller = await ctx.newCaller({ environment: 'production' })
  // Something listens on loopback: a connection attempt would reach it.
  const listener = createServer((socket) => {
    reached++
    socket.destroy()
  })
  let reached = 0
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  const port = (listener.address() as { port: number }).port
  try {
    const base = { client_id: 'QkFSU1RPQ0suZXhhbXBsZQ', username: 'barstock-api', password: 'example-password-0001', org_short_name: 'EXBAR', loc_ref: 'BAR01' }
    for (const host of [`https://127.0.0.1:${port}`, 'https://10.1.2.3', `https://localhost:${port}`]) {
      const response = await ctx.request('POST', '/v1/pos/connections', {
        key: caller.key,
        body: { pos_type: 'simphony', name: 'Scan', credentials: { ...base, auth_server_url: host, app_server_url: 'https://simphony-bi.example.com' } },
      })
      assert.equal(response.statusCode, 502, response.body)
      assert.equal(json(response).error.code, 'connection_failed')
      assert.doesNotMatch(response.body, /ECONNREFUSED|TLS|socket|127\.0\.0\.1|10\.1\.2\.3|localhost/)
    }
    assert.equal(reached, 0)
    assert.equal(json(await ctx.request('GET', '/v1/pos/connections', { key: caller.key })).pagination.total, 0)
  } finally {
    await new Promise((resolve) => listener.close(resolve))
  }
})

test('a host that passed the check but resolves to loopback when connected (DNS rebinding) is never connected to: 502 connection_failed, nothing created', async () => {
  // The resolver answers a public address the first time it is asked for localhost (the create check)
  // and loopback afterwards (the connect): only a look-up at connect time stops the second answer. The
  // system's own DNS would send localhost to the listener below.
  let lookups = 0
  const resolver: Resolver = async (hostname) => (hostname === 'localhost' && lookups++ > 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '93.184.216.34', family: 4 }])
  const rebinding = await createPosTestContext({ resolver })
  let reached = 0
  const listener = createServer((socket) => {
    reached++
    socket.destroy()
  })
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  const port = (listener.address() as { port: number }).port
  try {
    const caller = await rebinding.newCaller({ environment: 'production' })
    const credentials = { client_id: 'QkFSU1RPQ0suZXhhbXBsZQ', username: 'barstock-api', password: 'example-password-0001', org_short_name: 'EXBAR', loc_ref: 'BAR01' }
    const response = await rebinding.request('POST', '/v1/pos/connections', {
      key: caller.key,
      body: {
        pos_type: 'simphony',
        name: 'Rebind',
        credentials: { ...credentials, auth_server_url: `https://localhost:${port}`, app_server_url: 'https://simphony-bi.example.com' },
      },
    })
    assert.equal(response.statusCode, 502, response.body)
    assert.equal(json(response).error.code, 'connection_failed')
    assert.doesNotMatch(response.body, /127\.0\.0\.1|public address|localhost/)
    assert.equal(lookups, 2, 'the host is looked up again at connect')
    assert.equal(reached, 0)
    assert.equal(json(await rebinding.request('GET', '/v1/pos/connections', { key: caller.key })).pagination.total, 0)
  } finally {
    await new Promise((resolve) => listener.close(resolve))
    await rebinding.close()
  }
})
