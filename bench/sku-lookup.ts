import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { sql } from 'kysely'
import { CLI, runCli } from '../test/helpers/server-process.js'
import { scratchPostgres } from '../test/helpers/context.js'
import { DEFAULT_DATABASE_TIMEOUTS, openPostgres } from '../src/platform/db/connect.js'
import type { Tenant } from '../src/platform/db/database.js'
import { itemsDepletedAt } from '../src/inventory/sale-usage.js'
import { type ApiTarget, call, onDatabase, progress, seedMappedItems } from './api-seeding.js'
import { referenceMs } from './machine-speed.js'
import { startQuietServer } from './processes.js'

/**
 * The SKU lookup every sales import makes (`skuItemsAt`: per distinct sold (item, location) pair, the live
 * item of its SKU there) on a PostgreSQL database without planner statistics (a young server, or a first
 * import before autoanalyze) and on the same database analyzed, this build against another build's `dist/`
 * (BENCH_BEFORE), alternated in one run. A bar of BENCH_PAIRS items (default 5,000) at main_bar, each
 * mapped from its own POS item, the first BENCH_FEW_PAIRS of them (default 500) stocked at a second
 * location too (patio), is seeded through the API of a server on a scratch database whose tables
 * autovacuum may not analyze; then:
 * - the lookup (`itemsDepletedAt`, which makes it) of every item sold at main_bar, and of the first
 *   BENCH_FEW_PAIRS sold at patio, called in this process by both builds, the order alternating, their
 *   answers compared: BENCH_ROUNDS times each without statistics (default 3), then after ANALYZE
 *   BENCH_ANALYZED_ROUNDS times (default 15) after a pair left out (the first statements after ANALYZE
 *   read the new statistics);
 * - an import of one line per POS item (BENCH_PAIRS distinct pairs) through `POST /v1/sales`, by a server
 *   of each build on a copy of the seeded database of its own (so each import is the first), without
 *   statistics and analyzed, BENCH_IMPORT_ROUNDS times each (default 2), alternating.
 * The statement timeout is raised to 10 minutes, so a stalled lookup is timed rather than cut.
 * Run: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres BENCH_BEFORE=<the other build's dist>
 * node dist/bench/sku-lookup.js` (the other build's `dist/` needs a `node_modules` beside it and the
 * migrations at `../migrations`). Every database it made is dropped at the end.
 */

const PAIRS = Number(process.env.BENCH_PAIRS ?? 5000)
const FEW_PAIRS = Number(process.env.BENCH_FEW_PAIRS ?? 500)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const ANALYZED_ROUNDS = Number(process.env.BENCH_ANALYZED_ROUNDS ?? 15)
const IMPORT_ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 2)
const STATEMENT_TIMEOUT_MS = 600_000
const SEEDING_IN_FLIGHT = 4

const adminUrl = process.env.DATABASE_URL
const otherBuild = process.env.BENCH_BEFORE
if (!adminUrl || !otherBuild) throw new Error('DATABASE_URL=<a PostgreSQL server> and BENCH_BEFORE=<another build’s dist directory> are required')
const otherCli = resolve(otherBuild, 'src/cli/main.js')
if (!existsSync(otherCli)) throw new Error(`no ${otherCli}`)
const other = (await import(pathToFileURL(resolve(otherBuild, 'src/inventory/sale-usage.js')).href)) as { itemsDepletedAt: typeof itemsDepletedAt }
const builds = { before: { lookup: other.itemsDepletedAt, cli: otherCli }, after: { lookup: itemsDepletedAt, cli: CLI } }
type Side = keyof typeof builds
/** The two sides in the order of round `round`: after first in even rounds. */
const sidesOf = (round: number): Side[] => (round % 2 === 0 ? ['after', 'before'] : ['before', 'after'])

const serverEnv = (url: string) => ({
  DATABASE_URL: url,
  BARSTOCK_DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
  BARSTOCK_RATE_LIMIT_SANDBOX: '100000000',
  BARSTOCK_RATE_LIMIT_PRODUCTION: '100000000',
})

