import assert from 'node:assert/strict'
import { performance } from 'node:perf_hooks'
import { after, before, describe, test } from 'node:test'
import { OUTBOX_CHANNEL } from '../../src/platform/outbox.js'
import { createTestContext, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { startReceiver } from './receiver.js'
import { createWebhook, eventually, startTestDispatcher, withReceiverAndDispatcher } from './support.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext({ env: { BARSTOCK_WEBHOOK_ALLOW_PRIVATE: '1' } })
})
after(() => ctx.close())

describe('dispatcher', () => {
  test('two dispatchers on one database deliver every event exactly once between them', async (t) => {
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 10 }))
    const first = await startTestDispatcher(ctx, { settings: { concurrency: 4 } })
    const second = await startTestDispatcher(ctx, { settings: { concurrency: 4 } })
    t.after(async () => {
      await first.stop()
      await second.stop()
      await receiver.close()
    })
    const caller = await ctx.newCaller()
    await createWebhook(ctx, caller, { url: receiver.url, events: ['inventory.updated'] })
    const items = []
    for (let index = 0; index < 40; index++) items.push(await createItem(ctx, caller, { quantity: 1, reorder_point: 0 }))
    await receiver.waitFor(40)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const ids = receiver.requests.map((request) => request.headers['x-webhook-id'])
    assert.equal(ids.length, 40)
    assert.equal(new Set(ids).size, 40)
    assert.deepEqual(new Set(receiver.requests.map((request) => JSON.parse(request.body).data.item_id)), new Set(items.map((item) => item.id)))
  })

  test('a committed event wakes the dispatchers when a webhook subscribes to it, and only then', async (t) => {
    const wakeUps: string[] = []
    const unlisten = await ctx.database.listen(OUTBOX_CHANNEL, (payload) => wakeUps.push(payload))
    // Polling once an hour: a delivery made at once was woken by the event's commit.
    const { receiver } = await withReceiverAndDispatcher(t, ctx, undefined, { settings: { pollIntervalMs: 3_600_000 } })
    t.after(unlisten)
    const unsubscribed = await ctx.newCaller()
    const item = await createItem(ctx, unsubscribed, { quantity: 5, reorder_point: 0 })
    const put = await ctx.request('PUT', `/v1/inventory/items/${item.id}`, { key: unsubscribed.key, body: { quantity: 4 } })
    assert.equal(put.statusCode, 200)
    const subscribed = await ctx.newCaller()
    await createWebhook(ctx, subscribed, { url: receiver.url, events: ['inventory.updated'] })
    const delivered = await createItem(ctx, subscribed, { quantity: 1, reorder_point: 0 })
    const [request] = await receiver.waitFor(1, 5000)
    assert.equal(JSON.parse(request!.body).data.item_id, delivered.id)
    // Notifications arrive in commit order: the unsubscribed account's two events came before this one.
    await eventually(async () => wakeUps.length > 0, 5000, 'the wake-up')
    assert.equal(wakeUps.length, 1)
  })

  test('a slow receiver does not slow API requests', async (t) => {
    const { receiver } = await withReceiverAndDispatcher(t, ctx, () => ({ status: 200, delayMs: 3000 }))
    const caller = await ctx.newCaller()
    await createWebhook(ctx, caller, { url: receiver.url, events: ['*'] })
    const item = await createItem(ctx, caller, { quantity: 100, reorder_point: 0 })
    await receiver.waitFor(1)

    const latencies: number[] = []
    for (let change = 1; change <= 20; change++) {
      const started = performance.now()
      const response = await ctx.request('PUT', `/v1/inventory/items/${item.id}`, { key: caller.key, body: { quantity: 100 - change } })
      latencies.push(performance.now() - started)
      assert.equal(response.statusCode, 200)
    }
    const started = performance.now()
    await ctx.request('GET', '/v1/inventory/items', { key: caller.key })
    latencies.push(performance.now() - started)
    // Every event of those requests is in flight to the receiver, which holds each for 3 s.
    await receiver.waitFor(21, 2000)
    assert.ok(Math.max(...latencies) < 1000, `API latencies while deliveries hang: ${latencies.map(Math.round).join(', ')} ms`)
  })

  test('a receiver that refuses connections does not slow API requests either', async (t) => {
    const dispatcher = await startTestDispatcher(ctx)
    t.after(() => dispatcher.stop())
    const caller = await ctx.newCaller()
    // Port 9 (discard) has no listener here: every attempt fails at once and is retried.
    const webhook = await createWebhook(ctx, caller, { url: 'http://127.0.0.1:9/hooks', events: ['*'] })
    const item = await createItem(ctx, caller, { quantity: 100, reorder_point: 0 })
    const latencies: number[] = []
    for (let change = 1; change <= 20; change++) {
      const started = performance.now()
      await ctx.request('PUT', `/v1/inventory/items/${item.id}`, { key: caller.key, body: { quantity: 100 - change } })
      latencies.push(performance.now() - started)
    }
    assert.ok(Math.max(...latencies) < 1000, `API latencies: ${latencies.map(Math.round).join(', ')} ms`)
    await eventually(async () => {
      const response = await ctx.request('GET', `/v1/webhooks/${webhook.id}`, { key: caller.key })
      return JSON.parse(response.body).data.delivery_stats.total_failed >= 21
    })
  })
})
