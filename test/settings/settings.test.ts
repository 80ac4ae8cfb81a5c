import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { getSettings } from '../../src/settings/settings.service.js'
import { createTestContext, json, type TestContext } from '../helpers/context.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

const DEFAULTS = {
  currency: 'USD',
  variance_threshold: 5,
  targets: { pour_cost: 20, variance_rate: 3, inventory_turnover: 4, gross_margin: 75 },
}

describe('/v1/settings', () => {
  test('a new account answers the defaults, to any valid key, even one without permissions', async () => {
    const caller = await ctx.newCaller()
    const bare = await ctx.keyFor(caller, [])
    const response = await ctx.request('GET', '/v1/settings', { key: bare })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(json(response).data, DEFAULTS)
    assert.deepEqual(await getSettings(ctx.database.db, caller.tenant), DEFAULTS)
  })

  test('a partial PUT changes only what it names, targets one by one, and answers the whole settings', async () => {
    const caller = await ctx.newCaller()
    const first = await ctx.request('PUT', '/v1/settings', { key: caller.key, body: { currency: 'EUR', targets: { pour_cost: 22.5 } } })
    assert.equal(first.statusCode, 200)
    assert.deepEqual(json(first).data, { ...DEFAULTS, currency: 'EUR', targets: { ...DEFAULTS.targets, pour_cost: 22.5 } })
    const second = await ctx.request('PUT', '/v1/settings', {
      key: caller.key,
      body: { variance_threshold: 7.25, targets: { inventory_turnover: 365, gross_margin: 100 } },
    })
    const expected = {
      currency: 'EUR',
      variance_threshold: 7.25,
      targets: { pour_cost: 22.5, variance_rate: 3, inventory_turnover: 365, gross_margin: 100 },
    }
    assert.deepEqual(json(second).data, expected)
    assert.deepEqual(json(await ctx.request('GET', '/v1/settings', { key: caller.key })).data, expected)
    assert.deepEqual(await getSettings(ctx.database.db, caller.tenant), expected)
    const empty = await ctx.request('PUT', '/v1/settings', { key: caller.key, body: {} })
    assert.deepEqual(json(empty).data, expected)
  })

  test('settings belong to one account and one environment', async () => {
    const owner = await ctx.newCaller()
    const stranger = await ctx.newCaller()
    const sandbox = await ctx.keyFor(owner, ['inventory:write'], 'sandbox')
    await ctx.request('PUT', '/v1/settings', { key: owner.key, body: { currency: 'GBP' } })
    assert.equal(json(await ctx.request('GET', '/v1/settings', { key: stranger.key })).data.currency, 'USD')
    assert.equal(json(await ctx.request('GET', '/v1/settings', { key: sandbox })).data.currency, 'USD')
  })

  test('rejects each invalid value with invalid_parameter naming it, and changes nothing', async () => {
    const caller = await ctx.newCaller()
    await ctx.request('PUT', '/v1/settings', { key: caller.key, body: { currency: 'CAD' } })
    const before = json(await ctx.request('GET', '/v1/settings', { key: caller.key })).data
    const cases: [Record<string, unknown>, string][] = [
      [{ currency: 'usd' }, 'currency'],
      [{ currency: 'ABC' }, 'currency'],
      [{ currency: 'EURO' }, 'currency'],
      [{ variance_threshold: 0 }, 'variance_threshold'],
      [{ variance_threshold: -1 }, 'variance_threshold'],
      [{ variance_threshold: 100.01 }, 'variance_threshold'],
      [{ variance_threshold: 5.123 }, 'variance_threshold'],
      [{ variance_threshold: '5' }, 'variance_threshold'],
      [{ targets: { pour_cost: 0 } }, 'targets.pour_cost'],
      [{ targets: { pour_cost: 101 } }, 'targets.pour_cost'],
      [{ targets: { variance_rate: 0 } }, 'targets.variance_rate'],
      [{ targets: { gross_margin: 100.5 } }, 'targets.gross_margin'],
      [{ targets: { gross_margin: 70.001 } }, 'targets.gross_margin'],
      [{ targets: { inventory_turnover: 0 } }, 'targets.inventory_turnover'],
      [{ targets: { inventory_turnover: 366 } }, 'targets.inventory_turnover'],
      [{ targets: { inventory_turnover: 4.555 } }, 'targets.inventory_turnover'],
      [{ targets: { margin: 50 } }, 'targets.margin'],
      [{ timezone: 'UTC' }, 'timezone'],
      // A valid field beside an invalid one does not land either.
      [{ currency: 'JPY', targets: { pour_cost: 0 } }, 'targets.pour_cost'],
    ]
    for (const [body, parameter] of cases) {
      const response = await ctx.request('PUT', '/v1/settings', { key: caller.key, body })
      assert.equal(response.statusCode, 400, JSON.stringify(body))
      const error = json(response).error
      assert.equal(error.code, 'invalid_parameter', JSON.stringify(body))
      assert.equal(error.details.parameter, parameter, JSON.stringify(body))
    }
    assert.deepEqual(json(await ctx.request('GET', '/v1/settings', { key: caller.key })).data, before)
  })

  test('PUT needs inventory:write (403) and a key (401); nothing changes', async () => {
    const caller = await ctx.newCaller()
    const reader = await ctx.keyFor(caller, ['inventory:read', 'analytics:read'])
    const forbidden = await ctx.request('PUT', '/v1/settings', { key: reader, body: { currency: 'EUR' } })
    assert.equal(forbidden.statusCode, 403)
    assert.equal(json(forbidden).error.code, 'insufficient_permissions')
    const anonymous = await ctx.request('GET', '/v1/settings', { key: null })
    assert.equal(anonymous.statusCode, 401)
    assert.equal(json(await ctx.request('GET', '/v1/settings', { key: caller.key })).data.currency, 'USD')
  })
})
