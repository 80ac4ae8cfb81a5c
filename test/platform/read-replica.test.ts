import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import pg from 'pg'
import { startFreezingProxy } from '../helpers/freezing-proxy.js'
import { missingClusterBinaries, startPrimaryAndStandby } from '../helpers/postgres-cluster.js'
import { runCli, scratchDataDir, type ServerProcess, startServerProcess, waitForOutput } from '../helpers/server-process.js'

/**
 * Read replicas (docs/operations.md, "Read replicas") against a real streaming standby: a primary this
 * test starts on a free port and a standby made from it with pg_basebackup -R. Replay paused on the
 * standby makes it visibly stale, so each read shows where it was served: a list route declaring
 * readReplica reads the standby, the key that wrote reads the primary, a replica past the lag bound or
 * gone is skipped without an error. Runs with the PostgreSQL suite (DATABASE_URL set, though its own
 * servers are used) where PostgreSQL's server binaries are installed.
 */

const skip = !process.env.DATABASE_URL ? 'needs PostgreSQL (the PostgreSQL suite, DATABASE_URL set): the embedded database has no replicas' : (missingClusterBinaries() ?? false)

async function sql(url: string, text: string): Promise<any[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text)).rows
  } finally {
    await client.end()
  }
}

function caller(base: string, key: string) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any; ms: number }> => {
    const started = Date.now()
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: response.status, body: await response.json(), ms: Date.now() - started }
  }
}

type Api = ReturnType<typeof caller>

async function itemNames(api: Api): Promise<string[]> {
  const answer = await api('GET', '/v1/inventory/items?per_page=100')
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  return answer.body.data.map((item: any) => item.name)
}

async function createItem(api: Api, name: string): Promise<any> {
  const answer = await api('POST', '/v1/inventory/items', {
    name,
    sku: name.toUpperCase().replace(/\W/g, '-'),
    category: 'beer',
    quantity: 12,
    unit: 'bottle',
    location: 'main_bar',
  })
  assert.equal(answer.status, 201, JSON.stringify(answer.body))
  return answer.body.data
}