/** Autovacuum may not analyze any table of the database (the server here runs with it off anyway). */
async function keepFromAnalyzing(url: string): Promise<void> {
  await onDatabase(url, async (client) => {
    const tables = await client.query<{ name: string }>(`SELECT relname AS name FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace`)
    for (const { name } of tables.rows) await client.query(`ALTER TABLE "${name}" SET (autovacuum_enabled = false)`)
  })
}

/** Columns of inventory_items the planner has statistics for (0: never analyzed). */
const itemStatistics = (url: string) =>
  onDatabase(url, async (client) => Number((await client.query(`SELECT count(*) FROM pg_stats WHERE tablename = 'inventory_items'`)).rows[0].count))

/** The first `count` SKUs of seedMappedItems stocked at a second location, patio, by the case of 6. */
async function stockAtPatio(server: ApiTarget, count: number): Promise<void> {
  await call(server, 'POST', '/v1/locations', { id: 'patio', name: 'Patio' })
  for (let index = 0; index < count; index++) {
    await call(server, 'POST', '/v1/inventory/items', {
      name: `Bench spirit ${index} case`,
      sku: `BENCH-${index}`,
      category: 'spirits',
      quantity: 2,
      unit: 'case',
      case_size: 6,
      size_ml: 750,
      location: 'patio',
    })
  }
}

interface Seeded {
  url: string
  key: string
  connectionId: string
  tenant: Tenant
  itemIds: string[]
}

async function seed(url: string): Promise<Seeded> {
  const env = serverEnv(url)
  const server = await startQuietServer(env)
  try {
    await keepFromAnalyzing(url)
    const created = await runCli(['keys', 'create', '--name', 'bench', '--permissions', '*', '--sandbox', '--json'], env)
    if (created.code !== 0) throw new Error(`keys create failed: ${created.stderr}`)
    const key = (JSON.parse(created.stdout) as { key: string }).key
    const target = { url: server.url, key }
    const { connectionId, itemIds } = await seedMappedItems(target, PAIRS, 'L8BENCHSKU01', SEEDING_IN_FLIGHT)
    await stockAtPatio(target, FEW_PAIRS)
    const accountId = await onDatabase(url, async (client) => (await client.query<{ id: string }>('SELECT id FROM accounts')).rows[0]?.id as string)
    return { url, key, connectionId, itemIds, tenant: { accountId, environment: 'sandbox' } }
  } finally {
    await server.stop()
  }
}

