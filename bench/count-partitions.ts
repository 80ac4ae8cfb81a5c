import { existsSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { resolve } from 'node:path'
import { CLI, runCli } from '../test/helpers/server-process.js'
import { scratchPostgres } from '../test/helpers/context.js'
import { DAY_MS } from '../src/platform/zoned-time.js'
import { type ApiTarget, benchSaleLine, call, onDatabase, progress, random, seedMappedItems, vacuumAnalyze } from './api-seeding.js'
import { referenceMs } from './machine-speed.js'
import { type BenchServer, startQuietServer } from './processes.js'

/**
 * A count on a database partitioned over many months (issue 25, item 2), this build against another
 * build's `dist/` (BENCH_BEFORE), alternated request by request in one run: both builds' servers on the
 * same database, which holds BENCH_MONTHS months (default 30) of a bar's history seeded through the API
 * (BENCH_ITEMS mapped items, default 10, counted on the 15th of every month, BENCH_LINES_PER_DAY sale
 * lines a day, default 20, imported month by month after each count), the months then moved into their partitions (`maintain_month_partitions`, as
 * the service's worker does) and the database vacuumed and analyzed. Then BENCH_COUNTS counts of every
 * item by each build (default 40), the order alternating pair by pair: each closes the window the
 * previous one opened, as a bar counting often does, so its statements need only this month's partition.
 * Run: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres BENCH_BEFORE=<the other build's dist>
 * node dist/bench/count-partitions.js` (the other build's `dist/` needs a `node_modules` beside it and
 * the migrations at `../migrations`). BENCH_KEEP=1 keeps the database (its URL is printed) and
 * BENCH_REUSE=<that URL> measures it again without seeding.
 */

const MONTHS = Number(process.env.BENCH_MONTHS ?? 30)
const ITEMS = Number(process.env.BENCH_ITEMS ?? 10)
const LINES_PER_DAY = Number(process.env.BENCH_LINES_PER_DAY ?? 20)
const COUNTS = Number(process.env.BENCH_COUNTS ?? 40)

const adminUrl = process.env.DATABASE_URL
const otherBuild = process.env.BENCH_BEFORE
if (!adminUrl || !otherBuild) throw new Error('DATABASE_URL=<a PostgreSQL server> and BENCH_BEFORE=<another build’s dist directory> are required')
const otherCli = resolve(otherBuild, 'src/cli/main.js')
if (!existsSync(otherCli)) throw new Error(`no ${otherCli}`)
type Side = 'before' | 'after'

const serverEnv = (url: string) => ({ DATABASE_URL: url, BARSTOCK_RATE_LIMIT_SANDBOX: '100000000', BARSTOCK_RATE_LIMIT_PRODUCTION: '100000000' })

/**
 * BENCH_MONTHS months of a bar's history in the order it happens: each month a count of every item on
 * the 15th, then the sales up to the next count imported. The items are made today, so they are dated
 * back to the history's start in the database (as if made then): otherwise every earlier sale and count
 * would be history before their anchor, and the ledger would hold this month alone.
 */
async function seedHistory(server: ApiTarget, url: string, now: number): Promise<void> {
  const { connectionId, itemIds } = await seedMappedItems(server, ITEMS, 'L8BENCHCNT01')
  const start = new Date(now - MONTHS * 30 * DAY_MS)
  await onDatabase(url, (client) => client.query('UPDATE inventory_items SET created_at = $1, anchored_at = $1, last_updated = $1', [start]))
  const countTime = (month: number) => Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + month, 15, 10)
  const counted = random(7)
  const next = random(42)
  let lines = 0
  for (let month = 0; month < MONTHS; month++) {
    const items = itemIds.map((item_id) => ({ item_id, quantity: Math.round(counted() * 200) / 10 }))
    await call(server, 'POST', '/v1/inventory/count', { location: 'main_bar', counted_by: 'bench', counted_at: new Date(countTime(month)).toISOString(), items })
    const from = countTime(month)
    const to = Math.min(countTime(month + 1), now - 3_600_000)
    const sales = Array.from({ length: Math.round(((to - from) / DAY_MS) * LINES_PER_DAY) }, (_, index) =>
      benchSaleLine(next, ITEMS, `L${lines + index}`, () => from + 1 + next() * (to - from - 1)),
    )
    lines += sales.length
    await call(server, 'POST', '/v1/sales', { connection_id: connectionId, sales })
  }
  progress(`${MONTHS} monthly counts of ${ITEMS} items, ${lines} sale lines`)
}

