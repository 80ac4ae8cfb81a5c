import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { cpus } from 'node:os'
import Fastify, { type FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { buildApp } from '../src/app.js'
import { createServiceMetrics } from '../src/service-metrics.js'
import { loadConfig } from '../src/platform/config.js'
import type { DatabaseHandle } from '../src/platform/db/connect.js'
import { createApiKey } from '../src/platform/auth/api-keys.js'
import { PERMISSIONS } from '../src/platform/auth/permissions.js'
import { MemoryRateLimitStore, RateLimiter } from '../src/platform/rate-limit.js'
import { openTestDatabase } from '../test/helpers/context.js'
import type { LoadResult, LoadSpec } from './load-worker.js'

/**
 * Inventory benchmark: barstock's GET item, filtered list and PUT quantity against a bare Fastify
 * endpoint running the same query on the same database, in one process session, so the ratio measures
 * what barstock's platform (auth, rate limit, validation, envelope, ledger) costs.
 * Run: npm run bench (PGlite), and with DATABASE_URL set for PostgreSQL too.
 */

const ITEMS = 1000
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const DURATION = Number(process.env.BENCH_SECONDS ?? 10)
const ACCOUNT = 'acct_default'

interface Scenario {
  name: string
  method: 'GET' | 'PUT'
  barstockPaths: string[]
  baselinePaths: string[]
  bodies?: string[]
  /** Which baseline the ratio is against. */
  baseline: string
}

async function seed(database: DatabaseHandle): Promise<string[]> {
  const ids: string[] = []
  await database.db.transaction().execute(async (trx) => {
    for (let index = 0; index < ITEMS; index++) {
      const id = `item_bench_${String(index).padStart(5, '0')}`
      ids.push(id)
      await trx
        .insertInto('inventory_items')
        .values({
          id,
          account_id: ACCOUNT,
          environment: 'production',
          location_id: 'main_bar',
          name: `Bench item ${index}`,
          sku: `BENCH-${index}`,
          category: index % 2 ? 'spirits' : 'beer',
          quantity: '10',
          unit: 'bottle',
          size_ml: 750,
          case_size: null,
          reorder_point: '2',
          cost_per_unit: '12.5',
        })
        .execute()
    }
  })
  return ids
}

/** The baseline: plain Fastify, no schemas, no auth, the same SQL barstock runs. */
async function baselineServer(database: DatabaseHandle): Promise<FastifyInstance> {
  const app = Fastify()
  const db = database.db
  app.get<{ Params: { id: string } }>('/items/:id', async (request) => {
    const row = await db
      .selectFrom('inventory_items')
      .selectAll()
      .where('account_id', '=', ACCOUNT)
      .where('environment', '=', 'production')
      .where('deleted_at', 'is', null)
      .where('id', '=', request.params.id)
      .executeTakeFirst()
    return { data: row }
  })
  app.get('/items', async () => {
    const rows = await db
      .selectFrom('inventory_items')
      .selectAll()
      .select((eb) => eb.fn.countAll<number>().over().as('total'))
      .where('account_id', '=', ACCOUNT)
      .where('environment', '=', 'production')
      .where('deleted_at', 'is', null)
      .where('category', '=', 'spirits')
      .orderBy('name')
      .orderBy('id')
      .limit(50)
      .execute()
    return { data: rows }
  })
  app.put<{ Params: { id: string }; Body: { quantity: number } }>('/items/:id', async (request) => {
    await sql`UPDATE inventory_items SET quantity = ${request.body.quantity}, last_updated = now() WHERE id = ${request.params.id}`.execute(db)
    return { data: { id: request.params.id } }
  })
  // The same writes barstock's PUT must make (item, ledger row, outbox event, in one transaction), as
  // bare SQL: what the mandated ledger and outbox cost by themselves.
  app.put<{ Params: { id: string }; Body: { quantity: number } }>('/items-with-ledger/:id', async (request) => {
    const { id } = request.params
    await db.transaction().execute(async (trx) => {
      const before = await sql<{ quantity: string }>`SELECT quantity FROM inventory_items WHERE id = ${id} FOR UPDATE`.execute(trx)
      const previous = before.rows[0]!.quantity
      await sql`WITH m AS (
          INSERT INTO stock_movements (account_id, environment, item_id, kind, delta, quantity_before, quantity_after, actor, occurred_at)
          VALUES (${ACCOUNT}, 'production', ${id}, 'adjustment', ${request.body.quantity} - ${previous}::numeric, ${previous}, ${request.body.quantity}, 'bench', now())),
        e AS (
          INSERT INTO outbox_events (id, account_id, environment, kind, data)
          VALUES (${`evt_${process.hrtime.bigint()}_${Math.random()}`}, ${ACCOUNT}, 'production', 'inventory.updated', ${JSON.stringify({ item_id: id })}))
        UPDATE inventory_items SET quantity = ${request.body.quantity}, last_updated = now() WHERE id = ${id}`.execute(trx)
    })
    return { data: { id } }
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  return app
}

function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./load-worker.js', import.meta.url)), {
      env: { ...process.env, BENCH_LOAD_SPEC: JSON.stringify(spec) },
    })
    child.once('message', (result) => resolve(result as LoadResult))
    child.once('error', reject)
    child.once('exit', (code) => code === 0 || reject(new Error(`load generator exited with ${code}`)))
  })
}

