import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import Fastify from 'fastify'
import Stripe from 'stripe'
import { createTestContext, json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createWebhook, deliveriesOf, eventually, withReceiverAndDispatcher } from './support.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext({ env: { BARSTOCK_WEBHOOK_ALLOW_PRIVATE: '1' } })
})
after(() => ctx.close())

async function webhookDetail(caller: { key: string }, id: string) {
  return json(await ctx.request('GET', `/v1/webhooks/${id}`, { key: caller.key })).data
}

/** Creates an item with no reorder point: exactly one inventory.updated event. */
async function emitOneEvent(caller: Parameters<typeof createItem>[1]) {
  return createItem(ctx, caller, { quantity: 3, reorder_point: 0 })
}

describe('retries', () => {
  test('retries a failing receiver with growing delays until it acknowledges, and keeps true stats', async (t) => {
    let calls = 0
    const { receiver } = await withReceiverAndDispatcher(t, ctx, () => ({ status: ++calls <= 4 ? 503 : 204 }), {
      settings: { retry: { firstDelayMs: 100, maxDelayMs: 2000, giveUpAfterMs: 60_000 } },
    })
    const caller = await ctx.newCaller()
    const webhook = await createWebhook(ctx, caller, { url: receiver.url, events: ['inventory.updated'] })
    await emitOneEvent(caller)

    const requests = await receiver.waitFor(5)
    assert.equal(new Set(requests.map((request) => request.headers['x-webhook-id'])).size, 1, 'the same event each time')
    assert.equal(new Set(requests.map((request) => request.body)).size, 1, 'the same body each time')
    const gaps = requests.slice(1).map((request, index) => request.receivedAt - requests[index]!.receivedAt)
    assert.ok(gaps[3]! > gaps[0]! * 1.5, `delays grow: ${gaps.join(', ')} ms`)

    const [delivery] = await eventually(
      async () => {
        const list = await deliveriesOf(ctx, caller, webhook.id)
        return list.data[0]?.status === 'delivered' && list.data
      },
      5000,
      'the delivery to be recorded as delivered',
    )
    assert.equal(delivery.event, 'inventory.updated')
    assert.equal(delivery.event_id, requests[0]!.headers['x-webhook-id'])
    assert.equal(delivery.next_attempt_at, null)
    assert.ok(delivery.completed_at)
    assert.deepEqual(
      delivery.attempts.map((attempt: any) => [attempt.attempt, attempt.status_code, attempt.error]),
      [
        [1, 503, 'receiver answered HTTP 503'],
        [2, 503, 'receiver answered HTTP 503'],
        [3, 503, 'receiver answered HTTP 503'],
        [4, 503, 'receiver answered HTTP 503'],
        [5, 204, null],
      ],
    )
    for (const attempt of delivery.attempts) assert.ok(Number.isInteger(attempt.duration_ms) && attempt.duration_ms >= 0)
    const stats = (await webhookDetail(caller, webhook.id)).delivery_stats
    assert.deepEqual({ ...stats, last_delivery: undefined }, { total_delivered: 1, total_failed: 4, last_delivery: undefined })
    assert.equal(stats.last_delivery, delivery.attempts[4].attempted_at)
  })

  test('fails a delivery once its retry window is over, then stops trying', async (t) => {
    const { receiver } = await withReceiverAndDispatcher(t, ctx, () => ({ status: 500 }), { settings: { retry: { firstDelayMs: 100, maxDelayMs: 100, giveUpAfterMs: 500 } } })
    const caller = await ctx.newCaller()
    const webhook = await createWebhook(ctx, caller, { url: receiver.url, events: ['*'] })
    await emitOneEvent(caller)
    const [delivery] = await eventually(
      async () => {
        const list = await deliveriesOf(ctx, caller, webhook.id, '?status=failed')
        return list.data.length === 1 && list.data
      },
      5000,
      'the delivery to fail',
    )
    const tries = delivery.attempts.length
    assert.ok(tries >= 3, `retried (${tries} attempts)`)
    assert.equal(delivery.next_attempt_at, null)
    await new Promise((resolve) => setTimeout(resolve, 400))
    assert.equal(receiver.requests.length, tries, 'no attempt after failing')
    const detail = await webhookDetail(caller, webhook.id)
    assert.equal(detail.delivery_stats.total_failed, tries)
    assert.equal(detail.status, 'active', 'not disabled before the disable period')
  })

  test('logs each failed attempt with its reason and next try, and the last one as failed for good, never the URL', async (t) => {
    const lines: Record<string, unknown>[] = []
    const logger = Fastify({ logger: { level: 'info', stream: { write: (line: string) => void lines.push(JSON.parse(line)) } } }).log
    const settings = { retry: { firstDelayMs: 100, maxDelayMs: 100, giveUpAfterMs: 500 } }
    const { receiver } = await withReceiverAndDispatcher(t, ctx, () => ({ status: 500 }), { settings, logger })
    const caller = await ctx.newCaller()
    const webhook = await createWebhook(ctx, caller, { url: `${receiver.url}/hook?token=receiver-secret`, events: ['inventory.updated'] })
    await emitOneEvent(caller)
    await eventually(async () => lines.some((line) => line.msg === 'webhook delivery failed for good: its retry window is over'), 5000, 'the final failure line')

    const failures = lines.filter((line) => line.webhook_id === webhook.id)
    assert.ok(failures.length >= 3, `one line per failed attempt: ${failures.length}`)
    const { time: _time, pid: _pid, hostname: _hostname, delivery_id: deliveryId, next_attempt_at: nextAttemptAt, ...first } = failures[0]!
    assert.deepEqual(first, {
      level: 30,
      webhook_id: webhook.id,
      event: 'inventory.updated',
      attempt: 1,
      status_code: 500,
      reason: 'receiver answered HTTP 500',
      msg: 'webhook delivery attempt failed; retried later',
    })
    assert.match(String(deliveryId), /^whd_/)
    assert.ok(!Number.isNaN(Date.parse(String(nextAttemptAt))), String(nextAttemptAt))
    const last = failures.at(-1)!
    assert.equal(last.level, 40)
    assert.equal(last.next_attempt_at, null)
    assert.ok(!JSON.stringify(lines).includes('receiver-secret'), 'the URL is not logged')
  })

  test('disables a webhook whose attempts have all failed for the disable period, and sends it nothing more', async (t) => {
    const { receiver } = await withReceiverAndDispatcher(t, ctx, () => ({ status: 500 }), { settings: { disableAfterMs: 400 } })
    const caller = await ctx.newCaller()
    const webhook = await createWebhook(ctx, caller, { url: receiver.url, events: ['*'] })
    await emitOneEvent(caller)
    await eventually(async () => (await webhookDetail(caller, webhook.id)).status === 'disabled', 5000, 'the webhook to be disabled')
    const [delivery] = (await deliveriesOf(ctx, caller, webhook.id)).data
    assert.equal(delivery.status, 'cancelled')
    const sent = receiver.requests.length
    await emitOneEvent(caller)
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(receiver.requests.length, sent)
    assert.equal((await deliveriesOf(ctx, caller, webhook.id)).pagination.total, 1, 'no delivery for events after disabling')
  })

  test('a success resets the failure clock: a webhook that recovers is not disabled', async (t) => {
    let failing = true
    const { receiver } = await withReceiverAndDispatcher(t, ctx, () => ({ status: failing ? 500 : 200 }), { settings: { disableAfterMs: 600 } })
    const caller = await ctx.newCaller()
    const webhook = await createWebhook(ctx, caller, { url: receiver.url, events: ['*'] })
    await emitOneEvent(caller)
    await receiver.waitFor(2)
    failing = false
    await eventually(async () => (await webhookDetail(caller, webhook.id)).delivery_stats.total_delivered === 1)
    failing = true
    await emitOneEvent(caller)
    await receiver.waitFor(receiver.requests.length + 2)
    // Failing again for less than the disable period since the success.
    assert.equal((await webhookDetail(caller, webhook.id)).status, 'active')
  })
})

