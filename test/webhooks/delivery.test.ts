import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import Stripe from 'stripe'
import { createTestContext, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createWebhook, deliveriesOf, withReceiverAndDispatcher } from './support.js'

/** Stripe's verifier: the same `t=…,v1=…` HMAC-SHA256 scheme, implemented independently of ours. */
function verifyWithStripe(body: string, header: string, secret: string): boolean {
  return Stripe.webhooks.signature!.verifyHeader(body, header, secret, 300)
}

let ctx: TestContext
before(async () => {
  ctx = await createTestContext({ env: { BARSTOCK_WEBHOOK_ALLOW_PRIVATE: '1' } })
})
after(() => ctx.close())

describe('webhook delivery', () => {
  test('POSTs a signed {id, event, timestamp, data} envelope that Stripe’s verifier accepts', async (t) => {
    const { receiver } = await withReceiverAndDispatcher(t, ctx)
    const caller = await ctx.newCaller()
    const webhook = await createWebhook(ctx, caller, { url: receiver.url, events: ['inventory.updated'] })
    const item = await createItem(ctx, caller, { quantity: 10, reorder_point: 0 })
    await ctx.request('PUT', `/v1/inventory/items/${item.id}`, { key: caller.key, body: { quantity: 7 } })

    const requests = await receiver.waitFor(2)
    const update = requests.map((request) => ({ request, body: JSON.parse(request.body) })).find(({ body }) => body.data.new_quantity === 7)
    assert.ok(update, 'the update event arrives')
    const { request, body } = update
    assert.equal(request.method, 'POST')
    assert.equal(request.path, '/hooks')
    assert.equal(request.headers['content-type'], 'application/json')
    assert.deepEqual(Object.keys(body), ['id', 'event', 'timestamp', 'data'])
    assert.match(body.id, /^evt_/)
    assert.equal(body.event, 'inventory.updated')
    assert.match(body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    assert.deepEqual(body.data, {
      item_id: item.id,
      name: item.name,
      previous_quantity: 10,
      new_quantity: 7,
      change: -3,
      location: 'main_bar',
      updated_by: caller.keyId,
    })
    assert.equal(request.headers['x-webhook-id'], body.id)
    assert.equal(request.headers['x-webhook-event'], 'inventory.updated')
    const signature = String(request.headers['x-webhook-signature'])
    assert.match(signature, /^t=\d+,v1=[0-9a-f]{64}$/)
    assert.ok(verifyWithStripe(request.body, signature, webhook.secret))
    assert.throws(() => verifyWithStripe(request.body, signature, 'whsec_not-the-secret'), /signature/i)
    assert.throws(() => verifyWithStripe(request.body.replace('"new_quantity":7', '"new_quantity":8'), signature, webhook.secret))
  })

  test('delivers only subscribed kinds, to webhooks of the same account and environment', async (t) => {
    const { receiver } = await withReceiverAndDispatcher(t, ctx)
    const caller = await ctx.newCaller()
    const other = await ctx.newCaller()
    const sandboxKey = await ctx.keyFor(caller, ['webhooks:manage'], 'sandbox')
    await createWebhook(ctx, caller, { url: `${receiver.url}?to=low`, events: ['inventory.low_stock'] })
    await createWebhook(ctx, caller, { url: `${receiver.url}?to=all`, events: ['*'] })
    await createWebhook(ctx, other, { url: `${receiver.url}?to=other`, events: ['*'] })
    const sandbox = await ctx.request('POST', '/v1/webhooks', { key: sandboxKey, body: { url: `${receiver.url}?to=sandbox`, events: ['*'] } })
    assert.equal(sandbox.statusCode, 201)

    // One update that crosses the reorder point: inventory.updated and inventory.low_stock.
    const item = await createItem(ctx, caller, { quantity: 10, reorder_point: 4 })
    await ctx.request('PUT', `/v1/inventory/items/${item.id}`, { key: caller.key, body: { quantity: 2 } })
    await receiver.waitFor(4)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const seen = receiver.requests.map((request) => `${new URL(request.path, 'http://x').searchParams.get('to')} ${JSON.parse(request.body).event}`)
    assert.deepEqual(seen.sort(), ['all inventory.low_stock', 'all inventory.updated', 'all inventory.updated', 'low inventory.low_stock'])
  })

  test('a webhook created after an event does not receive it', async (t) => {
    const { receiver } = await withReceiverAndDispatcher(t, ctx)
    const caller = await ctx.newCaller()
    const item = await createItem(ctx, caller, { quantity: 5, reorder_point: 0 })
    const webhook = await createWebhook(ctx, caller, { url: receiver.url, events: ['inventory.updated'] })
    await ctx.request('PUT', `/v1/inventory/items/${item.id}`, { key: caller.key, body: { quantity: 6 } })
    const [only] = await receiver.waitFor(1)
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(receiver.requests.length, 1)
    assert.equal(JSON.parse(only!.body).data.new_quantity, 6)
    assert.equal((await deliveriesOf(ctx, caller, webhook.id)).pagination.total, 1)
  })
})
