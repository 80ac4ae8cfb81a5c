import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import pg from 'pg'
import { scratchPostgres } from '../helpers/context.js'
import { pgbouncerInstalled, startPgBouncer } from '../helpers/pgbouncer.js'
import { runCli, scratchDataDir, startServerProcess } from '../helpers/server-process.js'

/**
 * barstock behind a real PgBouncer in transaction mode (docs/operations.md, "Behind PgBouncer"): API
 * flows through it, LISTEN on the direct connection (a key revoked elsewhere is refused at once), the
 * server-side timeouts held by the role's defaults since PgBouncer refuses them at connect, and a pooler
 * barstock was not told of refused with a message that says what to set. Needs PostgreSQL and pgbouncer.
 */

const url = process.env.DATABASE_URL
const skip = !url ? 'needs DATABASE_URL (PostgreSQL)' : !pgbouncerInstalled() ? 'needs pgbouncer on the PATH (apt-get install pgbouncer)' : false
const SQUARE_CREDENTIALS = { access_token: 'EAAAlSimulatedBarAccessTokenForTheSandbox0000000000000000000000', location_id: 'L8SIMBAR0001' }
/** Not the defaults, so a session that did not get them from the role shows it. */
const TIMEOUTS = { BARSTOCK_DB_STATEMENT_TIMEOUT_MS: '25000', BARSTOCK_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '45000' }

function caller(base: string, key: string) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: response.status, body: await response.json() }
  }
}

async function createdData(answer: Promise<{ status: number; body: any }>, status = 201): Promise<any> {
  const { status: actual, body } = await answer
  assert.equal(actual, status, JSON.stringify(body))
  return body.data
}

/** What a session borrowed through the pooler has, asked with nothing set at connect. */
async function pooledSetting(pooledUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: pooledUrl })
  await client.connect()
  try {
    return (await client.query(`SHOW ${name}`)).rows[0][name]
  } finally {
    await client.end()
  }
}