function addressOf(app: FastifyInstance): string {
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('not listening')
  return `http://127.0.0.1:${address.port}`
}

async function benchmark(kind: string, database: DatabaseHandle) {
  const ids = await seed(database)
  const key = (await createApiKey(database.db, { accountId: ACCOUNT, environment: 'production', name: 'bench', permissions: [...PERMISSIONS] })).key
  const config = loadConfig({ BARSTOCK_LOG_LEVEL: 'silent', BARSTOCK_RATE_LIMIT_PRODUCTION: '100000000' })
  const barstock = await buildApp({ config, database, rateLimiter: new RateLimiter(new MemoryRateLimitStore()), metrics: createServiceMetrics(database), logger: false })
  await barstock.listen({ port: 0, host: '127.0.0.1' })
  const baseline = await baselineServer(database)
  const sample = ids.filter((_, index) => index % 7 === 0)
  const quantities = ['11', '12.5', '9', '10.25'].map((quantity) => JSON.stringify({ quantity: Number(quantity) }))
  const scenarios: Scenario[] = [
    {
      name: 'GET item by id',
      baseline: 'the same SELECT',
      method: 'GET',
      barstockPaths: sample.map((id) => `/v1/inventory/items/${id}`),
      baselinePaths: sample.map((id) => `/items/${id}`),
    },
    {
      name: 'list 50, filtered',
      baseline: 'the same SELECT',
      method: 'GET',
      barstockPaths: ['/v1/inventory/items?category=spirits&per_page=50'],
      baselinePaths: ['/items'],
    },
    {
      name: 'PUT quantity',
      baseline: 'a bare UPDATE',
      method: 'PUT',
      barstockPaths: sample.map((id) => `/v1/inventory/items/${id}`),
      baselinePaths: sample.map((id) => `/items/${id}`),
      bodies: quantities,
    },
    {
      name: 'PUT quantity',
      baseline: 'the same writes in bare SQL',
      method: 'PUT',
      barstockPaths: sample.map((id) => `/v1/inventory/items/${id}`),
      baselinePaths: sample.map((id) => `/items-with-ledger/${id}`),
      bodies: quantities,
    },
  ]
  const rows = []
  // BENCH_SCENARIOS=put (a comma-separated list of name fragments) runs only the matching scenarios.
  const only = process.env.BENCH_SCENARIOS?.split(',').map((part) => part.trim().toLowerCase())
  for (const scenario of scenarios.filter((candidate) => !only || only.some((part) => candidate.name.toLowerCase().includes(part)))) {
    const common = { method: scenario.method, connections: CONNECTIONS, durationSeconds: DURATION, ...(scenario.bodies ? { bodies: scenario.bodies } : {}) }
    const ours = await runLoad({ ...common, url: addressOf(barstock), paths: scenario.barstockPaths, headers: { 'x-api-key': key } })
    const base = await runLoad({ ...common, url: addressOf(baseline), paths: scenario.baselinePaths, headers: {} })
    if (ours.errors || ours.non2xx || base.errors || base.non2xx) {
      throw new Error(`${scenario.name}: errors in the run ${JSON.stringify({ ours, base })}`)
    }
    rows.push({ kind, scenario: scenario.name, baseline: scenario.baseline, ours, base, ratio: ours.requestsPerSecond / base.requestsPerSecond })
  }
  await barstock.close()
  await baseline.close()
  return rows
}

function table(rows: Awaited<ReturnType<typeof benchmark>>): string {
  const lines = [
    '| database | scenario | barstock req/s | p50 ms | p99 ms | baseline | baseline req/s | p50 ms | p99 ms | ratio |',
    '|---|---|---:|---:|---:|---|---:|---:|---:|---:|',
  ]
  for (const row of rows) {
    lines.push(
      `| ${row.kind} | ${row.scenario} | ${row.ours.requestsPerSecond.toFixed(0)} | ${row.ours.p50} | ${row.ours.p99} | ${row.baseline} | ${row.base.requestsPerSecond.toFixed(0)} | ${row.base.p50} | ${row.base.p99} | ${row.ratio.toFixed(2)} |`,
    )
  }
  return lines.join('\n')
}

async function main() {
  const rows = []
  const url = process.env.DATABASE_URL
  const kinds = url ? ['postgres', 'pglite'] : ['pglite']
  for (const kind of kinds) {
    if (kind === 'pglite') delete process.env.DATABASE_URL
    else process.env.DATABASE_URL = url
    const database = await openTestDatabase()
    try {
      rows.push(...(await benchmark(kind, database)))
    } finally {
      await database.close()
    }
  }
  process.stdout.write(`\n${CONNECTIONS} connections, ${DURATION} s per run, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}\n\n`)
  process.stdout.write(`${table(rows)}\n`)
}

await main()
