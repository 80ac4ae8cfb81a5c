import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { type Caller, json, type TestContext } from '../helpers/context.js'
import { findVendor } from '../../src/pos/vendors/vendor-registry.js'
import { cloverWebhookMessage, cloverWebhookVerification } from '../../src/pos/vendors/clover/clover.simulator.js'
import { createPosTestContext, runFirstSync, startWorker, waitForSync } from './pos-helpers.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

// The address the vendor was given: the test calls through this Host, as a vendor would.
const HOST = 'bar.example.com'
const SQUARE_KEY = 'square-webhook-signature-key-0001'

/** A realtime connection whose create asks for its first run (initial_sync): first_sync_id names it. */
async function connect(caller: Caller, posType: string, extra: Record<string, unknown> = {}) {
  const response = await ctx.request('POST', '/v1/pos/connections', {
    key: caller.key,
    body: {
      pos_type: posType,
      name: `${posType} bar`,
      credentials: findVendor(posType)!.exampleCredentials,
      sync_frequency: 'realtime',
      initial_sync: 'incremental',
      ...extra,
    },
  })
  assert.equal(response.statusCode, 201, response.body)
  return json(response).data as { id: string; first_sync_id: string; push_url: string | null; push_secret?: string }
}

/** A year before the sandbox bar's history: a first run there reads the menu and no sales, so it is quick. */
const beforeTheBar = () => new Date(Date.now() - 365 * DAY_MS)

/** A connection whose first run (asked for at create) is over, so a push may queue the next one. */
async function connectAndSync(caller: Caller, posType: string, extra: Record<string, unknown> = {}) {
  const connection = await connect(caller, posType, extra)
  assert.equal((await runFirstSync(ctx, caller, connection, beforeTheBar)).status, 'completed')
  return connection
}

/** The vendor's call: no API key, the raw bytes it signed. */
function push(connectionId: string, body: string, headers: Record<string, string>) {
  return ctx.request('POST', `/v1/pos/push/${connectionId}`, {
    key: null,
    body,
    headers: { host: HOST, 'content-type': 'application/json', ...headers },
  })
}

function squareSignature(connectionId: string, body: string, key = SQUARE_KEY): string {
  return createHmac('sha256', key).update(`http://${HOST}/v1/pos/push/${connectionId}${body}`).digest('base64')
}

function pushSquare(connectionId: string, type = 'order.updated', key = SQUARE_KEY) {
  const body = JSON.stringify({ merchant_id: 'M1', type, event_id: `evt-${Math.random()}`, data: { type: 'order' } })
  return push(connectionId, body, { 'x-square-hmacsha256-signature': squareSignature(connectionId, body, key) })
}

/** The runs queued on the connection besides the first one, which its create asked for. */
async function pushedRunsOf(connection: { id: string; first_sync_id: string }) {
  return ctx.database.db.selectFrom('pos_sync_runs').selectAll().where('connection_id', '=', connection.id).where('id', '<>', connection.first_sync_id).execute()
}

async function sandboxCaller() {
  return ctx.newCaller({ environment: 'sandbox' })
}

