import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestContext, json, type TestContext } from '../helpers/context.js'
import { scrape } from '../helpers/prometheus.js'
import { createPosTestContext, createSyncedConnection, startWorker, waitForSync } from '../pos/pos-helpers.js'
import { startReceiver } from '../webhooks/receiver.js'
import { createWebhook, deliveriesOf, eventually, startTestDispatcher } from '../webhooks/support.js'

const TOKEN = 'prometheus-scrape-token-7f3a9c'
const REQUESTS = 'barstock_http_requests_total'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext({
    env: { BARSTOCK_METRICS_TOKEN: TOKEN, BARSTOCK_WEBHOOK_ALLOW_PRIVATE: '1', BARSTOCK_RATE_LIMIT_PRODUCTION: '2' },
  })
})
after(() => ctx.close())

describe('GET /metrics access', () => {
  test('answers 404 not_found, like an unknown route, while BARSTOCK_METRICS_TOKEN is unset', async (t) => {
    const off = await createTestContext()
    t.after(() => off.close())
    const response = await off.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
    assert.equal(response.statusCode, 404)
    assert.equal(json(response).error.code, 'not_found')
    assert.doesNotMatch(response.body, /barstock_/)
  })

  test('refuses a missing or wrong bearer token, and an API key, with 401 invalid_metrics_token and no metrics', async () => {
    const apiKey = (await ctx.newCaller({ environment: 'sandbox' })).key
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer prometheus-scrape-token-7f3a9d' },
      { authorization: `Basic ${Buffer.from(`prometheus:${TOKEN}`).toString('base64')}` },
      { 'x-api-key': apiKey },
    ]
    for (const headers of attempts) {
      const response = await ctx.app.inject({ method: 'GET', url: '/metrics', headers })
      assert.equal(response.statusCode, 401, JSON.stringify(headers))
      assert.equal(json(response).error.code, 'invalid_metrics_token')
      assert.equal(response.headers['www-authenticate'], 'Bearer realm="barstock metrics"')
      assert.doesNotMatch(response.body, /barstock_/)
    }
  })

  test('is documented in the OpenAPI document with its bearer scheme', async () => {
    const document = json(await ctx.app.inject({ method: 'GET', url: '/openapi.json' }))
    const operation = document.paths['/metrics'].get
    assert.deepEqual(operation.security, [{ MetricsToken: [] }])
    assert.ok(operation.responses['200'].content['text/plain'])
    assert.match(operation.responses['401'].description, /invalid_metrics_token/)
    assert.deepEqual(document.components.securitySchemes.MetricsToken.scheme, 'bearer')
  })
})