test('API flows run through PgBouncer in transaction mode, with LISTEN direct and the timeouts held', { skip, timeout: 300_000 }, async (t) => {
  const database = await scratchPostgres(url!, 'barstock_pooled')
  t.after(() => database.drop())
  const server = new URL(url!)
  const bouncer = await startPgBouncer({ server, poolMode: 'transaction', poolSize: 3 })
  t.after(() => bouncer.stop())
  const pooledUrl = bouncer.urlOf(new URL(database.url))
  const env = {
    DATABASE_URL: pooledUrl,
    BARSTOCK_DIRECT_DATABASE_URL: database.url,
    BARSTOCK_DATA_DIR: scratchDataDir(),
    BARSTOCK_SECRET_KEY: randomBytes(32).toString('hex'),
    ...TIMEOUTS,
  }
  // Two instances sharing three server connections, as many instances share a pooler's few.
  const [first, second] = await Promise.all([startServerProcess(env), startServerProcess(env)])
  t.after(() => {
    first.child.kill('SIGKILL')
    second.child.kill('SIGKILL')
  })
  const created = JSON.parse((await runCli(['keys', 'create', '--name', 'pooled', '--permissions', '*', '--sandbox', '--json'], env)).stdout)
  const api = caller(first.url, created.key)
  const other = caller(second.url, created.key)

  // Items, created on both instances at once.
  const [beer, gin] = await Promise.all([
    createdData(api('POST', '/v1/inventory/items', { name: 'Pooled Lager', sku: 'POOL-1', category: 'beer', quantity: 24, unit: 'bottle', location: 'main_bar' })),
    createdData(other('POST', '/v1/inventory/items', { name: 'Pooled Gin', sku: 'POOL-2', category: 'spirits', quantity: 6, unit: 'bottle', location: 'main_bar' })),
  ])
  // A count sets the stock and reports the difference.
  const count = await createdData(api('POST', '/v1/inventory/count', { location: 'main_bar', counted_by: 'Sam', items: [{ item_id: beer.id, quantity: 20, notes: null }] }))
  assert.equal(count.items_updated, 1)
  assert.deepEqual(
    count.variance_detected.map((line: any) => [line.item_id, line.variance]),
    [[beer.id, -4]],
  )
  assert.equal((await createdData(other('GET', `/v1/inventory/items/${beer.id}`), 200)).quantity, 20)
  // A sale ingested through a POS connection (a sandbox key's: the vendor is the simulator) and its
  // mapping draws the stock down.
  const connection = await createdData(api('POST', '/v1/pos/connections', { pos_type: 'square', name: 'Front bar', credentials: SQUARE_CREDENTIALS, sync_frequency: 'hourly' }))
  await createdData(
    api('POST', `/v1/pos/connections/${connection.id}/mappings`, { pos_item_id: 'PLU-1', inventory_item_id: beer.id, conversion_factor: 1, conversion_unit: 'bottle' }),
  )
  const sale = { line_id: 'pooled-1', location: 'main_bar', pos_item_id: 'PLU-1', name: 'Lager', quantity: 3, unit_price: 6, sold_at: new Date().toISOString() }
  assert.equal((await createdData(other('POST', '/v1/sales', { connection_id: connection.id, sales: [sale] }))).imported, 1)
  assert.equal((await createdData(api('POST', '/v1/sales', { connection_id: connection.id, sales: [sale] }))).imported, 0, 'the re-sent line is a duplicate')
  assert.equal((await createdData(api('GET', `/v1/inventory/items/${beer.id}`), 200)).quantity, 17)
  // An order to a distributor, submitted.
  const distributor = await createdData(
    api('POST', '/v1/distributors', {
      name: 'Pooled Wholesale',
      distributor_code: 'PW-1',
      region: 'northeast',
      contact_email: 'orders@wholesaler.example',
      min_order_amount: 0,
      lead_time_days: 3,
    }),
  )
  const order = await createdData(
    other('POST', '/v1/orders', { distributor_id: distributor.id, location: 'main_bar', items: [{ inventory_item_id: gin.id, quantity: 12, unit: 'bottle' }] }),
  )
  assert.equal((await createdData(api('POST', `/v1/orders/${order.id}/submit`), 200)).status, 'submitted')

  // The timeouts hold on the sessions PgBouncer lends, though nothing sets them at connect.
  assert.equal(await pooledSetting(pooledUrl, 'statement_timeout'), '25s')
  assert.equal(await pooledSetting(pooledUrl, 'idle_in_transaction_session_timeout'), '45s')

  // A key revoked from elsewhere is refused on both instances at once (a NOTIFY through the pooler,
  // heard on their direct connections), long before their key caches would forget it (30 s).
  const revoked = await runCli(['keys', 'revoke', created.id], env)
  assert.equal(revoked.code, 0, revoked.stderr)
  for (const instance of [api, other]) {
    const started = Date.now()
    let status = 200
    while (status !== 401 && Date.now() - started < 10_000) {
      status = (await instance('GET', '/v1/locations')).status
      if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.equal(status, 401, 'the revoked key is refused')
    assert.ok(Date.now() - started < 10_000)
  }
})

test('a pooler barstock is not told of is refused at start, naming what to set; told, it runs on it', { skip, timeout: 120_000 }, async (t) => {
  const database = await scratchPostgres(url!, 'barstock_unpooled')
  t.after(() => database.drop())
  const server = new URL(url!)
  // PgBouncer refuses the settings barstock sends at connect.
  const refusing = await startPgBouncer({ server, poolMode: 'transaction', poolSize: 2 })
  t.after(() => refusing.stop())
  const refused = await runCli(['migrate'], { DATABASE_URL: refusing.urlOf(new URL(database.url)), BARSTOCK_DATA_DIR: scratchDataDir() })
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /refuses the session settings barstock sends .*unsupported startup parameter.*set BARSTOCK_DIRECT_DATABASE_URL/)
  // One told to ignore them would run barstock without its timeouts (and, in transaction mode, lose
  // its LISTENs): the check of the timeouts the sessions really have stops it.
  const ignoring = await startPgBouncer({ server, poolMode: 'session', poolSize: 2, ignoreStartupParameters: ['statement_timeout', 'idle_in_transaction_session_timeout'] })
  t.after(() => ignoring.stop())
  const dropped = await runCli(['migrate'], { DATABASE_URL: ignoring.urlOf(new URL(database.url)), BARSTOCK_DATA_DIR: scratchDataDir() })
  assert.equal(dropped.code, 1)
  assert.match(dropped.stderr, /statement_timeout is 0 ms, not 30000 \(BARSTOCK_DB_STATEMENT_TIMEOUT_MS\).*set BARSTOCK_DIRECT_DATABASE_URL/)
  // Nothing was migrated either time. Told it is a pooler, barstock runs on the same one: its sessions
  // get the timeouts from the role's defaults (session mode shares no connection, but is safe).
  const migrated = async () => {
    const direct = new pg.Client({ connectionString: database.url })
    await direct.connect()
    try {
      return (await direct.query("SELECT to_regclass('schema_migrations') AS table")).rows[0].table !== null
    } finally {
      await direct.end()
    }
  }
  assert.equal(await migrated(), false)
  const told = await runCli(['migrate'], { DATABASE_URL: ignoring.urlOf(new URL(database.url)), BARSTOCK_DIRECT_DATABASE_URL: database.url, BARSTOCK_DATA_DIR: scratchDataDir() })
  assert.equal(told.code, 0, told.stderr)
  assert.equal(await migrated(), true)
})
