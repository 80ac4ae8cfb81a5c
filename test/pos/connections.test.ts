import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type Caller, json, type TestContext } from '../helpers/context.js'
import { createPosTestContext, createConnection, SQUARE_CREDENTIALS } from './pos-helpers.js'
import { PosGateway } from '../../src/pos/connections/pos-gateway.js'
import { findVendor } from '../../src/pos/vendors/vendor-registry.js'
import { scheduleDueSyncs } from '../../src/pos/sync/sync-worker.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

async function connectionCount(caller: { key: string }) {
  return json(await ctx.request('GET', '/v1/pos/connections', { key: caller.key })).pagination.total
}

/** The tenant's sync runs, whatever their connection (none is left by a refused create). */
async function runsOf(caller: Caller) {
  return ctx.database.db.selectFrom('pos_sync_runs').selectAll().where('account_id', '=', caller.tenant.accountId).execute()
}

describe('POST /v1/pos/connections', () => {
  test('connects a sandbox Square through its simulator and answers 201 without the credentials', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const response = await ctx.request('POST', '/v1/pos/connections', {
      key: caller.key,
      body: { pos_type: 'square', name: 'Front bar', credentials: SQUARE_CREDENTIALS, sync_frequency: 'daily' },
    })
    assert.equal(response.statusCode, 201)
    const connection = json(response).data
    assert.match(connection.id, /^pos_/)
    assert.equal(connection.status, 'active')
    assert.equal(connection.sync_frequency, 'daily')
    assert.equal(connection.location, 'main_bar')
    assert.equal(connection.last_sync, null)
    assert.ok(!Number.isNaN(Date.parse(connection.created_at)))
    assert.equal(connection.credentials, undefined)
    assert.ok(!response.body.includes(SQUARE_CREDENTIALS.access_token))
    assert.equal(connection.first_sync_id, null, 'no initial_sync: no run')
  })

  test('starts no sync without initial_sync, nor does the scheduler for a period: POST …/sync then answers 201 with the only run', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const created = await ctx.request('POST', '/v1/pos/connections', {
      key: caller.key,
      body: { pos_type: 'square', name: 'Front bar', credentials: SQUARE_CREDENTIALS, sync_frequency: 'hourly' },
    })
    assert.equal(created.statusCode, 201, created.body)
    const connection = json(created).data
    assert.equal(connection.first_sync_id, null)
    const listRuns = async () => json(await ctx.request('GET', '/v1/pos/syncs', { key: caller.key, query: { connection_id: connection.id } }))
    assert.equal((await listRuns()).pagination.total, 0)

    // The scheduler's first run is one sync_frequency (an hour) after the create, not at once.
    const createdMs = Date.parse(connection.created_at)
    await scheduleDueSyncs(ctx.database.db, new Date(createdMs + 3_600_000 - 60_000))
    assert.equal((await listRuns()).pagination.total, 0, 'not due for the scheduler yet')
    const { next_sync_at } = await ctx.database.db.selectFrom('pos_connections').select('next_sync_at').where('id', '=', connection.id).executeTakeFirstOrThrow()
    assert.ok(Math.abs(next_sync_at.getTime() - (createdMs + 3_600_000)) < 60_000, `next sync ${next_sync_at.toISOString()} is an hour after ${connection.created_at}`)

    const sync = await ctx.request('POST', `/v1/pos/connections/${connection.id}/sync`, { key: caller.key, body: {} })
    assert.equal(sync.statusCode, 201, sync.body)
    const run = json(sync).data
    assert.deepEqual([run.status, run.sync_type], ['processing', 'incremental'])
    assert.deepEqual(
      (await listRuns()).data.map((listed: { sync_id: string }) => listed.sync_id),
      [run.sync_id],
    )
  })

  test('initial_sync queues that run with the connection: first_sync_id names it, by this key; the next is a period later, and a replay names the same run', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const body = { pos_type: 'square', name: 'Front bar', credentials: SQUARE_CREDENTIALS, sync_frequency: 'daily', initial_sync: 'full' }
    const headers = { 'x-idempotency-key': 'first-sync-replay' }
    const response = await ctx.request('POST', '/v1/pos/connections', { key: caller.key, body, headers })
    assert.equal(response.statusCode, 201, response.body)
    const connection = json(response).data
    assert.match(connection.first_sync_id, /^sync_/)
    const run = json(await ctx.request('GET', `/v1/pos/syncs/${connection.first_sync_id}`, { key: caller.key })).data
    assert.deepEqual([run.connection_id, run.status, run.sync_type], [connection.id, 'processing', 'full'])
    const [row] = await runsOf(caller)
    assert.equal(row?.triggered_by, caller.keyId)
    const { next_sync_at } = await ctx.database.db.selectFrom('pos_connections').select('next_sync_at').where('id', '=', connection.id).executeTakeFirstOrThrow()
    const createdMs = Date.parse(connection.created_at)
    assert.ok(Math.abs(next_sync_at.getTime() - (createdMs + DAY_MS)) < 60_000, `next sync ${next_sync_at.toISOString()} is a day after ${connection.created_at}`)
    const second = await ctx.request('POST', `/v1/pos/connections/${connection.id}/sync`, { key: caller.key, body: {} })
    assert.equal(second.statusCode, 409, 'the first run is still queued')
    assert.equal(json(second).error.details.sync_id, connection.first_sync_id)

    const replay = await ctx.request('POST', '/v1/pos/connections', { key: caller.key, body, headers })
    assert.equal(replay.statusCode, 201)
    assert.equal(replay.headers['idempotent-replayed'], 'true')
    assert.deepEqual(json(replay).data, connection)
    assert.equal(await connectionCount(caller), 1)
    assert.deepEqual(
      (await runsOf(caller)).map((queued) => queued.id),
      [connection.first_sync_id],
    )
  })

  test('refuses an initial_sync other than incremental or full with 400 invalid_parameter, and creates nothing', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    for (const initialSync of ['sales_only', 'everything', true]) {
      const response = await ctx.request('POST', '/v1/pos/connections', {
        key: caller.key,
        body: { pos_type: 'square', name: 'Front bar', credentials: SQUARE_CREDENTIALS, initial_sync: initialSync },
      })
      assert.equal(response.statusCode, 400, response.body)
      assert.deepEqual([json(response).error.code, json(response).error.details.parameter], ['invalid_parameter', 'initial_sync'])
    }
    assert.equal(await connectionCount(caller), 0)
    assert.deepEqual(await runsOf(caller), [])
  })

  test('documents initial_sync in the create body and first_sync_id (null without one) in the create answer of /openapi.json, and only there', async () => {
    const document = json(await ctx.request('GET', '/openapi.json', { key: null }))
    const operation = (method: string) => document.paths['/v1/pos/connections'][method]
    const dataOf = (method: string, status: string) => operation(method).responses[status].content['application/json'].schema.properties.data
    const initialSync = operation('post').requestBody.content['application/json'].schema.properties.initial_sync
    assert.deepEqual(initialSync.enum, ['incremental', 'full'])
    const created = dataOf('post', '201')
    assert.ok(created.required.includes('first_sync_id'))
    assert.deepEqual(
      created.properties.first_sync_id.anyOf.map((option: { type: string }) => option.type),
      ['string', 'null'],
    )
    assert.match(created.properties.first_sync_id.description, /initial_sync/)
    assert.equal(dataOf('get', '200').items.properties.first_sync_id, undefined)
  })

  test('stores credentials encrypted, bound to the connection, and readable with the secret key', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const row = await ctx.database.db.selectFrom('pos_connections').select('credentials').where('id', '=', connection.id).executeTakeFirstOrThrow()
    assert.ok(!row.credentials.includes(SQUARE_CREDENTIALS.access_token))
    assert.ok(!row.credentials.includes(Buffer.from(SQUARE_CREDENTIALS.access_token).toString('base64').slice(0, 20)))
    const gateway = new PosGateway(ctx.config)
    assert.deepEqual(gateway.open(connection.id, row.credentials), SQUARE_CREDENTIALS)
    assert.throws(() => gateway.open('pos_other', row.credentials))
  })

  test('defaults sync_frequency to hourly', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller, { sync_frequency: undefined })
    assert.equal(connection.sync_frequency, 'hourly')
  })

  test('rejects an unknown pos_type with 400 pos_not_supported and creates nothing', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const response = await ctx.request('POST', '/v1/pos/connections', {
      key: caller.key,
      body: { pos_type: 'micros3700', name: 'Old', credentials: {}, sync_frequency: 'hourly' },
    })
    assert.equal(response.statusCode, 400)
    assert.equal(json(response).error.code, 'pos_not_supported')
    assert.equal(json(response).error.details.value, 'micros3700')
    assert.equal(await connectionCount(caller), 0)
  })

  test('rejects credentials of the wrong shape with 400 invalid_credentials naming the field, never the values', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const response = await ctx.request('POST', '/v1/pos/connections', {
      key: caller.key,
      body: { pos_type: 'square', name: 'Bad', credentials: { access_token: 'secret-value-123' }, sync_frequency: 'hourly' },
    })
    assert.equal(response.statusCode, 400)
    assert.equal(json(response).error.code, 'invalid_credentials')
    assert.match(json(response).error.message, /location_id/)
    assert.ok(!response.body.includes('secret-value-123'))
    assert.equal(await connectionCount(caller), 0)
  })

  test('names every missing and unknown credential field once, with the fields the vendor takes, and creates nothing', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const response = await ctx.request('POST', '/v1/pos/connections', {
      key: caller.key,
      body: { pos_type: 'toast', name: 'Toast', credentials: { client_id: 'c', restaurantId: 'secret-guid-value', clientSecret: 's3cr3t-value' } },
    })
    assert.equal(response.statusCode, 400)
    const { error } = json(response)
    assert.equal(error.code, 'invalid_credentials')
    assert.equal(
      error.message,
      'credentials.client_secret and credentials.restaurant_id are required; credentials.restaurantId and credentials.clientSecret are not toast credentials. toast takes client_id, client_secret, restaurant_id',
    )
    assert.deepEqual(error.details, {
      parameter: 'credentials.client_secret',
      missing: ['client_secret', 'restaurant_id'],
      unknown: ['restaurantId', 'clientSecret'],
      expected: ['client_id', 'client_secret', 'restaurant_id'],
    })
    assert.ok(!response.body.includes('secret-guid-value') && !response.body.includes('s3cr3t-value'))
    const optional = await ctx.request('POST', '/v1/pos/connections', {
      key: caller.key,
      body: { pos_type: 'clover', name: 'Clover', credentials: { merchant_id: 'M1', access_token: 't', refresh: 'r' } },
    })
    assert.equal(
      json(optional).error.message,
      'credentials.refresh is not a clover credential. clover takes merchant_id, access_token, refresh_token (optional), region (optional)',
    )
    assert.equal(await connectionCount(caller), 0)
  })

  test('says the rule of a bad credential value in words, naming the field once and never the value', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const toast = findVendor('toast')!.exampleCredentials
    const cases: [string, Record<string, unknown>, string, string][] = [
      [
        'toast',
        { ...toast, restaurant_id: 'rest-1234' },
        'credentials.restaurant_id',
        'toast credentials.restaurant_id must be a GUID, 32 hexadecimal digits grouped 8-4-4-4-12 (e.g. 4a1b2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d)',
      ],
      ['toast', { ...toast, client_id: 'client-1234', client_secret: '' }, 'credentials.client_secret', 'toast credentials.client_secret must not be empty'],
      ['toast', { ...toast, client_id: 1234 }, 'credentials.client_id', 'toast credentials.client_id must be a string'],
      [
        'lightspeed',
        { ...findVendor('lightspeed')!.exampleCredentials, business_location_id: 'bl-1234' },
        'credentials.business_location_id',
        'lightspeed credentials.business_location_id must be digits only (e.g. 45454565682155)',
      ],
      ['clover', { ...findVendor('clover')!.exampleCredentials, region: 'us-1234' }, 'credentials.region', 'clover credentials.region must be one of na, eu, la'],
      ['spoton', { ...findVendor('spoton')!.exampleCredentials, api_key: 'k-1234' }, 'credentials.api_key', 'spoton credentials.api_key must be at least 8 characters'],
    ]
    for (const [posType, credentials, parameter, message] of cases) {
      const response = await ctx.request('POST', '/v1/pos/connections', { key: caller.key, body: { pos_type: posType, name: posType, credentials } })
      assert.equal(response.statusCode, 400, response.body)
      assert.equal(json(response).error.code, 'invalid_credentials')
      assert.equal(json(response).error.message, message)
      assert.equal(json(response).error.details.parameter, parameter)
      assert.ok(!response.body.includes('1234'), response.body)
    }
    assert.equal(await connectionCount(caller), 0)
  })

  test('rejects credentials the vendor refuses with 400 invalid_credentials and creates nothing', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const response = await ctx.request('POST', '/v1/pos/connections', {
      key: caller.key,
      body: { pos_type: 'square', name: 'Refused', credentials: { ...SQUARE_CREDENTIALS, access_token: 'invalid-token' }, sync_frequency: 'hourly' },
    })
    assert.equal(response.statusCode, 400)
    assert.equal(json(response).error.code, 'invalid_credentials')
    assert.equal(await connectionCount(caller), 0)
  })

  test('answers 404 location_not_found for an unknown location', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const response = await ctx.request('POST', '/v1/pos/connections', {
      key: caller.key,
      body: { pos_type: 'square', name: 'Roof', credentials: SQUARE_CREDENTIALS, location: 'rooftop' },
    })
    assert.equal(response.statusCode, 404)
    assert.equal(json(response).error.code, 'location_not_found')
    assert.equal(await connectionCount(caller), 0)
    assert.deepEqual(await runsOf(caller), [])
  })

  test('needs pos:write', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox', permissions: ['pos:read'] })
    const response = await ctx.request('POST', '/v1/pos/connections', {
      key: caller.key,
      body: { pos_type: 'square', name: 'X', credentials: SQUARE_CREDENTIALS },
    })
    assert.equal(response.statusCode, 403)
    assert.equal(json(response).error.details.required, 'pos:write')
  })

  test('every vendor in the registry connects in the sandbox with its example credentials', async () => {
    const { supportedPosTypes, findVendor } = await import('../../src/pos/vendors/vendor-registry.js')
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    for (const posType of supportedPosTypes()) {
      const vendor = findVendor(posType)!
      const response = await ctx.request('POST', '/v1/pos/connections', {
        key: caller.key,
        body: { pos_type: posType, name: posType, credentials: vendor.exampleCredentials },
      })
      assert.equal(response.statusCode, 201, `${posType}: ${response.body}`)
      const refused = await ctx.request('POST', '/v1/pos/connections', {
        key: caller.key,
        body: { pos_type: posType, name: posType, credentials: { ...vendor.exampleCredentials, [vendor.secretField]: 'invalid-secret' } },
      })
      assert.equal(json(refused).error?.code, 'invalid_credentials', `${posType}: ${refused.body}`)
    }
  })
})

