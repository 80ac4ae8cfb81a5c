import { fork } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { runCli } from '../test/helpers/server-process.js'
import { type CpuShareGroup, cpuShareGroup, cpuSharesAvailable } from './cpu-share.js'
import { progress } from './api-seeding.js'
import { runLoad, startQuietServer } from './processes.js'
import type { LoadResult } from './load-worker.js'
import { DAY_MS } from '../src/platform/zoned-time.js'

/**
 * The analytics reports as on a slower machine (issue 24: "on a machine as slow as this one was, the
 * reference figure tells"). On a database the analytics bench kept (`BENCH_KEEP=1`, 1,000 items), the
 * server runs as `npm start` starts it; for each share of BENCH_CPU_SHARES (default `1,0.4`; 1 = no
 * limit) the server process and its PostgreSQL backends are each held to that share of a core
 * (bench/cpu-share.ts), the machine-speed reference is timed in a process held the same way, and the
 * 30-day variance report of `main_bar` and the 7-day forecast are measured. The reference tells how slow
 * the machine was made; the p50s are then read against it.
 *
 * Hits: the same request over and over by a third process, one connection, BENCH_SECONDS (default 20)
 * each (all but the first answered from the report cache; /metrics counts them). After a settings write:
 * each request preceded by PUT /v1/settings of the currency it has (a real write, the trigger logs it as
 * a change of every item's context, the data stays as it was), untimed, then the request timed alone;
 * BENCH_MISS_ROUNDS (default 4) rounds of BENCH_MISS_REQUESTS (default 5) per report, alternating between
 * this server (the variance report made again in its context) and a second one on the same database with
 * BARSTOCK_REPORT_CACHE_MB=0 (every report computed whole, the cold path, as after a write that reaches
 * every item's history: a count of the whole bar). After a
 * sale: each request preceded by one sale line sold now, imported through POST /v1/sales (untimed), as a
 * bar's POS sync during service writes them; the variance report's period ended yesterday, so the sale
 * cannot reach it; over the 30 days to today it reaches only the report's data quality, made again
 * alone; the forecast reads the stock it moves (the hits among them are counted). After a count of one
 * item, or waste of one item (untimed, the next item of main_bar's each time): the variance report makes
 * that item's part again beside the others; the forecast computes whole. After a rename of one item
 * (untimed, a mark added to its name or taken off): the variance report is made again in its context.
 *
 * Run (root, cgroup v1 `cpu`): `DATABASE_URL=<the kept database's URL> node dist/bench/slow-reports.js`.
 */

/** What a bench rename adds to an item's name, and takes off again. */
const RENAMED = ' (renamed)'

/** Milliseconds of timed requests, as percentiles. */
interface Timed {
  p50: number
  p99: number
  count: number
}

interface ReportFigures {
  hits: LoadResult
  /** After a settings write, with the cache on (its context made again), and the same requests to the server without it (computed whole). */
  afterSettings: AfterWrites
  uncached: Timed
  /** Each request after a write of the kind, and how many of them the cache answered whole, or with a part made again. */
  after: Record<WriteKind, AfterWrites>
}

type AfterWrites = Timed & { hits: number; refreshes: number }

/** The writes made before each timed request: a sale line sold now, a count of one item, waste of one item, a new name for one item. */
const WRITE_KINDS = ['a sale', 'a count of one item', 'waste of one item', 'a rename of one item'] as const
type WriteKind = (typeof WRITE_KINDS)[number]

interface ShareRow {
  share: number
  referenceMs: number
  loadAverage: number
  variance: ReportFigures
  /** The same report over the 30 days to today: a sale since its counts makes its data quality again. */
  varianceToday: ReportFigures
  forecast: ReportFigures
}

function timed(samples: number[]): Timed {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (fraction: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN)
  return { p50: at(0.5), p99: at(0.99), count: sorted.length }
}

