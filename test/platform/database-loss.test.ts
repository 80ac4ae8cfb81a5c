import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import pg from 'pg'
import { createTestContext, json, type TestContext } from '../helpers/context.js'

/**
 * A PostgreSQL connection lost while a request holds it (a failover, a restart, pg_terminate_backend)
 * answers that request 503 database_unavailable and the service goes on; it once ended the process.
 * Needs a server: skipped on the embedded database.
 */

const url = process.env.DATABASE_URL
let ctx: TestContext

before(async () => {
  if (!url) return
  ctx = await createTestContext({
    configure(app) {
      // A request that holds its connection until the test cuts it.
      app.get('/test/held-connection', async () => {
        await sql`SELECT pg_sleep(30), 'held-by-test' AS marker`.execute(app.db)
        return { data: 'never' }
      })
      // Longer than the stall check (2 s by default): the probe finds the database answering.
      app.get('/test/slow-statement', async () => {
        await sql`SELECT pg_sleep(2.5)`.execute(app.db)
        return { data: 'slept' }
      })
    },
  })
})
after(async () => {
  if (ctx) await ctx.close()
})

async function terminateHeldBackend(): Promise<number> {
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    for (let attempt = 0; attempt < 100; attempt++) {
      const result = await admin.query(
        "SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%held-by-test%' AND pid <> pg_backend_pid()) t",
      )
      if (result.rows[0].n > 0) return result.rows[0].n
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return 0
  } finally {
    await admin.end()
  }
}

test('a connection terminated under a request answers it 503 database_unavailable, and the next request is served', {
  skip: !url && 'needs DATABASE_URL (PostgreSQL)',
}, async () => {
  const caller = await ctx.newCaller()
  const held = ctx.app.inject({ method: 'GET', url: '/test/held-connection' })
  assert.equal(await terminateHeldBackend(), 1)
  const response = await held
  assert.equal(response.statusCode, 503, response.body)
  assert.equal(json(response).error.code, 'database_unavailable')
  assert.equal(response.headers['retry-after'], '5')
  // The pool drops the dead connection when its end is read: a request in that instant may still get
  // it (503 again). The service recovers alone, within moments.
  assert.equal(await firstStatusWithin(2_000, () => ctx.request('GET', '/readyz', { key: null })), 200)
  const next = await ctx.request('GET', '/v1/locations', { key: caller.key })
  assert.equal(next.statusCode, 200, next.body)
})

test('a statement that outlasts the stall check on a database that answers is not cut', { skip: !url && 'needs DATABASE_URL (PostgreSQL)' }, async () => {
  const response = await ctx.app.inject({ method: 'GET', url: '/test/slow-statement' })
  assert.equal(response.statusCode, 200, response.body)
  assert.equal(json(response).data, 'slept')
})

/** Runs `text` on DATABASE_URL's server as the test's administrator. */
async function asAdmin(text: string, values: unknown[] = []): Promise<void> {
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    await admin.query(text, values)
  } finally {
    await admin.end()
  }
}

/** The test database's sessions end, so the pool's next connections take the database's new defaults. */
async function reconnectWith(database: string, setting: string): Promise<void> {
  await asAdmin(`ALTER DATABASE ${pg.escapeIdentifier(database)} ${setting}`)
  await asAdmin('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database])
  assert.equal(await firstStatusWithin(5_000, () => ctx.request('GET', '/readyz', { key: null })), 200)
}

test('a write the server refuses as read-only (a standby not yet promoted) answers 503 database_unavailable and writes nothing', {
  skip: !url && 'needs DATABASE_URL (PostgreSQL)',
}, async () => {
  const caller = await ctx.newCaller()
  const database = (await sql<{ name: string }>`SELECT current_database() AS name`.execute(ctx.app.db)).rows[0]!.name
  const item = { name: 'Read-only Lager', sku: 'RO-1', category: 'beer', quantity: 12, unit: 'bottle', location: 'main_bar' }
  // What a connection reaching a server still in recovery gets on a write: SQLSTATE 25006.
  await reconnectWith(database, 'SET default_transaction_read_only = on')
  const answer = await ctx.request('POST', '/v1/inventory/items', { key: caller.key, body: item })
  assert.equal(answer.statusCode, 503, answer.body)
  assert.equal(json(answer).error.code, 'database_unavailable')
  assert.equal(answer.headers['retry-after'], '5')
  await reconnectWith(database, 'RESET default_transaction_read_only')
  const list = await ctx.request('GET', '/v1/inventory/items', { key: caller.key })
  assert.deepEqual(json(list).data, [], 'nothing was written')
  const created = await firstStatusWithin(5_000, () => ctx.request('POST', '/v1/inventory/items', { key: caller.key, body: item }))
  assert.equal(created, 201)
})

test('a database that refuses new connections (ALLOW_CONNECTIONS false, SQLSTATE 55000) answers 503 database_unavailable, and the service recovers', {
  skip: !url && 'needs DATABASE_URL (PostgreSQL)',
}, async () => {
  const caller = await ctx.newCaller()
  const database = (await sql<{ name: string }>`SELECT current_database() AS name`.execute(ctx.app.db)).rows[0]!.name
  await asAdmin(`ALTER DATABASE ${pg.escapeIdentifier(database)} ALLOW_CONNECTIONS false`)
  try {
    await asAdmin('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database])
    const refused = await ctx.request('GET', '/v1/locations', { key: caller.key })
    assert.equal(refused.statusCode, 503, refused.body)
    assert.equal(json(refused).error.code, 'database_unavailable')
  } finally {
    await asAdmin(`ALTER DATABASE ${pg.escapeIdentifier(database)} ALLOW_CONNECTIONS true`)
  }
  assert.equal(await firstStatusWithin(5_000, () => ctx.request('GET', '/v1/locations', { key: caller.key })), 200)
})

/** The first non-503 status `call` answers within `ms` (polling every 50 ms), or the last 503. */
async function firstStatusWithin(ms: number, call: () => Promise<{ statusCode: number }>): Promise<number> {
  const deadline = Date.now() + ms
  for (;;) {
    const { statusCode } = await call()
    if (statusCode !== 503 || Date.now() > deadline) return statusCode
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