describe('GET, PUT, DELETE /v1/pos/connections/:id', () => {
  test('gets a connection with true sync_stats and lists it', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const response = await ctx.request('GET', `/v1/pos/connections/${connection.id}`, { key: caller.key })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(json(response).data.sync_stats, { total_syncs: 0, failed_syncs: 0, last_sync_duration_ms: null })
    const list = json(await ctx.request('GET', '/v1/pos/connections', { key: caller.key }))
    assert.equal(list.pagination.total, 1)
    assert.deepEqual(Object.keys(list.data[0]).sort(), [
      'created_at',
      'id',
      'last_sync',
      'location',
      'name',
      'pos_type',
      'push_url',
      'push_verification_code',
      'sales_reread_hours',
      'status',
      'sync_frequency',
      'updated_at',
    ])
  })

  test('updates name and sync_frequency and pauses with status inactive', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const response = await ctx.request('PUT', `/v1/pos/connections/${connection.id}`, {
      key: caller.key,
      body: { name: 'Back bar', sync_frequency: 'realtime', status: 'inactive' },
    })
    assert.equal(response.statusCode, 200)
    const updated = json(response).data
    assert.equal(updated.name, 'Back bar')
    assert.equal(updated.sync_frequency, 'realtime')
    assert.equal(updated.status, 'inactive')
    assert.ok(Date.parse(updated.updated_at) >= Date.parse(updated.created_at))
  })

  test('sets sales_reread_hours, back to the vendor default with null, and refuses more than 720 changing nothing', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    assert.equal(connection.sales_reread_hours, null)
    const put = (value: unknown) => ctx.request('PUT', `/v1/pos/connections/${connection.id}`, { key: caller.key, body: { sales_reread_hours: value } })
    assert.equal(json(await put(96)).data.sales_reread_hours, 96)
    const refused = await put(721)
    assert.equal(refused.statusCode, 400)
    assert.equal(json(refused).error.code, 'invalid_parameter')
    assert.equal(json(await ctx.request('GET', `/v1/pos/connections/${connection.id}`, { key: caller.key })).data.sales_reread_hours, 96)
    assert.equal(json(await put(null)).data.sales_reread_hours, null)
  })

  test('deletes a connection; then it is 404 connection_not_found everywhere', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const deleted = await ctx.request('DELETE', `/v1/pos/connections/${connection.id}`, { key: caller.key })
    assert.deepEqual(json(deleted).data, { id: connection.id, deleted: true })
    for (const [method, url] of [
      ['GET', `/v1/pos/connections/${connection.id}`],
      ['DELETE', `/v1/pos/connections/${connection.id}`],
      ['GET', `/v1/pos/connections/${connection.id}/mappings`],
    ] as const) {
      const response = await ctx.request(method, url, { key: caller.key })
      assert.equal(response.statusCode, 404)
      assert.equal(json(response).error.code, 'connection_not_found')
    }
    const update = await ctx.request('PUT', `/v1/pos/connections/${connection.id}`, { key: caller.key, body: { name: 'x' } })
    assert.equal(json(update).error.code, 'connection_not_found')
    assert.equal(await connectionCount(caller), 0)
  })

  test("another tenant's connection is 404 and unchanged", async () => {
    const owner = await ctx.newCaller({ environment: 'sandbox' })
    const stranger = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, owner)
    const response = await ctx.request('PUT', `/v1/pos/connections/${connection.id}`, { key: stranger.key, body: { name: 'mine now' } })
    assert.equal(response.statusCode, 404)
    assert.equal(json(response).error.code, 'connection_not_found')
    const fetched = json(await ctx.request('GET', `/v1/pos/connections/${connection.id}`, { key: owner.key })).data
    assert.equal(fetched.name, connection.name)
  })
})