/** One GET timed to its last byte; throws unless 200. */
async function timeRequest(url: string, headers: Record<string, string>): Promise<number> {
  const started = performance.now()
  const response = await fetch(url, { headers })
  await response.arrayBuffer()
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`)
  return performance.now() - started
}

const METRICS_TOKEN = 'slow-reports-metrics-token-24'

/** The report cache's hit and miss counts of a server (GET /metrics). */
/** The live items of a location with their stock on hand (the bench counts them as they stand). */
interface BenchItem {
  id: string
  name: string
  quantity: number
}

async function itemsAt(url: string, headers: Record<string, string>, location: string): Promise<BenchItem[]> {
  const items: BenchItem[] = []
  let next: string | null = `/v1/inventory/items?location=${location}&per_page=100`
  while (next) {
    const answer = (await (await fetch(`${url}${next}`, { headers })).json()) as { data: BenchItem[]; pagination: { next_page_url: string | null } }
    items.push(...answer.data.map(({ id, name, quantity }) => ({ id, name, quantity })))
    next = answer.pagination.next_page_url
  }
  return items
}

async function cacheLookups(url: string): Promise<{ hit: number; refresh: number; miss: number }> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()
  const count = (outcome: string) => Number(new RegExp(`barstock_report_cache_lookups_total\\{outcome="${outcome}"\\} (\\d+)`).exec(text)?.[1] ?? 0)
  return { hit: count('hit'), refresh: count('refresh'), miss: count('miss') }
}

/** The reference workload timed in a process of its own, placed in `group` before it starts. */
function referenceIn(group: CpuShareGroup): Promise<number> {
  const child = fork(new URL('./reference-process.js', import.meta.url))
  group.add(child.pid as number)
  return new Promise((resolve, reject) => {
    child.once('message', (ms) => resolve(ms as number))
    child.once('error', reject)
    child.send('go')
  })
}

/**
 * Keeps every backend of the database at `url` in `group`: the server's pool opens them when it needs
 * them, so they are looked for every 200 ms. Parallel query workers, which live a statement long, may be
 * missed: the bench's database is small enough that its reports run none (EXPLAIN shows no Gather).
 */
async function followBackends(url: string, group: CpuShareGroup): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const placed = new Set<number>()
  const sweep = async () => {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')
    for (const { pid } of rows.filter((row) => !placed.has(row.pid))) if (group.add(pid)) placed.add(pid)
  }
  await sweep()
  const timer = setInterval(() => void sweep().catch(() => {}), 200)
  return async () => {
    clearInterval(timer)
    await client.end()
  }
}

async function measureShares(databaseUrl: string, shares: number[]): Promise<ShareRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'barstock-slow-'))
  const env = {
    DATABASE_URL: databaseUrl,
    BARSTOCK_DATA_DIR: dataDir,
    BARSTOCK_RATE_LIMIT_SANDBOX: '100000000',
    BARSTOCK_RATE_LIMIT_PRODUCTION: '100000000',
    BARSTOCK_METRICS_TOKEN: METRICS_TOKEN,
  }
  const keys = await runCli(['keys', 'create', '--name', 'slow-reports', '--permissions', '*', '--sandbox', '--json'], env)
  if (keys.code !== 0) throw new Error(`keys create failed: ${keys.stderr}`)
  const headers = { 'x-api-key': (JSON.parse(keys.stdout) as { key: string }).key }
  const server = await startQuietServer(env)
  const uncachedServer = await startQuietServer({ ...env, BARSTOCK_REPORT_CACHE_MB: '0' })
  const groups = { server: cpuShareGroup('server'), database: cpuShareGroup('database'), reference: cpuShareGroup('reference') }
  const stopFollowing = await followBackends(databaseUrl, groups.database)
  try {
    groups.server.add(server.child.pid as number)
    groups.server.add(uncachedServer.child.pid as number)
    const now = Date.now()
    const day = (daysAgo: number) => new Date(now - daysAgo * DAY_MS).toISOString().slice(0, 10)
    const variancePath = `/v1/analytics/variance?date_from=${day(31)}&date_to=${day(1)}&location=main_bar`
    const varianceTodayPath = `/v1/analytics/variance?date_from=${day(30)}&date_to=${day(0)}&location=main_bar`
    const hits = async (path: string) => {
      const before = await cacheLookups(server.url)
      const result = await runLoad({ url: server.url, method: 'GET', paths: [path], headers, connections: 1, durationSeconds: Number(process.env.BENCH_SECONDS ?? 20) })
      if (result.errors || result.non2xx) throw new Error(`errors in the run: ${JSON.stringify(result)}`)
      const after = await cacheLookups(server.url)
      progress(`${path}: ${result.total} answers, ${after.hit - before.hit} hits and ${after.miss - before.miss} misses counted`)
      return result
    }
    const settings = (await (await fetch(`${server.url}/v1/settings`, { headers })).json()) as { data: { currency: string } }
    /** A write through the API, checked: a POST creates (201), a PUT updates (200). */
    const send = async (method: 'POST' | 'PUT', path: string, body: unknown) => {
      const response = await fetch(`${server.url}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })
      if (response.status !== (method === 'POST' ? 201 : 200)) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`)
    }
    const invalidate = () => send('PUT', '/v1/settings', { currency: settings.data.currency })
    const settingsWrites = async (path: string): Promise<{ afterSettings: AfterWrites; uncached: Timed }> => {
      const samples = { cached: [] as number[], uncached: [] as number[] }
      const before = await cacheLookups(server.url)
      for (let round = 0; round < Number(process.env.BENCH_MISS_ROUNDS ?? 4); round++) {
        for (const [side, url] of [
          ['cached', server.url],
          ['uncached', uncachedServer.url],
        ] as const) {
          for (let request = 0; request < Number(process.env.BENCH_MISS_REQUESTS ?? 5); request++) {
            await invalidate()
            samples[side].push(await timeRequest(`${url}${path}`, headers))
          }
        }
      }
      const after = await cacheLookups(server.url)
      return { afterSettings: { ...timed(samples.cached), hits: after.hit - before.hit, refreshes: after.refresh - before.refresh }, uncached: timed(samples.uncached) }
    }
    const connections = (await (await fetch(`${server.url}/v1/pos/connections`, { headers })).json()) as { data: { id: string }[] }
    const connectionId = connections.data[0]?.id
    if (!connectionId) throw new Error('the kept database has no POS connection to import a sale into')
    let salesMade = 0
    const sellNow = () => {
      const sale = { location: 'main_bar', line_id: `slow-reports-${process.pid}-${++salesMade}`, pos_item_id: 'SLOW-REPORTS-SALE', name: 'Bench sale', quantity: 1, unit_price: 5 }
      return send('POST', '/v1/sales', { connection_id: connectionId, sales: [{ ...sale, sold_at: new Date().toISOString() }] })
    }
    const items = await itemsAt(server.url, headers, 'main_bar')
    let itemsWritten = 0
    const nextItem = () => items[itemsWritten++ % items.length] as BenchItem
    const writes: Record<WriteKind, () => Promise<void>> = {
      'a sale': sellNow,
      // The item's stock as it stands: the count records no loss, but closes the item's window now.
      'a count of one item': async () => {
        const item = nextItem()
        await send('POST', '/v1/inventory/count', { location: 'main_bar', counted_by: 'slow-reports', items: [{ item_id: item.id, quantity: item.quantity }] })
      },
      'waste of one item': async () => {
        const item = nextItem()
        item.quantity -= 0.01
        await send('POST', '/v1/inventory/waste', { location: 'main_bar', recorded_by: 'slow-reports', items: [{ item_id: item.id, quantity: 0.01, reason: 'spill' }] })
      },
      // A name with a mark added, or taken off again: the report's context changed in one item.
      'a rename of one item': async () => {
        const item = nextItem()
        item.name = item.name.endsWith(RENAMED) ? item.name.slice(0, -RENAMED.length) : `${item.name}${RENAMED}`
        await send('PUT', `/v1/inventory/items/${item.id}`, { name: item.name })
      },
    }
    const afterWrites = async (path: string, write: () => Promise<void>): Promise<AfterWrites> => {
      const samples: number[] = []
      const before = await cacheLookups(server.url)
      for (let request = 0; request < Number(process.env.BENCH_MISS_ROUNDS ?? 4) * Number(process.env.BENCH_MISS_REQUESTS ?? 5); request++) {
        await write()
        samples.push(await timeRequest(`${server.url}${path}`, headers))
      }
      const after = await cacheLookups(server.url)
      return { ...timed(samples), hits: after.hit - before.hit, refreshes: after.refresh - before.refresh }
    }
    const figures = async (path: string): Promise<ReportFigures> => {
      const found = { hits: await hits(path), ...(await settingsWrites(path)) }
      const after = {} as Record<WriteKind, AfterWrites>
      for (const kind of WRITE_KINDS) after[kind] = await afterWrites(path, writes[kind])
      return { ...found, after }
    }
    const rows: ShareRow[] = []
    for (const share of shares) {
      const limit = share >= 1 ? undefined : share
      for (const group of Object.values(groups)) group.limit(limit)
      const referenceMs = await referenceIn(groups.reference)
      // Stores the windows a first report computes (both servers read the same database).
      await fetch(`${server.url}${variancePath}`, { headers })
      const variance = await figures(variancePath)
      const varianceToday = await figures(varianceTodayPath)
      const forecast = await figures('/v1/analytics/forecast?days_ahead=7')
      rows.push({ share, referenceMs, loadAverage: loadavg()[0] ?? 0, variance, varianceToday, forecast })
      progress(`share ${share}: reference ${referenceMs.toFixed(0)} ms, variance hit p50 ${variance.hits.p50} ms, after a settings write p50 ${variance.afterSettings.p50} ms`)
    }
    return rows
  } finally {
    await stopFollowing()
    await server.stop()
    await uncachedServer.stop()
    for (const group of Object.values(groups)) await group.remove()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const databaseUrl = process.env.DATABASE_URL
if (!databaseUrl) console.log('slow-reports: set DATABASE_URL to a database the analytics bench kept (BENCH_KEEP=1)')
else if (!cpuSharesAvailable()) console.log('slow-reports: no cgroup v1 cpu controller at /sys/fs/cgroup/cpu (or not root): skipped')
else {
  const shares = (process.env.BENCH_CPU_SHARES ?? '1,0.4').split(',').map(Number)
  const rows = await measureShares(databaseUrl, shares)
  console.log(`\n${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}; 30-day variance report of main_bar and 7-day forecast, one connection\n`)
  console.log(
    `| CPU share | reference ms | × unlimited | report | hit p50 | hit p99 | after a settings write: p50, p99 (hits, refreshes) | cache off (whole): p50, p99 | ${WRITE_KINDS.map((kind) => `after ${kind}: p50, p99 (hits, refreshes)`).join(' | ')} | load |`,
  )
  console.log(`|---|---|---|---|---|---|---|---|${WRITE_KINDS.map(() => '---|').join('')}---|`)
  const base = rows[0]?.referenceMs ?? 1
  for (const row of rows) {
    for (const [report, figures] of [
      ['variance', row.variance],
      ['variance to today', row.varianceToday],
      ['forecast', row.forecast],
    ] as const) {
      const { hits, afterSettings, uncached, after } = figures
      const cell = ({ p50, p99, hits: hitsAfter, refreshes, count }: AfterWrites) => `${p50}, ${p99} ms (${hitsAfter}, ${refreshes} of ${count})`
      console.log(
        `| ${row.share} | ${row.referenceMs.toFixed(0)} | ${(row.referenceMs / base).toFixed(2)} | ${report} | ${hits.p50} ms | ${hits.p99} ms | ${cell(afterSettings)} | ${uncached.p50}, ${uncached.p99} ms | ${WRITE_KINDS.map((kind) => cell(after[kind])).join(' | ')} | ${row.loadAverage.toFixed(1)} |`,
      )
    }
  }
}