describe('metrics', () => {
  test('counts requests by method, route pattern and status, never by the raw URL', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const missingItem = 'item_01METRICSNOSUCHITEM0000000'
    const before = await scrape(ctx, TOKEN)
    await ctx.request('GET', '/v1/inventory/items', { key: caller.key })
    await ctx.request('GET', '/v1/inventory/items', { key: caller.key })
    await ctx.request('GET', `/v1/inventory/items/${missingItem}`, { key: caller.key })
    await ctx.request('GET', '/v1/no-such-route/metrics-probe', { key: caller.key })
    const after = await scrape(ctx, TOKEN)

    const delta = (labels: Record<string, string>) => after.value(REQUESTS, labels) - before.value(REQUESTS, labels)
    assert.equal(delta({ method: 'GET', route: '/v1/inventory/items', status: '200' }), 2)
    assert.equal(delta({ method: 'GET', route: '/v1/inventory/items/:id', status: '404' }), 1)
    assert.equal(delta({ method: 'GET', route: 'unmatched', status: '404' }), 1)
    assert.equal(after.family('barstock_http_request_duration_seconds')?.type, 'HISTOGRAM')
    const labelValues = after.families.flatMap((family) => family.metrics.flatMap((sample) => Object.values(sample.labels ?? {})))
    assert.ok(!labelValues.some((value) => value.includes(missingItem) || value.includes('metrics-probe')), 'no raw URL in any label')
  })

  test('counts rate-limit rejections by the environment of the key', async () => {
    const caller = await ctx.newCaller({ environment: 'production' })
    const before = await scrape(ctx, TOKEN)
    const statuses: number[] = []
    for (let index = 0; index < 3; index++) statuses.push((await ctx.request('GET', '/v1/inventory/items', { key: caller.key })).statusCode)
    assert.deepEqual(statuses, [200, 200, 429])
    const after = await scrape(ctx, TOKEN)
    const rejections = 'barstock_rate_limit_rejections_total'
    assert.equal(after.value(rejections, { environment: 'production' }) - before.value(rejections, { environment: 'production' }), 1)
    assert.equal(after.value(REQUESTS, { route: '/v1/inventory/items', status: '429' }) - before.value(REQUESTS, { route: '/v1/inventory/items', status: '429' }), 1)
  })

  test('a webhook delivery shows in the backlog and its age until delivered, then in the delivered count', async (t) => {
    const receiver = await startReceiver()
    t.after(() => receiver.close())
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const webhook = await createWebhook(ctx, caller, { url: receiver.url, events: ['*'] })
    const attempts = 'barstock_webhook_delivery_attempts_total'
    const before = await scrape(ctx, TOKEN)
    assert.equal(before.value('barstock_outbox_backlog'), 0)
    assert.equal(before.value('barstock_outbox_oldest_pending_age_seconds'), 0)

    const ping = await ctx.request('POST', `/v1/webhooks/${webhook.id}/test`, { key: caller.key })
    assert.equal(ping.statusCode, 201)
    const createdAt = Date.parse(json(ping).data.created_at)
    const scrapeStarted = Date.now()
    const pending = await scrape(ctx, TOKEN)
    const scrapeEnded = Date.now()
    assert.equal(pending.value('barstock_outbox_backlog'), 1)
    const age = pending.value('barstock_outbox_oldest_pending_age_seconds')
    assert.ok(age >= (scrapeStarted - createdAt) / 1000 && age <= (scrapeEnded - createdAt) / 1000, `age ${age} s of a delivery created at ${createdAt}`)

    const dispatcher = await startTestDispatcher(ctx)
    t.after(() => dispatcher.stop())
    await receiver.waitFor(1)
    const delivered = await eventually(
      async () => {
        const now = await scrape(ctx, TOKEN)
        return now.value(attempts, { outcome: 'delivered' }) === before.value(attempts, { outcome: 'delivered' }) + 1 && now
      },
      10_000,
      'the delivered attempt to be counted',
    )
    assert.equal(delivered.value('barstock_outbox_backlog'), 0)
    assert.equal(delivered.value('barstock_outbox_oldest_pending_age_seconds'), 0)
    assert.equal((await deliveriesOf(ctx, caller, webhook.id)).data[0].status, 'delivered')
  })

  test('a sync run against the Square simulator is counted by vendor and outcome', async (t) => {
    const worker = await startWorker(ctx)
    t.after(() => worker.stop())
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const runs = 'barstock_pos_sync_runs_total'
    const labels = { vendor: 'square', outcome: 'completed' }
    const before = await scrape(ctx, TOKEN)
    // The create asks for the first run.
    const connection = await createSyncedConnection(ctx, caller)
    const run = await waitForSync(ctx, caller, connection.first_sync_id)
    assert.equal(run.status, 'completed')
    // The count follows the run's commit by a moment: wait for it rather than race it.
    const after = await eventually(
      async () => {
        const exposition = await scrape(ctx, TOKEN)
        return exposition.value(runs, labels) > before.value(runs, labels) && exposition
      },
      10_000,
      'the sync run to be counted',
    )
    assert.equal(after.value(runs, labels) - before.value(runs, labels), 1)
    assert.equal(after.family('barstock_pos_sync_run_duration_seconds')?.type, 'HISTOGRAM')
  })

  test('exposes the PostgreSQL pool, and on PGlite its one session and the queue in front of it', async () => {
    const exposition = await scrape(ctx, TOKEN)
    assert.equal(exposition.value('barstock_db_pool_max_connections'), ctx.database.kind === 'pglite' ? 1 : 10)
    assert.ok(exposition.value('barstock_db_pool_connections') >= 1)
    assert.equal(exposition.value('barstock_db_pool_waiting_requests'), 0)
    assert.ok(exposition.family('process_cpu_user_seconds_total'), 'the process metrics of prom-client are there')
  })
})
