import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { type Caller, createTestContext, json, type TestContext } from '../helpers/context.js'
import { createWebhook } from './support.js'

const RECEIVER = 'http://127.0.0.1:9/hooks'

let ctx: TestContext
/** A context without BARSTOCK_WEBHOOK_ALLOW_PRIVATE: the default, strict SSRF rule. */
let strict: TestContext
before(async () => {
  ctx = await createTestContext({ env: { BARSTOCK_WEBHOOK_ALLOW_PRIVATE: '1' } })
  strict = await createTestContext()
})
after(async () => {
  await ctx.close()
  await strict.close()
})

async function webhookCount(context: TestContext, caller: Caller): Promise<number> {
  return json(await context.request('GET', '/v1/webhooks', { key: caller.key })).pagination.total
}

function assertInvalid(response: LightMyRequestResponse, parameter: string) {
  assert.equal(response.statusCode, 400, response.body)
  const { error } = json(response)
  assert.equal(error.code, 'invalid_parameter')
  assert.equal(error.details.parameter, parameter)
}

describe('POST /v1/webhooks', () => {
  test('creates an active webhook and returns a generated secret once', async () => {
    const caller = await ctx.newCaller()
    const response = await ctx.request('POST', '/v1/webhooks', {
      key: caller.key,
      body: { url: RECEIVER, events: ['inventory.low_stock', 'order.shipped'] },
    })
    assert.equal(response.statusCode, 201)
    const created = json(response).data
    assert.deepEqual(Object.keys(created).sort(), ['created_at', 'events', 'id', 'secret', 'status', 'url'])
    assert.match(created.id, /^wh_/)
    assert.equal(created.url, RECEIVER)
    assert.deepEqual(created.events, ['inventory.low_stock', 'order.shipped'])
    assert.equal(created.status, 'active')
    assert.match(created.secret, /^whsec_[A-Za-z0-9_-]{32}$/)
    assert.match(created.created_at, /\.\d{3}Z$/)

    const fetched = json(await ctx.request('GET', `/v1/webhooks/${created.id}`, { key: caller.key })).data
    assert.equal(fetched.secret, undefined)
    assert.deepEqual(fetched, {
      id: created.id,
      url: RECEIVER,
      events: ['inventory.low_stock', 'order.shipped'],
      status: 'active',
      delivery_stats: { total_delivered: 0, total_failed: 0, last_delivery: null },
      created_at: created.created_at,
    })
    const listed = json(await ctx.request('GET', '/v1/webhooks', { key: caller.key }))
    assert.deepEqual(listed.data, [{ id: created.id, url: RECEIVER, events: created.events, status: 'active', created_at: created.created_at }])
    assert.equal(listed.pagination.total, 1)
  })

  test('keeps a secret the caller supplies, and ["*"] for every kind', async () => {
    const caller = await ctx.newCaller()
    const created = await createWebhook(ctx, caller, { url: RECEIVER, events: ['*'], secret: 'my-own-secret-0123456789' })
    assert.equal(created.secret, 'my-own-secret-0123456789')
    assert.deepEqual(created.events, ['*'])
  })

  test('an idempotent replay returns the same webhook and creates no second one', async () => {
    const caller = await ctx.newCaller()
    const send = () =>
      ctx.request('POST', '/v1/webhooks', {
        key: caller.key,
        body: { url: RECEIVER, events: ['*'] },
        headers: { 'x-idempotency-key': 'create-hook-1' },
      })
    const first = await send()
    const again = await send()
    assert.equal(again.headers['idempotent-replayed'], 'true')
    assert.equal(json(again).data.id, json(first).data.id)
    assert.equal(await webhookCount(ctx, caller), 1)
  })

  const invalidBodies: [string, Record<string, unknown>, string][] = [
    ['events missing', { url: RECEIVER }, 'events'],
    ['events empty', { url: RECEIVER, events: [] }, 'events'],
    ['an unknown event kind', { url: RECEIVER, events: ['inventory.updated', 'inventory.deleted'] }, 'events[1]'],
    ['"*" with other kinds', { url: RECEIVER, events: ['*', 'order.created'] }, 'events'],
    ['a repeated kind', { url: RECEIVER, events: ['order.created', 'order.created'] }, 'events'],
    ['url missing', { events: ['*'] }, 'url'],
    ['a url that is not a URL', { url: 'not a url', events: ['*'] }, 'url'],
    ['an ftp url', { url: 'ftp://127.0.0.1/hooks', events: ['*'] }, 'url'],
    ['a url with credentials', { url: 'http://user:pass@127.0.0.1/hooks', events: ['*'] }, 'url'],
    ['a short secret', { url: RECEIVER, events: ['*'], secret: 'short' }, 'secret'],
    ['a secret with spaces', { url: RECEIVER, events: ['*'], secret: 'has spaces in the secret' }, 'secret'],
    ['an unknown field', { url: RECEIVER, events: ['*'], active: true }, 'active'],
  ]
  for (const [what, body, parameter] of invalidBodies) {
    test(`rejects ${what} with invalid_parameter and creates nothing`, async () => {
      const caller = await ctx.newCaller()
      assertInvalid(await ctx.request('POST', '/v1/webhooks', { key: caller.key, body }), parameter)
      assert.equal(await webhookCount(ctx, caller), 0)
    })
  }
})