describe('push secret and push_url on connections', () => {
  test('shows push_url for a vendor with pushes, never returns a supplied push_secret, and stores it sealed', async () => {
    const caller = await sandboxCaller()
    const connection = await connect(caller, 'square', { push_secret: SQUARE_KEY })
    assert.equal(connection.push_url, `/v1/pos/push/${connection.id}`)
    assert.equal(connection.push_secret, undefined)
    const read = await ctx.request('GET', `/v1/pos/connections/${connection.id}`, { key: caller.key })
    assert.equal(json(read).data.push_url, connection.push_url)
    assert.ok(!read.body.includes(SQUARE_KEY))
    const row = await ctx.database.db.selectFrom('pos_connections').select('push_secret').where('id', '=', connection.id).executeTakeFirstOrThrow()
    assert.ok(row.push_secret && !row.push_secret.includes(SQUARE_KEY))
  })

  test('generates a push_secret when none is supplied and shows it in the create answer only', async () => {
    const caller = await sandboxCaller()
    const connection = await connect(caller, 'clover')
    assert.ok(connection.push_secret && connection.push_secret.length >= 40)
    const read = await ctx.request('GET', `/v1/pos/connections/${connection.id}`, { key: caller.key })
    assert.equal(json(read).data.push_secret, undefined)
    assert.ok(!read.body.includes(connection.push_secret))
    const list = await ctx.request('GET', '/v1/pos/connections', { key: caller.key })
    assert.ok(!list.body.includes(connection.push_secret))
  })

  test('shows no push_url and no push_secret for a vendor without pushes', async () => {
    const caller = await sandboxCaller()
    const connection = await connect(caller, 'spoton')
    assert.equal(connection.push_url, null)
    assert.equal(connection.push_secret, undefined)
  })

  test('refuses a push_secret for a vendor without pushes with 400 push_not_supported, on create and update, changing nothing', async () => {
    const caller = await sandboxCaller()
    const created = await ctx.request('POST', '/v1/pos/connections', {
      key: caller.key,
      body: { pos_type: 'spoton', name: 'SpotOn', credentials: findVendor('spoton')!.exampleCredentials, push_secret: 'whatever' },
    })
    assert.equal(created.statusCode, 400)
    assert.equal(json(created).error.code, 'push_not_supported')
    assert.equal(json(created).error.details.parameter, 'push_secret')
    assert.equal(json(await ctx.request('GET', '/v1/pos/connections', { key: caller.key })).pagination.total, 0)

    const connection = await connect(caller, 'spoton')
    const updated = await ctx.request('PUT', `/v1/pos/connections/${connection.id}`, { key: caller.key, body: { name: 'Renamed', push_secret: 'whatever' } })
    assert.equal(updated.statusCode, 400)
    assert.equal(json(updated).error.code, 'push_not_supported')
    assert.equal(json(await ctx.request('GET', `/v1/pos/connections/${connection.id}`, { key: caller.key })).data.name, 'spoton bar')
  })
})