/** Resolves once `check` holds, polling; fails after `timeoutMs`. */
async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const started = Date.now()
  while (!(await check())) {
    assert.ok(Date.now() - started < timeoutMs, 'the condition did not hold in time')
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

const METRICS_TOKEN = 'replica-metrics-token-0001'

/** The value of an unlabelled gauge in the server's /metrics, or undefined when the scrape leaves it out. */
async function gauge(server: ServerProcess, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()
  const line = text.split('\n').find((row) => row.startsWith(`${name} `))
  return line === undefined ? undefined : Number(line.split(' ')[1])
}

async function createKey(env: Record<string, string>, name: string): Promise<string> {
  const created = await runCli(['keys', 'create', '--name', name, '--permissions', '*', '--json'], env)
  assert.equal(created.code, 0, created.stderr)
  return JSON.parse(created.stdout).key
}

test('reads go to the standby, a key that wrote reads the primary, a lagging or lost standby is skipped', { skip, timeout: 300_000 }, async (t) => {
  const clusters = await startPrimaryAndStandby()
  const { primary, standby } = clusters
  t.after(() => clusters.stop())
  const base = { DATABASE_URL: primary.urlOf('postgres'), BARSTOCK_SECRET_KEY: randomBytes(32).toString('hex') }
  // The standby behind a proxy that can freeze it (a partition) while the test still reaches it directly.
  const proxy = await startFreezingProxy({ host: '127.0.0.1', port: standby.port })
  t.after(() => proxy.close())
  const replicaUrl = `postgres://postgres@127.0.0.1:${proxy.port}/postgres`
  const servers: ServerProcess[] = []
  t.after(() => servers.forEach((server) => server.child.kill('SIGKILL')))
  // Two instances on the same primary and standby: one tolerating a minute of lag, one a second.
  const tolerant = await startServerProcess({
    ...base,
    BARSTOCK_DATA_DIR: scratchDataDir(),
    BARSTOCK_REPLICA_URL: replicaUrl,
    BARSTOCK_REPLICA_MAX_LAG_MS: '60000',
    BARSTOCK_METRICS_TOKEN: METRICS_TOKEN,
  })
  servers.push(tolerant)
  const strict = await startServerProcess({ ...base, BARSTOCK_DATA_DIR: scratchDataDir(), BARSTOCK_REPLICA_URL: replicaUrl, BARSTOCK_REPLICA_MAX_LAG_MS: '1000' })
  servers.push(strict)
  const writerKey = await createKey(base, 'writer')
  const readerKey = await createKey(base, 'reader')
  const writer = caller(tolerant.url, writerKey)
  const reader = caller(tolerant.url, readerKey)
  const strictReader = caller(strict.url, readerKey)

  assert.equal(await gauge(tolerant, 'barstock_read_replica_in_use'), 1)
  assert.ok(((await gauge(tolerant, 'barstock_read_replica_lag_seconds')) ?? 99) < 60)
  // Caught up: both keys see the same list (the reader's key from the standby once it replayed the keys).
  const lager = await createItem(writer, 'Replica Lager')
  await eventually(async () => (await itemNames(reader)).includes('Replica Lager'))

  // Replay paused: the standby stops at what it has; the primary goes on.
  await sql(standby.urlOf('postgres'), 'SELECT pg_wal_replay_pause()')
  const stout = await createItem(writer, 'Replica Stout')
  // Another key's list comes from the standby, which has not replayed the new item (at once, unless a
  // slow moment let the last check grow over 1 s old: then from the next check on).
  await eventually(async () => JSON.stringify(await itemNames(reader)) === '["Replica Lager"]', 5_000)
  assert.deepEqual((await itemNames(writer)).sort(), ['Replica Lager', 'Replica Stout'], 'the key that wrote reads its own write from the primary')
  // A route that does not declare readReplica reads the primary whoever asks.
  assert.equal((await reader('GET', `/v1/inventory/items/${stout.id}`)).status, 200)
  // Past its bound (1 s) the strict instance skips the standby: the same key's list comes from the primary.
  await eventually(async () => (await itemNames(strictReader)).includes('Replica Stout'), 10_000)
  await waitForOutput(strict, (output) => /read replica: skipped, reads go to the primary: it is (over )?\d+ ms behind the primary/.test(output))
  // The tolerant instance still reads the standby.
  await eventually(async () => JSON.stringify(await itemNames(reader)) === '["Replica Lager"]', 5_000)

  // Replay resumed: the standby catches up, the strict instance uses it again and says so.
  await sql(standby.urlOf('postgres'), 'SELECT pg_wal_replay_resume()')
  await eventually(async () => (await itemNames(reader)).includes('Replica Stout'))
  await waitForOutput(strict, (output) => (output.match(/read replica: in use/g) ?? []).length >= 2)

  // Two counts give the variance report a window to measure: it stores the window in a transaction of
  // its own (with a write), which runs on the primary though the report reads the standby.
  for (const quantity of [12, 10]) {
    const count = await writer('POST', '/v1/inventory/count', { location: 'main_bar', counted_by: 'Sam', items: [{ item_id: lager.id, quantity, notes: null }] })
    assert.equal(count.status, 201, JSON.stringify(count.body))
  }
  await eventually(async () => (await reader('GET', '/v1/analytics/variance')).status === 200)

  // Every route declaring readReplica answers from a standby in use: none writes outside a transaction
  // (a transaction runs on the primary), none fails for reading there.
  const declared = [
    '/v1/analytics/variance',
    '/v1/analytics/forecast',
    `/v1/analytics/forecast/items/${lager.id}`,
    '/v1/analytics/costing',
    '/v1/analytics/performance',
    '/v1/analytics/staff',
    '/v1/analytics/categories',
    '/v1/inventory?format=csv',
    '/v1/inventory/counts',
    `/v1/inventory/items/${lager.id}/movements`,
    '/v1/inventory/transfers',
    '/v1/inventory/waste',
    '/v1/orders',
  ]
  for (const path of declared) {
    const answer = await fetch(`${tolerant.url}${path}`, { headers: { 'x-api-key': readerKey } })
    assert.ok(answer.status < 500, `${path}: ${answer.status} ${await answer.text()}`)
    t.diagnostic(`${path}: ${answer.status}`)
  }

  // The standby goes silent (a partition): the reads of the instances answer 200 from the primary, within
  // the stall check plus the probe (3.5 s) for a statement already sent, and without that wait after.
  proxy.freeze()
  const during = await Promise.all([reader('GET', '/v1/inventory/items?per_page=100'), strictReader('GET', '/v1/inventory/items?per_page=100')])
  for (const answer of during) {
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    // The stall check plus the probe (3.5 s by default), then the same statement on the primary.
    assert.ok(answer.ms < 6_000, `answered in ${answer.ms} ms`)
    assert.equal(answer.body.data.length, 2)
  }
  const after = await reader('GET', '/v1/inventory/items?per_page=100')
  assert.equal(after.status, 200)
  assert.ok(after.ms < 2_000, `answered in ${after.ms} ms once the replica was skipped`)
  await waitForOutput(tolerant, (output) => /read replica: skipped, reads go to the primary: (it did not answer|a statement failed there)/.test(output))
  assert.equal(await gauge(tolerant, 'barstock_read_replica_in_use'), 0)
  assert.equal(await gauge(tolerant, 'barstock_read_replica_lag_seconds'), undefined)
  proxy.thaw()
  await waitForOutput(tolerant, (output) => (output.match(/read replica: in use/g) ?? []).length >= 2)

  // The standby crashes: reads answer 200 from the primary, never an error.
  await standby.kill()
  for (let attempt = 0; attempt < 5; attempt++) {
    const answer = await reader('GET', '/v1/inventory/items?per_page=100')
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    assert.equal(answer.body.data.length, 2)
  }
  const value = await reader('GET', '/v1/inventory/value')
  assert.equal(value.status, 200, JSON.stringify(value.body))
  assert.equal((await reader('GET', `/v1/inventory/items/${lager.id}`)).status, 200)
})

test('a replica URL leading to a primary stops the start; one leading nowhere falls back to the primary', { skip, timeout: 300_000 }, async (t) => {
  const own = await startPrimaryAndStandby()
  t.after(() => own.stop())
  const base = { DATABASE_URL: own.primary.urlOf('postgres'), BARSTOCK_DATA_DIR: scratchDataDir(), BARSTOCK_SECRET_KEY: randomBytes(32).toString('hex') }
  // The primary itself, given as the replica: a configuration mistake, refused before anything runs.
  const refused = await runCli(['migrate'], { ...base, BARSTOCK_REPLICA_URL: own.primary.urlOf('postgres') })
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /BARSTOCK_REPLICA_URL leads to a primary, not a streaming standby/)
  assert.deepEqual(await sql(own.primary.urlOf('postgres'), "SELECT to_regclass('schema_migrations') AS t"), [{ t: null }], 'nothing migrated')
  // A port nothing listens on: the server starts, says so, and serves reads from the primary.
  await own.standby.stop()
  const server = await startServerProcess({ ...base, BARSTOCK_REPLICA_URL: own.standby.urlOf('postgres') })
  t.after(() => server.child.kill('SIGKILL'))
  assert.match(server.output(), /read replica: skipped, reads go to the primary: it did not answer/)
  const api = caller(server.url, await createKey(base, 'nowhere'))
  await createItem(api, 'Nowhere Ale')
  const other = caller(server.url, await createKey(base, 'other'))
  assert.deepEqual(await itemNames(other), ['Nowhere Ale'])
})