describe('SSRF rule at create', () => {
  const refused = [
    'http://127.0.0.1/hooks',
    'http://127.8.9.10:8080/hooks',
    'http://localhost:3000/hooks',
    'http://10.1.2.3/hooks',
    'http://172.16.0.1/hooks',
    'http://192.168.1.10/hooks',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.0.1/hooks',
    'http://0.0.0.0/hooks',
    'http://224.0.0.1/hooks',
    'http://2130706433/hooks',
    'http://0x7f.1/hooks',
    'http://[::1]/hooks',
    'http://[::]/hooks',
    'http://[::ffff:127.0.0.1]/hooks',
    'http://[::ffff:a9fe:a9fe]/hooks',
    'http://[fe80::1]/hooks',
    'http://[fd12:3456::1]/hooks',
    'http://[ff02::1]/hooks',
    'http://[64:ff9b::a00:1]/hooks',
    'https://[2002:c0a8:0101::1]/hooks',
  ]
  for (const url of refused) {
    test(`refuses ${url} with invalid_parameter and creates nothing`, async () => {
      const caller = await strict.newCaller()
      const response = await strict.request('POST', '/v1/webhooks', { key: caller.key, body: { url, events: ['*'] } })
      assertInvalid(response, 'url')
      assert.equal(json(response).error.details.value, url)
      assert.equal(await webhookCount(strict, caller), 0)
    })
  }

  test('accepts a public address', async () => {
    const caller = await strict.newCaller()
    for (const url of ['https://93.184.216.34/hooks', 'http://[2606:4700:4700::1111]:8443/hooks']) {
      const response = await strict.request('POST', '/v1/webhooks', { key: caller.key, body: { url, events: ['*'] } })
      assert.equal(response.statusCode, 201, response.body)
    }
  })

  test('accepts loopback when BARSTOCK_WEBHOOK_ALLOW_PRIVATE=1', async () => {
    const caller = await ctx.newCaller()
    for (const url of ['http://127.0.0.1:4000/hooks', 'http://localhost:4000/hooks', 'http://[::1]:4000/hooks']) {
      const response = await ctx.request('POST', '/v1/webhooks', { key: caller.key, body: { url, events: ['*'] } })
      assert.equal(response.statusCode, 201, response.body)
    }
  })
})

describe('PUT /v1/webhooks/:id', () => {
  test('changes events and status and answers {id, events, status, updated_at}', async () => {
    const caller = await ctx.newCaller()
    const webhook = await createWebhook(ctx, caller, { url: RECEIVER, events: ['*'] })
    const response = await ctx.request('PUT', `/v1/webhooks/${webhook.id}`, {
      key: caller.key,
      body: { events: ['order.created'], status: 'disabled' },
    })
    assert.equal(response.statusCode, 200)
    const updated = json(response).data
    assert.deepEqual(Object.keys(updated).sort(), ['events', 'id', 'status', 'updated_at'])
    assert.deepEqual({ ...updated, updated_at: undefined }, { id: webhook.id, events: ['order.created'], status: 'disabled', updated_at: undefined })
    assert.ok(Date.parse(updated.updated_at) >= Date.parse(webhook.created_at))
    const again = json(await ctx.request('PUT', `/v1/webhooks/${webhook.id}`, { key: caller.key, body: { status: 'active' } })).data
    assert.equal(again.status, 'active')
    assert.deepEqual(again.events, ['order.created'])
  })

  const invalidUpdates: [string, Record<string, unknown>, string][] = [
    ['an empty body', {}, 'body'],
    ['an unknown status', { status: 'paused' }, 'status'],
    ['an empty events list', { events: [] }, 'events'],
    ['"*" with other kinds', { events: ['*', 'order.created'] }, 'events'],
    ['a url (not changeable)', { url: 'http://127.0.0.1:1/x' }, 'url'],
  ]
  for (const [what, body, parameter] of invalidUpdates) {
    test(`rejects ${what} with invalid_parameter and changes nothing`, async () => {
      const caller = await ctx.newCaller()
      const webhook = await createWebhook(ctx, caller, { url: RECEIVER, events: ['inventory.updated'] })
      assertInvalid(await ctx.request('PUT', `/v1/webhooks/${webhook.id}`, { key: caller.key, body }), parameter)
      const fetched = json(await ctx.request('GET', `/v1/webhooks/${webhook.id}`, { key: caller.key })).data
      assert.deepEqual([fetched.url, fetched.events, fetched.status], [RECEIVER, ['inventory.updated'], 'active'])
    })
  }
})