describe('POST /v1/pos/push/:connection_id', () => {
  test('a signed Square push queues exactly one incremental run, without an API key', async () => {
    const caller = await sandboxCaller()
    const connection = await connectAndSync(caller, 'square', { push_secret: SQUARE_KEY })
    const response = await pushSquare(connection.id)
    assert.equal(response.statusCode, 202, response.body)
    assert.ok(response.headers['x-ratelimit-limit'], 'public calls are rate limited by client address')
    const receipt = json(response).data
    assert.equal(receipt.kind, 'orders_changed')
    assert.equal(receipt.queued, true)
    const run = json(await ctx.request('GET', `/v1/pos/syncs/${receipt.sync_id}`, { key: caller.key })).data
    assert.equal(run.connection_id, connection.id)
    assert.equal(run.status, 'processing')
    assert.equal(run.sync_type, 'incremental')
    const runs = await pushedRunsOf(connection)
    assert.equal(runs.length, 1)
    assert.equal(runs[0]!.triggered_by, 'vendor_push')
  })

  test('a push while a run is queued (the first, right after create) answers 202 with that run and queues no second run', async () => {
    const caller = await sandboxCaller()
    const connection = await connect(caller, 'square', { push_secret: SQUARE_KEY })
    const again = await pushSquare(connection.id, 'catalog.version.updated')
    assert.equal(again.statusCode, 202)
    assert.deepEqual(json(again).data, { kind: 'catalog_changed', queued: false, sync_id: connection.first_sync_id })
    assert.deepEqual(await pushedRunsOf(connection), [])
  })

  test('a push about something else answers 202 and queues nothing', async () => {
    const caller = await sandboxCaller()
    const connection = await connect(caller, 'square', { push_secret: SQUARE_KEY })
    const response = await pushSquare(connection.id, 'payment.created')
    assert.equal(response.statusCode, 202)
    assert.deepEqual(json(response).data, { kind: 'other', queued: false, sync_id: null })
    assert.deepEqual(await pushedRunsOf(connection), [])
  })

  test("Clover's unsigned set-up post records its verification code on the connection for the operator, and queues nothing", async () => {
    const caller = await sandboxCaller()
    const connection = await connect(caller, 'clover', { sync_frequency: 'daily' })
    const before = json(await ctx.request('GET', `/v1/pos/connections/${connection.id}`, { key: caller.key })).data
    assert.equal(before.push_verification_code, null)
    const response = await push(connection.id, JSON.stringify({ verificationCode: '0b4e6d4c-3b0a-4f0b-9d8e-2b1f1a7c5e90' }), {})
    assert.equal(response.statusCode, 202, response.body)
    assert.deepEqual(json(response).data, { kind: 'other', queued: false, sync_id: null })
    const after = json(await ctx.request('GET', `/v1/pos/connections/${connection.id}`, { key: caller.key })).data
    assert.equal(after.push_verification_code, '0b4e6d4c-3b0a-4f0b-9d8e-2b1f1a7c5e90')
    assert.deepEqual(await pushedRunsOf(connection), [])
  })

  test('a Clover push carrying the generated X-Clover-Auth code queues a run', async () => {
    const caller = await sandboxCaller()
    const connection = await connectAndSync(caller, 'clover')
    const body = JSON.stringify({ appId: 'APP1', merchants: { Q8J5H3K2M1N0P: [{ objectId: 'O:ABC123', type: 'UPDATE', ts: Date.now() }] } })
    const response = await push(connection.id, body, { 'x-clover-auth': connection.push_secret! })
    assert.equal(response.statusCode, 202, response.body)
    assert.equal(json(response).data.kind, 'orders_changed')
    assert.equal(json(response).data.queued, true)
    assert.equal((await pushedRunsOf(connection)).length, 1)
  })

  test('a Revel push signed HMAC-SHA1 with a push_secret set by PUT queues a run', async () => {
    const caller = await sandboxCaller()
    const connection = await connectAndSync(caller, 'revel')
    const secret = 'revel-webhook-secret-0001'
    const updated = await ctx.request('PUT', `/v1/pos/connections/${connection.id}`, { key: caller.key, body: { push_secret: secret } })
    assert.equal(updated.statusCode, 200)
    assert.ok(!updated.body.includes(secret))
    const body = JSON.stringify({ event: 'order.finalized', data: { id: 42 } })
    const stale = createHmac('sha1', connection.push_secret!).update(body).digest('hex')
    assert.equal((await push(connection.id, body, { 'x-revel-signature': stale })).statusCode, 401, 'the replaced secret no longer verifies')
    const response = await push(connection.id, body, { 'x-revel-signature': createHmac('sha1', secret).update(body).digest('hex') })
    assert.equal(response.statusCode, 202, response.body)
    assert.equal(json(response).data.queued, true)
    assert.equal((await pushedRunsOf(connection)).length, 1)
  })

  test('a Toast push signed HMAC-SHA256 over the body and its timestamp queues a run', async () => {
    const caller = await sandboxCaller()
    const connection = await connectAndSync(caller, 'toast')
    const timestamp = '2026-11-20T21:04:11.000+0000'
    const body = JSON.stringify({ timestamp, eventType: 'menus_updated', guid: 'evt-1' })
    const bodyOnly = createHmac('sha256', connection.push_secret!).update(body).digest('base64')
    assert.equal((await push(connection.id, body, { 'toast-signature': bodyOnly })).statusCode, 401, 'the body alone is not what Toast signs')
    const signature = createHmac('sha256', connection.push_secret!)
      .update(body + timestamp)
      .digest('base64')
    const response = await push(connection.id, body, { 'toast-signature': signature })
    assert.equal(response.statusCode, 202, response.body)
    assert.equal(json(response).data.kind, 'catalog_changed')
    assert.equal(json(response).data.queued, true)
    assert.equal((await pushedRunsOf(connection)).length, 1)
  })

  test('refuses a wrong or missing signature with 401 invalid_push_signature and queues nothing', async () => {
    const caller = await sandboxCaller()
    const connection = await connect(caller, 'square', { push_secret: SQUARE_KEY })
    const wrongKey = await pushSquare(connection.id, 'order.updated', 'not-the-key')
    assert.equal(wrongKey.statusCode, 401)
    assert.equal(json(wrongKey).error.code, 'invalid_push_signature')
    const body = JSON.stringify({ type: 'order.updated' })
    const tampered = await push(connection.id, body.replace('order', 'catalog'), { 'x-square-hmacsha256-signature': squareSignature(connection.id, body) })
    assert.equal(json(tampered).error.code, 'invalid_push_signature')
    const otherUrl = await ctx.request('POST', `/v1/pos/push/${connection.id}`, {
      key: null,
      body,
      headers: { host: 'attacker.example.com', 'content-type': 'application/json', 'x-square-hmacsha256-signature': squareSignature(connection.id, body) },
    })
    assert.equal(json(otherUrl).error.code, 'invalid_push_signature')
    const missing = await push(connection.id, body, {})
    assert.equal(missing.statusCode, 401)
    assert.equal(json(missing).error.code, 'invalid_push_signature')
    const clover = await connect(caller, 'clover')
    const forged = await push(clover.id, JSON.stringify({ merchants: { M: [{ objectId: 'O:1' }] } }), { 'x-clover-auth': 'guessed' })
    assert.equal(json(forged).error.code, 'invalid_push_signature')
    assert.equal((await pushedRunsOf(connection)).length + (await pushedRunsOf(clover)).length, 0)
  })

  test('refuses a signed push to a connection that is not realtime, or paused, with 409 push_not_enabled and queues nothing', async () => {
    const caller = await sandboxCaller()
    const hourly = await connect(caller, 'square', { push_secret: SQUARE_KEY, sync_frequency: 'hourly' })
    const refused = await pushSquare(hourly.id)
    assert.equal(refused.statusCode, 409)
    assert.equal(json(refused).error.code, 'push_not_enabled')
    assert.equal(json(refused).error.details.reason, 'not_realtime')

    const paused = await connect(caller, 'square', { push_secret: SQUARE_KEY })
    await ctx.request('PUT', `/v1/pos/connections/${paused.id}`, { key: caller.key, body: { status: 'inactive' } })
    const refusedPaused = await pushSquare(paused.id)
    assert.equal(refusedPaused.statusCode, 409)
    assert.equal(json(refusedPaused).error.details.reason, 'inactive')
    assert.equal((await pushedRunsOf(hourly)).length + (await pushedRunsOf(paused)).length, 0)
  })

  test('refuses a connection of a vendor without pushes with 400 push_not_supported and queues nothing', async () => {
    const caller = await sandboxCaller()
    const connection = await connect(caller, 'spoton')
    const response = await push(connection.id, '{"event":"order.closed"}', {})
    assert.equal(response.statusCode, 400)
    assert.equal(json(response).error.code, 'push_not_supported')
    assert.deepEqual(await pushedRunsOf(connection), [])
  })

  test('answers 404 connection_not_found for an unknown or deleted connection', async () => {
    const unknown = await pushSquare('pos_does_not_exist')
    assert.equal(unknown.statusCode, 404)
    assert.equal(json(unknown).error.code, 'connection_not_found')
    const caller = await sandboxCaller()
    const connection = await connect(caller, 'square', { push_secret: SQUARE_KEY })
    await ctx.request('DELETE', `/v1/pos/connections/${connection.id}`, { key: caller.key })
    const deleted = await pushSquare(connection.id)
    assert.equal(deleted.statusCode, 404)
    assert.equal(json(deleted).error.code, 'connection_not_found')
    assert.deepEqual(await pushedRunsOf(connection), [])
  })

  test('refuses a body over 1 MiB with 413 payload_too_large', async () => {
    const caller = await sandboxCaller()
    const connection = await connect(caller, 'square', { push_secret: SQUARE_KEY })
    const body = JSON.stringify({ type: 'order.updated', padding: 'x'.repeat(1024 * 1024) })
    const response = await push(connection.id, body, { 'x-square-hmacsha256-signature': squareSignature(connection.id, body) })
    assert.equal(response.statusCode, 413)
    assert.equal(json(response).error.code, 'payload_too_large')
    assert.deepEqual(await pushedRunsOf(connection), [])
  })

  test('the queued run completes in the background worker, and the next push queues a new one', async () => {
    const caller = await sandboxCaller()
    const connection = await connect(caller, 'square', { push_secret: SQUARE_KEY })
    const worker = await startWorker(ctx, beforeTheBar)
    try {
      await waitForSync(ctx, caller, connection.first_sync_id)
      const first = json(await pushSquare(connection.id)).data
      assert.equal((await waitForSync(ctx, caller, first.sync_id)).status, 'completed')
      const second = json(await pushSquare(connection.id)).data
      assert.equal(second.queued, true)
      assert.notEqual(second.sync_id, first.sync_id)
      await waitForSync(ctx, caller, second.sync_id)
    } finally {
      await worker.stop()
    }
    assert.equal((await pushedRunsOf(connection)).length, 2)
  })
})