describe('retry, test and disable through the API', () => {
  test('POST retry sends a failed delivery again and it is delivered', async (t) => {
    let status = 500
    const { receiver } = await withReceiverAndDispatcher(t, ctx, () => ({ status }), { settings: { retry: { firstDelayMs: 50, maxDelayMs: 50, giveUpAfterMs: 200 } } })
    const caller = await ctx.newCaller()
    const webhook = await createWebhook(ctx, caller, { url: receiver.url, events: ['*'] })
    await emitOneEvent(caller)
    const [failed] = await eventually(async () => {
      const list = await deliveriesOf(ctx, caller, webhook.id, '?status=failed')
      return list.data.length === 1 && list.data
    })
    status = 200
    const response = await ctx.request('POST', `/v1/webhooks/${webhook.id}/deliveries/${failed.id}/retry`, { key: caller.key })
    assert.equal(response.statusCode, 200)
    const retried = json(response).data
    assert.equal(retried.id, failed.id)
    assert.equal(retried.status, 'pending')
    assert.ok(retried.next_attempt_at)
    const [delivered] = await eventually(async () => {
      const list = await deliveriesOf(ctx, caller, webhook.id, '?status=delivered')
      return list.data.length === 1 && list.data
    })
    assert.equal(delivered.attempts.length, failed.attempts.length + 1)
    assert.equal(delivered.attempts.at(-1).status_code, 200)
    assert.equal(receiver.requests.at(-1)!.headers['x-webhook-id'], failed.event_id)
  })

  test('POST test sends a signed ping', async (t) => {
    const { receiver } = await withReceiverAndDispatcher(t, ctx)
    const caller = await ctx.newCaller()
    const webhook = await createWebhook(ctx, caller, { url: receiver.url, events: ['order.created'] })
    const response = await ctx.request('POST', `/v1/webhooks/${webhook.id}/test`, { key: caller.key })
    assert.equal(response.statusCode, 201)
    const ping = json(response).data
    assert.equal(ping.event, 'ping')
    assert.equal(ping.status, 'pending')
    assert.match(ping.id, /^whd_/)
    const [request] = await receiver.waitFor(1)
    const body = JSON.parse(request!.body)
    assert.deepEqual({ ...body, timestamp: undefined }, { id: ping.event_id, event: 'ping', timestamp: undefined, data: { webhook_id: webhook.id } })
    assert.equal(request!.headers['x-webhook-event'], 'ping')
    assert.ok(Stripe.webhooks.signature!.verifyHeader(request!.body, String(request!.headers['x-webhook-signature']), webhook.secret, 300))
    await eventually(async () => (await deliveriesOf(ctx, caller, webhook.id, '?status=delivered')).data.length === 1)
  })

  test('a disabled webhook gets nothing; test and retry on it are invalid_parameter and queue nothing', async (t) => {
    const { receiver } = await withReceiverAndDispatcher(t, ctx)
    const caller = await ctx.newCaller()
    const webhook = await createWebhook(ctx, caller, { url: receiver.url, events: ['*'] })
    await ctx.request('POST', `/v1/webhooks/${webhook.id}/test`, { key: caller.key })
    await eventually(async () => (await deliveriesOf(ctx, caller, webhook.id, '?status=delivered')).data.length === 1)
    await ctx.request('PUT', `/v1/webhooks/${webhook.id}`, { key: caller.key, body: { status: 'disabled' } })
    await emitOneEvent(caller)
    const test = await ctx.request('POST', `/v1/webhooks/${webhook.id}/test`, { key: caller.key })
    assert.equal(test.statusCode, 400)
    assert.equal(json(test).error.code, 'invalid_parameter')
    const [delivered] = (await deliveriesOf(ctx, caller, webhook.id)).data
    const retry = await ctx.request('POST', `/v1/webhooks/${webhook.id}/deliveries/${delivered.id}/retry`, { key: caller.key })
    assert.equal(retry.statusCode, 400)
    assert.equal(json(retry).error.code, 'invalid_parameter')
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(receiver.requests.length, 1)
    const list = await deliveriesOf(ctx, caller, webhook.id)
    assert.deepEqual(
      list.data.map((delivery: any) => delivery.status),
      ['delivered'],
    )
  })

  test('disabling cancels waiting deliveries; a deleted webhook gets nothing more', async (t) => {
    const { receiver } = await withReceiverAndDispatcher(t, ctx, () => ({ status: 500 }), {
      settings: { retry: { firstDelayMs: 60_000, maxDelayMs: 60_000, giveUpAfterMs: 600_000 } },
    })
    const caller = await ctx.newCaller()
    const paused = await createWebhook(ctx, caller, { url: receiver.url, events: ['*'] })
    const removed = await createWebhook(ctx, caller, { url: receiver.url, events: ['*'] })
    await emitOneEvent(caller)
    await receiver.waitFor(2)
    await eventually(async () => (await deliveriesOf(ctx, caller, paused.id)).data[0]?.attempts.length === 1)
    await ctx.request('PUT', `/v1/webhooks/${paused.id}`, { key: caller.key, body: { status: 'disabled' } })
    const [cancelled] = (await deliveriesOf(ctx, caller, paused.id)).data
    assert.equal(cancelled.status, 'cancelled')
    assert.equal(cancelled.next_attempt_at, null)
    await ctx.request('DELETE', `/v1/webhooks/${removed.id}`, { key: caller.key })
    await emitOneEvent(caller)
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(receiver.requests.length, 2)
  })
})