describe('DELETE /v1/webhooks/:id', () => {
  test('deletes the webhook: {id, deleted: true}, then webhook_not_found', async () => {
    const caller = await ctx.newCaller()
    const webhook = await createWebhook(ctx, caller, { url: RECEIVER, events: ['*'] })
    const response = await ctx.request('DELETE', `/v1/webhooks/${webhook.id}`, { key: caller.key })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(json(response).data, { id: webhook.id, deleted: true })
    const gone = await ctx.request('GET', `/v1/webhooks/${webhook.id}`, { key: caller.key })
    assert.equal(gone.statusCode, 404)
    assert.equal(json(gone).error.code, 'webhook_not_found')
    assert.equal((await ctx.request('DELETE', `/v1/webhooks/${webhook.id}`, { key: caller.key })).statusCode, 404)
    assert.equal(await webhookCount(ctx, caller), 0)
  })
})

describe('not found, tenancy and permissions', () => {
  test('another account’s webhook is webhook_not_found on every path and stays unchanged', async () => {
    const owner = await ctx.newCaller()
    const stranger = await ctx.newCaller()
    const webhook = await createWebhook(ctx, owner, { url: RECEIVER, events: ['*'] })
    const attempts: [string, string, unknown?][] = [
      ['GET', `/v1/webhooks/${webhook.id}`],
      ['PUT', `/v1/webhooks/${webhook.id}`, { status: 'disabled' }],
      ['DELETE', `/v1/webhooks/${webhook.id}`],
      ['GET', `/v1/webhooks/${webhook.id}/deliveries`],
      ['POST', `/v1/webhooks/${webhook.id}/test`],
      ['POST', `/v1/webhooks/${webhook.id}/deliveries/whd_missing/retry`],
    ]
    for (const [method, url, body] of attempts) {
      const response = await ctx.request(method, url, { key: stranger.key, body })
      assert.equal(response.statusCode, 404, `${method} ${url}`)
      assert.equal(json(response).error.code, 'webhook_not_found')
    }
    const sandboxKey = await ctx.keyFor(owner, ['webhooks:manage'], 'sandbox')
    assert.equal((await ctx.request('GET', `/v1/webhooks/${webhook.id}`, { key: sandboxKey })).statusCode, 404)
    const fetched = json(await ctx.request('GET', `/v1/webhooks/${webhook.id}`, { key: owner.key })).data
    assert.equal(fetched.status, 'active')
    assert.equal(json(await ctx.request('GET', `/v1/webhooks/${webhook.id}/deliveries`, { key: owner.key })).pagination.total, 0)
  })

  test('an unknown delivery is delivery_not_found and nothing is queued', async () => {
    const caller = await ctx.newCaller()
    const webhook = await createWebhook(ctx, caller, { url: RECEIVER, events: ['*'] })
    const other = await createWebhook(ctx, caller, { url: RECEIVER, events: ['*'] })
    const ping = json(await ctx.request('POST', `/v1/webhooks/${other.id}/test`, { key: caller.key })).data
    for (const deliveryId of ['whd_missing', ping.id]) {
      const response = await ctx.request('POST', `/v1/webhooks/${webhook.id}/deliveries/${deliveryId}/retry`, { key: caller.key })
      assert.equal(response.statusCode, 404)
      assert.equal(json(response).error.code, 'delivery_not_found')
    }
    assert.equal(json(await ctx.request('GET', `/v1/webhooks/${webhook.id}/deliveries`, { key: caller.key })).pagination.total, 0)
  })

  test('every path needs webhooks:manage (403 insufficient_permissions)', async () => {
    const caller = await ctx.newCaller({ permissions: ['inventory:read', 'inventory:write'] })
    for (const [method, url] of [
      ['GET', '/v1/webhooks'],
      ['POST', '/v1/webhooks'],
      ['GET', '/v1/webhooks/wh_x'],
      ['PUT', '/v1/webhooks/wh_x'],
      ['DELETE', '/v1/webhooks/wh_x'],
      ['GET', '/v1/webhooks/wh_x/deliveries'],
      ['POST', '/v1/webhooks/wh_x/deliveries/whd_x/retry'],
      ['POST', '/v1/webhooks/wh_x/test'],
    ] as const) {
      const response = await ctx.request(method, url, { key: caller.key, body: method === 'POST' || method === 'PUT' ? { url: RECEIVER, events: ['*'] } : undefined })
      assert.equal(response.statusCode, 403, `${method} ${url}`)
      assert.equal(json(response).error.details.required, 'webhooks:manage')
    }
    assert.equal(await webhookCount(ctx, await ctx.newCaller()), 0)
  })

  test('lists page by page', async () => {
    const caller = await ctx.newCaller()
    const ids = []
    for (let index = 0; index < 3; index++) ids.push((await createWebhook(ctx, caller, { url: `${RECEIVER}/${index}`, events: ['*'] })).id)
    const first = json(await ctx.request('GET', '/v1/webhooks?per_page=2', { key: caller.key }))
    const second = json(await ctx.request('GET', '/v1/webhooks?per_page=2&page=2', { key: caller.key }))
    assert.deepEqual(
      [...first.data, ...second.data].map((webhook: { id: string }) => webhook.id),
      ids,
    )
    assert.equal(first.pagination.total_pages, 2)
    assert.equal(first.pagination.next_page_url, '/v1/webhooks?per_page=2&page=2')
    assertInvalid(await ctx.request('GET', '/v1/webhooks?per_page=101', { key: caller.key }), 'per_page')
  })
})