describe("Clover's one webhook URL per app", () => {
  const APP_CODE = '0307e264-b33a-4913-88aa-37b10014a0b8'
  const cloverCredentials = (merchantId: string) => ({ ...findVendor('clover')!.exampleCredentials, merchant_id: merchantId })

  function pushApp(body: unknown, headers: Record<string, string> = { 'x-clover-auth': APP_CODE }) {
    return ctx.request('POST', '/v1/pos/push/apps/clover', { key: null, body: JSON.stringify(body), headers: { host: HOST, 'content-type': 'application/json', ...headers } })
  }
  const orderChanged = (...merchantIds: string[]) =>
    cloverWebhookMessage('BARSTOCKAPP01', Object.fromEntries(merchantIds.map((merchantId) => [merchantId, [{ objectId: 'O:GHIVJT2ABCRSC', ts: Date.now() }]])))

  test("routes a push to the connections of the merchants it names, verified by each one's X-Clover-Auth code", async () => {
    const [first, second] = [await sandboxCaller(), await sandboxCaller()]
    const barA = await connectAndSync(first, 'clover', { credentials: cloverCredentials('MERCHANTBARA1'), push_secret: APP_CODE })
    const barADaily = await connect(first, 'clover', { credentials: cloverCredentials('MERCHANTBARA1'), push_secret: APP_CODE, sync_frequency: 'daily' })
    const barB = await connectAndSync(second, 'clover', { credentials: cloverCredentials('MERCHANTBARB1'), push_secret: APP_CODE })
    const otherApp = await connectAndSync(second, 'clover', { credentials: cloverCredentials('MERCHANTBARA1'), push_secret: 'another-apps-auth-code' })

    const response = await pushApp(orderChanged('MERCHANTBARA1', 'MERCHANTNOTHERE'))
    assert.equal(response.statusCode, 202, response.body)
    const receipt = json(response).data
    const queued = await pushedRunsOf(barA)
    assert.equal(queued.length, 1)
    assert.deepEqual(receipt, {
      kind: 'orders_changed',
      verification_code_received: false,
      connections: [
        { connection_id: barA.id, kind: 'orders_changed', queued: true, sync_id: queued[0]!.id, skipped: null },
        { connection_id: barADaily.id, kind: 'orders_changed', queued: false, sync_id: null, skipped: 'not_realtime' },
      ].sort((a, b) => a.connection_id.localeCompare(b.connection_id)),
    })
    assert.deepEqual(await pushedRunsOf(barADaily), [])
    assert.deepEqual(await pushedRunsOf(barB), [], 'a merchant the push does not name')
    assert.deepEqual(await pushedRunsOf(otherApp), [], "a connection of the same merchant through another app's code")
    // The connection's own URL still works.
    const own = await push(barB.id, JSON.stringify(orderChanged('MERCHANTBARB1')), { 'x-clover-auth': APP_CODE })
    assert.equal(own.statusCode, 202, own.body)
    assert.equal((await pushedRunsOf(barB)).length, 1)
  })

  test('refuses a code no connection of the named merchants holds with 401, and changes nothing for a merchant not connected', async () => {
    const caller = await sandboxCaller()
    const bar = await connectAndSync(caller, 'clover', { credentials: cloverCredentials('MERCHANTBARC1'), push_secret: APP_CODE })
    const forged = await pushApp(orderChanged('MERCHANTBARC1'), { 'x-clover-auth': 'guessed' })
    assert.equal(forged.statusCode, 401)
    assert.equal(json(forged).error.code, 'invalid_push_signature')
    const unknown = await pushApp(orderChanged('MERCHANTNOBODY'))
    assert.equal(unknown.statusCode, 202)
    assert.deepEqual(json(unknown).data, { kind: 'other', verification_code_received: false, connections: [] })
    const garbage = await ctx.request('POST', '/v1/pos/push/apps/clover', { key: null, body: '{"appId":', headers: { host: HOST, 'content-type': 'application/json' } })
    assert.equal(json(garbage).error.code, 'invalid_push_signature')
    assert.deepEqual(await pushedRunsOf(bar), [])
    const square = await ctx.request('POST', '/v1/pos/push/apps/square', { key: null, body: '{}', headers: { host: HOST, 'content-type': 'application/json' } })
    assert.equal(square.statusCode, 400)
    assert.equal(json(square).error.code, 'push_not_supported')
  })

  test("keeps Clover's unsigned set-up code for the operator to read with GET on the app URL, without naming or touching a connection", async () => {
    const caller = await sandboxCaller()
    const bar = await connect(caller, 'clover', { credentials: cloverCredentials('MERCHANTBARD1'), push_secret: APP_CODE })
    const setUp = () => ctx.request('GET', '/v1/pos/push/apps/clover', { key: caller.key })
    assert.deepEqual(json(await setUp()).data, { pos_type: 'clover', push_url: '/v1/pos/push/apps/clover', verification_code: null, verification_code_received_at: null })
    const postedAt = Date.now()
    const response = await pushApp(cloverWebhookVerification('ce7643c1-83ea-4218-abe6-da876c9c7a0a'), {})
    assert.equal(response.statusCode, 202, response.body)
    assert.deepEqual(json(response).data, { kind: 'other', verification_code_received: true, connections: [] })
    const after = json(await ctx.request('GET', `/v1/pos/connections/${bar.id}`, { key: caller.key })).data
    assert.equal(after.push_verification_code, null)

    const shown = await setUp()
    assert.equal(shown.statusCode, 200, shown.body)
    const setup = json(shown).data
    assert.deepEqual(
      { ...setup, verification_code_received_at: undefined },
      {
        pos_type: 'clover',
        push_url: '/v1/pos/push/apps/clover',
        verification_code: 'ce7643c1-83ea-4218-abe6-da876c9c7a0a',
        verification_code_received_at: undefined,
      },
    )
    const receivedAt = Date.parse(setup.verification_code_received_at)
    assert.ok(receivedAt >= postedAt && receivedAt <= Date.now(), setup.verification_code_received_at)
    // The URL is the deployment's: another account's key, in the other environment, reads the same code.
    const other = await ctx.newCaller({ environment: 'production', permissions: ['pos:read'] })
    assert.deepEqual(json(await ctx.request('GET', '/v1/pos/push/apps/clover', { key: other.key })).data, setup)
    // Clover sends a new code when asked again: the last one is shown.
    await pushApp(cloverWebhookVerification('1b2c3d4e-0000-4000-8000-000000000002'), {})
    assert.equal(json(await setUp()).data.verification_code, '1b2c3d4e-0000-4000-8000-000000000002')

    // Refused: no key, a key without pos:read, a vendor without an app URL; none of them changes the code.
    assert.equal((await ctx.request('GET', '/v1/pos/push/apps/clover', { key: null })).statusCode, 401)
    const noPos = await ctx.keyFor(caller, ['inventory:read'])
    const forbidden = await ctx.request('GET', '/v1/pos/push/apps/clover', { key: noPos })
    assert.equal(forbidden.statusCode, 403)
    assert.equal(json(forbidden).error.code, 'insufficient_permissions')
    const square = await ctx.request('GET', '/v1/pos/push/apps/square', { key: caller.key })
    assert.equal(square.statusCode, 400)
    assert.equal(json(square).error.code, 'push_not_supported')
    assert.equal(json(await setUp()).data.verification_code, '1b2c3d4e-0000-4000-8000-000000000002')
  })

  test('finds a connection made before lookup keys existed, once its credentials were opened for it', async () => {
    const caller = await sandboxCaller()
    const bar = await connectAndSync(caller, 'clover', { credentials: cloverCredentials('MERCHANTBARE1'), push_secret: APP_CODE })
    const stored = await ctx.database.db.selectFrom('pos_connections').select('push_account_key').where('id', '=', bar.id).executeTakeFirstOrThrow()
    assert.match(stored.push_account_key ?? '', /^[0-9a-f]{64}$/, 'a keyed hash, not the merchant id')
    // As a row from before the migration.
    await ctx.database.db.updateTable('pos_connections').set({ push_account_key: null }).where('id', '=', bar.id).execute()
    const response = await pushApp(orderChanged('MERCHANTBARE1'))
    assert.equal(json(response).data.connections.length, 1)
    const filled = await ctx.database.db.selectFrom('pos_connections').select('push_account_key').where('id', '=', bar.id).executeTakeFirstOrThrow()
    assert.equal(filled.push_account_key, stored.push_account_key)
  })
})