/** A key for the database's bench account (made once, stored in the database). */
async function benchKey(url: string): Promise<string> {
  const created = await runCli(['keys', 'create', '--name', 'bench', '--permissions', '*', '--sandbox', '--json'], serverEnv(url))
  if (created.code !== 0) throw new Error(`keys create failed: ${created.stderr}`)
  return (JSON.parse(created.stdout) as { key: string }).key
}

async function seed(url: string, key: string): Promise<void> {
  const server = await startQuietServer(serverEnv(url))
  try {
    await seedHistory({ url: server.url, key }, url, Date.now())
  } finally {
    await server.stop()
  }
  const moved = await onDatabase(url, (client) => client.query('SELECT maintain_month_partitions(3)'))
  progress(`${moved.rowCount} partitions made`)
  await vacuumAnalyze(url)
}

/** The monthly partitions of each partitioned table, DEFAULT included. */
const partitions = (url: string) =>
  onDatabase(url, async (client) => {
    const result = await client.query<{ parent: string; partitions: string }>(
      `SELECT p.relname AS parent, count(*)::text AS partitions FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
       WHERE p.relkind = 'p' GROUP BY p.relname ORDER BY p.relname`,
    )
    return result.rows.map((row) => `${row.parent} ${row.partitions}`).join(', ')
  })

async function counts(servers: Record<Side, BenchServer>, key: string, itemIds: string[]): Promise<Record<Side, number[]>> {
  const walls: Record<Side, number[]> = { before: [], after: [] }
  const quantity = random(11)
  for (let pair = 0; pair < COUNTS; pair++) {
    for (const side of pair % 2 === 0 ? (['after', 'before'] as const) : (['before', 'after'] as const)) {
      const items = itemIds.map((item_id) => ({ item_id, quantity: Math.round(quantity() * 200) / 10 }))
      const start = performance.now()
      await call({ url: servers[side].url, key }, 'POST', '/v1/inventory/count', { location: 'main_bar', counted_by: 'bench', items }, 0)
      walls[side].push(performance.now() - start)
    }
  }
  return walls
}

const reused = process.env.BENCH_REUSE
const database = reused ? { url: reused, drop: async () => {} } : await scratchPostgres(adminUrl, 'barstock_count_bench')
try {
  const key = await benchKey(database.url)
  if (!reused) await seed(database.url, key)
  progress(`partitions: ${await partitions(database.url)}`)
  const itemIds = await onDatabase(database.url, async (client) => (await client.query<{ id: string }>('SELECT id FROM inventory_items ORDER BY id')).rows.map((row) => row.id))
  const reference = referenceMs()
  const servers = { before: await startQuietServer(serverEnv(database.url), [], [], otherCli), after: await startQuietServer(serverEnv(database.url), [], [], CLI) }
  try {
    const walls = await counts(servers, key, itemIds)
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number
    const ratios = walls.after.map((wall, index) => wall / (walls.before[index] as number))
    console.log(
      `\nPostgreSQL, ${itemIds.length} items a count, ${COUNTS} counts a build alternated; ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}; reference workload ${reference.toFixed(0)} ms before, ${referenceMs().toFixed(0)} ms after; load ${loadavg()
        .map((load) => load.toFixed(2))
        .join(', ')}`,
    )
    console.log(
      `count p50: other build ${median(walls.before).toFixed(1)} ms, this build ${median(walls.after).toFixed(1)} ms; ratio of the p50s ${(median(walls.after) / median(walls.before)).toFixed(3)}, median of the pairs' ratios ${median(ratios).toFixed(3)}`,
    )
  } finally {
    await Promise.all([servers.before.stop(), servers.after.stop()])
  }
} finally {
  if (process.env.BENCH_KEEP === '1') progress(`kept ${database.url}`)
  else await database.drop()
}