/** The report cache's hits and misses in the server's /metrics. */
async function cacheLookups(server: ServerProcess): Promise<{ hit: number; miss: number }> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()
  const count = (outcome: string) => Number(/\d+$/.exec(text.split('\n').find((row) => row.startsWith(`barstock_report_cache_lookups_total{outcome="${outcome}"}`)) ?? '0')?.[0])
  return { hit: count('hit'), miss: count('miss') }
}

test('a cached report read on the standby is checked there: kept while it has not replayed a change, computed again once it has', { skip, timeout: 300_000 }, async (t) => {
  const clusters = await startPrimaryAndStandby()
  t.after(() => clusters.stop())
  const { primary, standby } = clusters
  const base = { DATABASE_URL: primary.urlOf('postgres'), BARSTOCK_SECRET_KEY: randomBytes(32).toString('hex') }
  const server = await startServerProcess({
    ...base,
    BARSTOCK_DATA_DIR: scratchDataDir(),
    BARSTOCK_REPLICA_URL: standby.urlOf('postgres'),
    BARSTOCK_REPLICA_MAX_LAG_MS: '60000',
    BARSTOCK_METRICS_TOKEN: METRICS_TOKEN,
  })
  t.after(() => server.child.kill('SIGKILL'))
  const writer = caller(server.url, await createKey(base, 'writer'))
  const reader = caller(server.url, await createKey(base, 'reader'))
  const lager = await createItem(writer, 'Cached Lager')
  const countLager = async (quantity: number) => {
    const count = await writer('POST', '/v1/inventory/count', { location: 'main_bar', counted_by: 'Sam', items: [{ item_id: lager.id, quantity, notes: null }] })
    assert.equal(count.status, 201, JSON.stringify(count.body))
  }
  const closing = async () => {
    const answer = await reader('GET', '/v1/analytics/variance')
    return answer.status === 200 ? (answer.body.data.items[0].window.closing as number) : undefined
  }
  for (const quantity of [12, 10]) await countLager(quantity)
  await eventually(async () => (await closing()) === 10)
  // The same report again: a hit, its snapshot and check both on the standby.
  const before = await cacheLookups(server)
  assert.equal(await closing(), 10)
  assert.deepEqual(await cacheLookups(server), { hit: before.hit + 1, miss: before.miss })

  // Replay paused: the standby has not seen the next count, so neither has the check there: the answer
  // the standby would give is served (or the primary's, when a slow moment let the replica's last check
  // grow over 1 s old).
  await sql(standby.urlOf('postgres'), 'SELECT pg_wal_replay_pause()')
  await countLager(7)
  const paused = await closing()
  assert.ok(paused === 10 || paused === 7, `closing ${paused}`)
  t.diagnostic(`while replay was paused: closing ${paused}`)
  // Replayed: the check sees the count's change, and the report is computed again.
  await sql(standby.urlOf('postgres'), 'SELECT pg_wal_replay_resume()')
  await eventually(async () => (await closing()) === 7)
})