/** A database of its own copied from the one at `url` (which no session may be connected to), dropped by `drop`. */
async function copyOf(url: string): Promise<{ url: string; drop: () => Promise<unknown> }> {
  const admin = adminUrl as string
  const name = `barstock_sku_import_${process.pid}_${randomBytes(4).toString('hex')}`
  await onDatabase(admin, (client) => client.query(`CREATE DATABASE ${name} TEMPLATE ${new URL(url).pathname.slice(1)}`))
  const target = new URL(admin)
  target.pathname = `/${name}`
  return { url: target.toString(), drop: () => onDatabase(admin, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number

/** The lookup of `pairs` by both builds, alternated, after `warmUp` rounds left out; answers compared. Answers the median wall ms of each. */
async function lookups(seeded: Seeded, pairs: { itemId: string; location: string }[], rounds: number, warmUp: number): Promise<Record<Side, number>> {
  const handle = await openPostgres(seeded.url, 2, undefined, { ...DEFAULT_DATABASE_TIMEOUTS, statementMs: STATEMENT_TIMEOUT_MS })
  try {
    await sql`SELECT 1`.execute(handle.db) // connected before the first lookup is timed
    const walls: Record<Side, number[]> = { before: [], after: [] }
    for (let round = 0; round < warmUp + rounds; round++) {
      const answers: string[] = []
      for (const side of sidesOf(round)) {
        const start = performance.now()
        const depleted = await builds[side].lookup(handle.db, seeded.tenant, pairs)
        if (round >= warmUp) walls[side].push(performance.now() - start)
        answers.push(JSON.stringify(pairs.map((pair) => depleted(pair.itemId, pair.location))))
      }
      if (answers[0] !== answers[1]) throw new Error(`the two builds answered differently in round ${round}`)
    }
    return { before: median(walls.before), after: median(walls.after) }
  } finally {
    await handle.close()
  }
}

/** The first import of one line per POS item, by `side`'s server on a copy of the seeded database; wall ms. */
async function firstImport(seeded: Seeded, side: Side, analyzed: boolean): Promise<number> {
  const copy = await copyOf(seeded.url)
  try {
    if (analyzed) await onDatabase(copy.url, (client) => client.query('ANALYZE'))
    const server = await startQuietServer(serverEnv(copy.url), [], [], builds[side].cli)
    try {
      const target: ApiTarget = { url: server.url, key: seeded.key }
      const soldAt = new Date(Date.now() - 60_000).toISOString()
      const sales = seeded.itemIds.map((_, index) => ({
        location: 'main_bar',
        pos_item_id: `PLU-${index}`,
        name: `Bench spirit ${index} 1.5oz`,
        quantity: 1,
        unit_price: 8,
        sold_at: soldAt,
        line_id: `SKU-${index}`,
      }))
      const start = performance.now()
      await call(target, 'POST', '/v1/sales', { connection_id: seeded.connectionId, sales }, 0)
      return performance.now() - start
    } finally {
      await server.stop()
    }
  } finally {
    await copy.drop()
  }
}

async function imports(seeded: Seeded, analyzed: boolean): Promise<Record<Side, number>> {
  const walls: Record<Side, number[]> = { before: [], after: [] }
  for (let round = 0; round < IMPORT_ROUNDS; round++) {
    for (const side of sidesOf(round)) walls[side].push(await firstImport(seeded, side, analyzed))
  }
  return { before: median(walls.before), after: median(walls.after) }
}

const rows: string[] = []
function row(what: string, state: string, walls: Record<Side, number>): void {
  const line = `| ${what} | ${state} | ${walls.before.toFixed(1)} | ${walls.after.toFixed(1)} | ${(walls.after / walls.before).toFixed(3)} |`
  progress(line)
  rows.push(line)
}

const database = await scratchPostgres(adminUrl, 'barstock_sku_bench')
try {
  const reference = referenceMs()
  const seeded = await seed(database.url)
  progress(`${PAIRS} items mapped; inventory_items has statistics for ${await itemStatistics(database.url)} columns`)
  const atBar = seeded.itemIds.map((itemId) => ({ itemId, location: 'main_bar' }))
  const atPatio = seeded.itemIds.slice(0, FEW_PAIRS).map((itemId) => ({ itemId, location: 'patio' }))
  for (const analyzed of [false, true]) {
    const state = analyzed ? 'analyzed' : 'no statistics'
    const [rounds, warmUp] = analyzed ? [ANALYZED_ROUNDS, 1] : [ROUNDS, 0]
    row(`lookup, ${PAIRS} pairs, sold where stocked`, state, await lookups(seeded, atBar, rounds, warmUp))
    row(`lookup, ${FEW_PAIRS} pairs, sold at patio (its SKU's case there)`, state, await lookups(seeded, atPatio, rounds, warmUp))
    row(`first import, ${PAIRS} lines`, state, await imports(seeded, analyzed))
    if (!analyzed) await onDatabase(database.url, (client) => client.query('ANALYZE'))
  }
  console.log(
    `\nPostgreSQL, ${PAIRS} items mapped at one location; ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}; reference workload ${reference.toFixed(0)} ms before, ${referenceMs().toFixed(0)} ms after; load ${loadavg()
      .map((load) => load.toFixed(2))
      .join(', ')}; medians of ${ROUNDS} lookups (${ANALYZED_ROUNDS} analyzed) and ${IMPORT_ROUNDS} imports a side, alternated\n`,
  )
  console.log(`| measured | database | other build ms | this build ms | this ÷ other |\n|---|---|---:|---:|---:|\n${rows.join('\n')}`)
} finally {
  await database.drop()
}
