import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createApiKey, revokeApiKey } from '../../src/platform/auth/api-keys.js'
import { parsePermissionList, PERMISSIONS } from '../../src/platform/auth/permissions.js'
import { createTestContext, json, type TestContext } from '../helpers/context.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

describe('API keys', () => {
  test('keys are bs_live_/bs_test_ with at least 128 random bits, stored only as a hash', async () => {
    const live = await createApiKey(ctx.database.db, { accountId: 'acct_default', environment: 'production', name: 'a', permissions: ['inventory:read'] })
    const test_ = await createApiKey(ctx.database.db, { accountId: 'acct_default', environment: 'sandbox', name: 'b', permissions: ['inventory:read'] })
    assert.match(live.key, /^bs_live_[0-9A-Za-z]{28}$/)
    assert.match(test_.key, /^bs_test_[0-9A-Za-z]{28}$/)
    const stored = await ctx.database.db.selectFrom('api_keys').selectAll().where('id', '=', live.id).executeTakeFirstOrThrow()
    assert.ok(!JSON.stringify(stored).includes(live.key.slice(8)), 'the secret part is not stored')
  })

  test('GET /v1/auth/test answers valid, the permissions and the live rate-limit numbers', async () => {
    const caller = await ctx.newCaller({ permissions: ['inventory:read', 'pos:read'] })
    const first = json(await ctx.request('GET', '/v1/auth/test', { key: caller.key })).data
    const second = json(await ctx.request('GET', '/v1/auth/test', { key: caller.key })).data
    assert.deepEqual(first.permissions, ['inventory:read', 'pos:read'])
    assert.equal(first.valid, true)
    assert.equal(first.rate_limit.limit, 1000)
    assert.equal(second.rate_limit.remaining, first.rate_limit.remaining - 1)
  })

  test('a missing, unknown, revoked or expired key is 401 invalid_api_key', async () => {
    const caller = await ctx.newCaller()
    const revoked = await createApiKey(ctx.database.db, { ...caller.tenant, name: 'r', permissions: ['inventory:read'] })
    assert.equal((await ctx.request('GET', '/v1/auth/test', { key: revoked.key })).statusCode, 200)
    await revokeApiKey(ctx.database.db, revoked.id)
    // The server's key cache is dropped by the NOTIFY the revocation sends.
    await new Promise((resolve) => setTimeout(resolve, 100))
    const expired = await createApiKey(ctx.database.db, {
      ...caller.tenant,
      name: 'e',
      permissions: ['inventory:read'],
      expiresAt: new Date(Date.now() + 150),
    })
    assert.equal((await ctx.request('GET', '/v1/auth/test', { key: expired.key })).statusCode, 200)
    await new Promise((resolve) => setTimeout(resolve, 200))
    for (const key of [null, 'bs_live_nope', revoked.key, expired.key]) {
      const response = await ctx.request('GET', '/v1/inventory/items', { key })
      assert.equal(response.statusCode, 401, String(key))
      assert.equal(json(response).error.code, 'invalid_api_key')
    }
  })

  test('a key sent as Authorization: Bearer is 401 invalid_api_key whose message says to send X-API-Key', async () => {
    const caller = await ctx.newCaller()
    const response = await ctx.request('GET', '/v1/inventory/items', { key: null, headers: { authorization: `Bearer ${caller.key}` } })
    assert.equal(response.statusCode, 401)
    assert.equal(json(response).error.code, 'invalid_api_key')
    assert.match(json(response).error.message, /X-API-Key header \(Authorization: Bearer is not read\)/)
    const unknown = json(await ctx.request('GET', '/v1/inventory/items', { key: 'bs_live_nope' })).error.message
    assert.equal(unknown, 'The API key is missing, invalid, revoked or expired')
  })

  test('a key without the route’s permission is 403 with required and provided', async () => {
    const caller = await ctx.newCaller({ permissions: ['inventory:read'] })
    const response = await ctx.request('POST', '/v1/inventory/items', { key: caller.key, body: {} })
    assert.equal(response.statusCode, 403)
    assert.deepEqual(json(response).error.details, { required: 'inventory:write', provided: ['inventory:read'] })
    assert.equal(json(response).error.code, 'insufficient_permissions')
  })

  test('permission lists parse names or *, and refuse unknown names', () => {
    assert.deepEqual(parsePermissionList('*'), [...PERMISSIONS])
    assert.deepEqual(parsePermissionList('inventory:read, pos:write'), ['inventory:read', 'pos:write'])
    assert.throws(() => parsePermissionList('inventory:admin'), /unknown permission/)
  })
})
