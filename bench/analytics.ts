import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { LoadResult } from './load-worker.js'
import { scratchPostgres } from '../test/helpers/context.js'
import { analyzeStatistics, benchSaleLine, call, forecastsSettled, progress, random, seedMappedItems, vacuumAnalyze } from './api-seeding.js'
import { referenceMs } from './machine-speed.js'
import { runLoad } from './processes.js'
import { DAY_MS } from '../src/platform/zoned-time.js'

/**
 * Analytics benchmark: a bar of 1,000 items with a year of history (weekly counts, N sale lines spread
 * over 365 days), seeded through the API of a real server process started as `npm start` starts it,
 * then, once the background forecast refit has settled, the 30-day variance report of all items and the
 * 7-day forecast of all items measured by a load generator in a third process. Then (issue 20) a transfer
 * out to a storeroom, a transfer back in and a waste entry are recorded through the API in every count
 * window of every item the report reads (BENCH_OPERATION_WEEKS, default 13: the report's own windows and
 * the cause rules' earlier ones), and the report is measured again: the ratio of the two p50s is printed,
 * with a fixed CPU workload timed before each measurement as the machine-speed reference. Both
 * measurements ask for the bar's report (`location=main_bar`: the storeroom items the transfers create are
 * not part of it), 1,000 items either way. BENCH_OPERATION_WEEKS=0 skips the second measurement.
 * Run: `npm run bench:analytics` (PGlite), and with DATABASE_URL for PostgreSQL. BENCH_LINES picks the
 * sizes (default 50000,5000000 on PostgreSQL, 50000 on PGlite). BENCH_KEEP=1 keeps the PostgreSQL database
 * (its URL is printed); BENCH_REUSE=<that URL> measures it again without seeding (BENCH_LINES then only
 * labels the row), for profiling or for measuring a later commit on the same data. A PostgreSQL database
 * is vacuumed and analyzed before it is measured (vacuumAnalyze), and analyzed while it is seeded
 * (analyzeStatistics: after the items, then each time the lines grew by half). Sales are imported
 * BENCH_LINES_PER_IMPORT lines a request (default 10,000, the endpoint's limit), BENCH_IMPORTS_IN_FLIGHT
 * requests at once (default 3: one's JSON is parsed and checked while another holds the connection's lock).
 * BENCH_COUNTS picks the weekly counts: `following` (default) counts that follow the sales and the
 * transfers and waste with a shrinkage rate per item, so that about one item in ten is above the 5 %
 * threshold, as in a bar (the transfers and waste are then recorded as part of the seeding and the report
 * measured once); `random` the earlier sessions' counts of a random stream, against which 999 of the
 * 1,000 items are flagged at hundreds of per cent (the worst case for the cause rules), measured before
 * and after the transfers and waste.
 */

const ITEMS = 1000
const DAYS = 365
/** The import endpoint's limit (10,000 lines a request). */
const LINES_PER_IMPORT = Number(process.env.BENCH_LINES_PER_IMPORT ?? 10_000)
/** Imports sent at once (several clients of one bar's POS), so the server's cores and the database's work in parallel. */
const IMPORTS_IN_FLIGHT = Number(process.env.BENCH_IMPORTS_IN_FLIGHT ?? 3)
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url))
const run = promisify(execFile)

interface Server {
  url: string
  key: string
  stop(): Promise<void>
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const fullEnv = {
    ...process.env,
    ...env,
    PORT: '0',
    HOST: '127.0.0.1',
    BARSTOCK_LOG_LEVEL: 'warn',
    BARSTOCK_RATE_LIMIT_SANDBOX: '100000000',
    BARSTOCK_RATE_LIMIT_PRODUCTION: '100000000',
  }
  const child = spawn(process.execPath, [CLI, 'serve'], { env: { ...fullEnv, BARSTOCK_LOG_LEVEL: 'info' } })
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (match) resolve(match[1] as string)
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)))
  })
  child.stdout.removeAllListeners('data')
  child.stderr.removeAllListeners('data')
  const { stdout } = await run(process.execPath, [CLI, 'keys', 'create', '--name', 'bench', '--permissions', '*', '--sandbox', '--json'], { env: fullEnv })
  const key = (JSON.parse(stdout) as { key: string }).key
  return {
    url,
    key,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

interface SeededBar {
  /** When the last sales were imported. */
  lastImport: Date
  itemIds: string[]
  /** The weekly counts' times, oldest first. */
  countTimes: number[]
}

/** The year of sale lines, in imports of LINES_PER_IMPORT drawn in order from one random stream, so the data do not depend on timing. */
function saleLineSource(lines: number, start: number) {
  const next = random(42)
  let drawn = 0
  return {
    exhausted: () => drawn >= lines,
    nextImport() {
      const first = drawn
      const count = Math.min(LINES_PER_IMPORT, lines - first)
      drawn += count
      return Array.from({ length: count }, (_, index) => benchSaleLine(next, ITEMS, `L${first + index}`, () => start + next() * (DAYS * DAY_MS - DAY_MS)))
    },
  }
}

/**
 * The weekly counts' quantities, one array of ITEMS per count time. `random`: each item's count of a
 * random stream of its own (0–20 bottles), against which nearly every item is far above any threshold
 * (the worst case: every cause rule runs for every item). `following`: counts that follow the sales, as
 * a bar's do (followingCounts).
 */
function countQuantities(mode: string, lines: number, start: number, countTimes: number[], operationWeeks: number): number[][] {
  if (mode === 'following') return followingCounts(usageByWindow(saleLineSource(lines, start), countTimes), countTimes.length - operationWeeks)
  if (mode !== 'random') throw new Error(`BENCH_COUNTS must be following or random, not ${mode}`)
  const counted = random(7)
  return countTimes.map(() => Array.from({ length: ITEMS }, () => Math.round(counted() * 200) / 10))
}

/** Pours each item sold in each count window (index w: from count w − 1 to count w; 0 before the first). */
function usageByWindow(source: ReturnType<typeof saleLineSource>, countTimes: number[]): Float64Array[] {
  const pours = countTimes.map(() => new Float64Array(ITEMS))
  while (!source.exhausted()) {
    for (const line of source.nextImport()) {
      const soldAt = Date.parse(line.sold_at)
      const window = countTimes.findIndex((countedAt) => soldAt < countedAt)
      const sold = pours[window]
      const item = Number(line.pos_item_id.slice('PLU-'.length))
      if (sold) sold[item] = (sold[item] as number) + line.quantity
    }
  }
  return pours
}

/** One pour in bottles: 1.5 oz of a 750 ml bottle, as the mappings (conversion_factor 1.5) convert it. */
const BOTTLES_PER_POUR = 0.059147
/** recordOperations' transfers and spill: what each of its windows takes from an item at main_bar, in bottles. */
const TRANSFERRED_OUT = 1
const TRANSFERRED_BACK = 0.5
const SPILL_OZ = 1
const OPERATIONS_BOTTLES = TRANSFERRED_OUT - TRANSFERRED_BACK + (SPILL_OZ * 29.5735) / 750

/**
 * Counts that follow the sales: each item loses its sold pours plus a shrinkage rate of its own in every
 * window (nine in ten items within −2…+3 %, under the default 5 % threshold; 7 % lose 8–15 %; 3 % lose
 * 25–40 %), and from count `operationsFrom` on also recordOperations' net move out and spill. Counted to
 * a hundredth of a bottle (an open bottle weighed), from an opening stock that lasts the year.
 */
function followingCounts(pours: Float64Array[], operationsFrom: number): number[][] {
  const shrinkage = random(11)
  const rates = Array.from({ length: ITEMS }, () => {
    const band = shrinkage()
    const within = shrinkage()
    if (band < 0.9) return -0.02 + within * 0.05
    return band < 0.97 ? 0.08 + within * 0.07 : 0.25 + within * 0.15
  })
  const yearSold = (item: number) => pours.reduce((total, window) => total + (window[item] as number) * BOTTLES_PER_POUR, 0)
  const stock = Array.from({ length: ITEMS }, (_, item) => 10 + 1.5 * yearSold(item) + pours.length * OPERATIONS_BOTTLES)
  return pours.map((window, index) =>
    stock.map((quantity, item) => {
      if (index === 0) return Math.round(quantity * 100) / 100
      const used = (window[item] as number) * BOTTLES_PER_POUR * (1 + (rates[item] as number))
      const left = quantity - used - (index >= operationsFrom ? OPERATIONS_BOTTLES : 0)
      stock[item] = left
      return Math.round(left * 100) / 100
    }),
  )
}

/** 1,000 items mapped one POS item each, a year of sales spread over them, and weekly counts of all (BENCH_COUNTS, default following). */
async function seedBar(server: Server, lines: number, now: number, databaseUrl: string | undefined, counts: string, operationWeeks: number): Promise<SeededBar> {
  const { connectionId, itemIds } = await seedMappedItems(server, ITEMS, 'L8BENCH0001')
  progress(`${ITEMS} items mapped`)
  if (databaseUrl) await analyzeStatistics(databaseUrl)
  const start = now - DAYS * DAY_MS
  // The weekly counts first, then the year of sales imported into them (as a bar that moves to barstock
  // imports its POS history): a count of 1,000 items after the sales took 15 s at load 25, and 53 of them
  // beside the imports made both wait past the statement timeout.
  const countTimes = Array.from({ length: Math.floor(DAYS / 7) + 1 }, (_, week) => start + week * 7 * DAY_MS + 10 * 3_600_000)
  const quantities = countQuantities(counts, lines, start, countTimes, operationWeeks)
  for (const [week, countedAt] of countTimes.entries()) {
    const items = itemIds.map((item_id, item) => ({ item_id, quantity: (quantities[week] as number[])[item] as number }))
    await call(server, 'POST', '/v1/inventory/count', { location: 'main_bar', counted_by: 'bench', counted_at: new Date(countedAt).toISOString(), items })
    if (week % 10 === 0) progress(`${week + 1} weekly counts`)
  }
  const source = saleLineSource(lines, start)
  let imports = 0
  let analyzedAt = 0
  const importer = async () => {
    while (!source.exhausted()) {
      const sales = source.nextImport()
      await call(server, 'POST', '/v1/sales', { connection_id: connectionId, sales })
      const imported = ++imports * LINES_PER_IMPORT
      if (imports % 25 === 0) progress(`${Math.min(imported, lines)} lines imported`)
      // Statistics again once the lines grew by half (autoanalyze would after a tenth of each table; each ANALYZE takes seconds at 5M).
      if (databaseUrl && imported >= Math.max(50_000, analyzedAt * 1.5)) {
        analyzedAt = imported
        await analyzeStatistics(databaseUrl)
      }
    }
  }
  await Promise.all(Array.from({ length: IMPORTS_IN_FLIGHT }, importer))
  const lastImport = new Date()
  return { lastImport, itemIds, countTimes }
}

const OPERATION_LINES = 500

/** `lines` in requests of at most OPERATION_LINES (the endpoints' limit). */
function inChunks<T>(lines: T[]): T[][] {
  const chunks: T[][] = []
  for (let index = 0; index < lines.length; index += OPERATION_LINES) chunks.push(lines.slice(index, index + OPERATION_LINES))
  return chunks
}

/**
 * In each of the last `weeks` count windows and the open one after the latest count, for every item: a
 * bottle moved to the storeroom (which creates the storeroom's items the first time), half a bottle moved
 * back, and a 1 oz spill, each dated inside the window (back-dated like a bar entering last week's moves).
 */
async function recordOperations(server: Server, bar: SeededBar, weeks: number, now: number): Promise<void> {
  await call(server, 'POST', '/v1/locations', { id: 'storeroom', name: 'Storeroom' })
  const openings = bar.countTimes.slice(-weeks - 1)
  const storeroomOf = new Map<string, string>()
  for (const [index, openedAt] of openings.entries()) {
    const closedAt = openings[index + 1] ?? now
    const at = (share: number) => new Date(openedAt + (closedAt - openedAt) * share).toISOString()
    for (const chunk of inChunks(bar.itemIds)) {
      const out = await call(server, 'POST', '/v1/inventory/transfers', {
        from_location: 'main_bar',
        to_location: 'storeroom',
        transferred_by: 'bench',
        transferred_at: at(0.25),
        items: chunk.map((item_id) => ({ item_id, quantity: TRANSFERRED_OUT })),
      })
      for (const line of out.items as { from_item_id: string; to_item_id: string }[]) storeroomOf.set(line.from_item_id, line.to_item_id)
      await call(server, 'POST', '/v1/inventory/transfers', {
        from_location: 'storeroom',
        to_location: 'main_bar',
        transferred_by: 'bench',
        transferred_at: at(0.5),
        items: chunk.map((item_id) => ({ item_id: storeroomOf.get(item_id), quantity: TRANSFERRED_BACK })),
      })
      await call(server, 'POST', '/v1/inventory/waste', {
        location: 'main_bar',
        recorded_by: 'bench',
        occurred_at: at(0.75),
        items: chunk.map((item_id) => ({ item_id, quantity: SPILL_OZ, unit: 'oz', reason: 'spill' })),
      })
    }
    progress(`operations in window ${index + 1} of ${openings.length}`)
  }
}

interface Measured {
  load: LoadResult
  /** The machine-speed reference (referenceMs) timed right before the load. */
  referenceMs: number
  /** The 1-minute load average right after it. */
  loadAverage: number
}

interface Row {
  database: string
  lines: number
  seedSeconds: number
  variance: Measured
  forecastItems: number
  forecastLoad: LoadResult
  /** The bar's report again after transfers and waste in every window it reads; undefined when skipped. */
  withOperations?: Measured & { operationSeconds: number }
}

async function benchmark(database: string, lines: number): Promise<Row> {
  const dataDir = mkdtempSync(join(tmpdir(), 'barstock-bench-'))
  const reused = process.env.BENCH_REUSE
  const operationWeeks = reused ? 0 : Number(process.env.BENCH_OPERATION_WEEKS ?? 13)
  const scratch = reused ? { url: reused, drop: async () => {} } : process.env.DATABASE_URL ? await scratchPostgres(process.env.DATABASE_URL, 'barstock_an_bench') : undefined
  const env = { BARSTOCK_DATA_DIR: dataDir, ...(scratch ? { DATABASE_URL: scratch.url } : {}) }
  const server = await startServer(env)
  try {
    const now = Date.now()
    const seeding = performance.now()
    const counts = process.env.BENCH_COUNTS ?? 'following'
    const bar = reused ? undefined : await seedBar(server, lines, now, scratch?.url, counts, operationWeeks)
    // Counts that follow the sales count the bar's moves too: recorded as part of the seeding, measured once.
    if (bar && counts === 'following' && operationWeeks > 0) await recordOperations(server, bar, operationWeeks, now)
    const seedSeconds = (performance.now() - seeding) / 1000
    if (!reused) progress(`seeded ${scratch?.url ?? dataDir}`)
    const to = new Date(now - DAY_MS).toISOString().slice(0, 10)
    const from = new Date(now - 31 * DAY_MS).toISOString().slice(0, 10)
    const path = `/v1/analytics/variance?date_from=${from}&date_to=${to}&location=main_bar`
    const measure = async (paths: string[]) => {
      const load = await runLoad({
        url: server.url,
        method: 'GET',
        paths,
        headers: { 'x-api-key': server.key },
        connections: 1,
        durationSeconds: Number(process.env.BENCH_SECONDS ?? 20),
      })
      if (load.errors || load.non2xx) throw new Error(`errors in the run: ${JSON.stringify(load)}`)
      return load
    }
    /** Settled forecasts, a fresh database's statistics, one report to store its windows, then the load. */
    const measureReport = async (historyChangedAt: Date, label: string): Promise<Measured & { forecastItems: number }> => {
      if (scratch) await vacuumAnalyze(scratch.url)
      const forecastItems = await forecastsSettled(server, historyChangedAt)
      progress(`forecasts settled: ${forecastItems} items`)
      const report = await call(server, 'GET', path)
      progress(
        `${database} ${lines} lines, ${label}: ${report.summary.total_items_analyzed} items analyzed, ${report.summary.items_above_threshold} above the threshold, recorded waste ${report.summary.recorded_waste_cost}`,
      )
      const reference = referenceMs()
      const load = await measure([path])
      progress(`${database} ${lines} lines, ${label}: variance p50 ${load.p50} ms, p99 ${load.p99} ms (reference workload ${reference.toFixed(0)} ms)`)
      return { load, referenceMs: reference, loadAverage: loadavg()[0] ?? 0, forecastItems }
    }
    const plain = await measureReport(bar?.lastImport ?? new Date(0), 'as seeded')
    const forecastLoad = await measure(['/v1/analytics/forecast?days_ahead=7'])
    progress(`forecast p50 ${forecastLoad.p50} ms, p99 ${forecastLoad.p99} ms`)
    const row: Row = { database, lines, seedSeconds, variance: plain, forecastItems: plain.forecastItems, forecastLoad }
    if (bar && counts === 'random' && operationWeeks > 0) {
      const recording = performance.now()
      await recordOperations(server, bar, operationWeeks, now)
      const operationSeconds = (performance.now() - recording) / 1000
      // Transfers and waste are not sales: they start no forecast refit (its history is sales usage).
      row.withOperations = { ...(await measureReport(bar.lastImport, 'with transfers and waste')), operationSeconds }
    }
    return row
  } finally {
    await server.stop()
    if (process.env.BENCH_KEEP === '1') progress(`kept ${scratch?.url ?? dataDir}`)
    else await scratch?.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const database = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'
const sizes = (process.env.BENCH_LINES ?? (process.env.DATABASE_URL ? '50000,5000000' : '50000')).split(',').map(Number)
const rows: Row[] = []
for (const lines of sizes) rows.push(await benchmark(database, lines))
console.log(`\n${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}; the bar's variance report, 30 days, ${ITEMS} items, one connection\n`)
console.log('| Database | Sale lines | Variance p50 | p99 | req/s | reference ms | load | Forecast (items) p50 | p99 | Seeding (through the API) |')
console.log('|---|---|---|---|---|---|---|---|---|---|')
const cells = (measured: Measured) =>
  `${measured.load.p50} ms | ${measured.load.p99} ms | ${measured.load.requestsPerSecond.toFixed(1)} | ${measured.referenceMs.toFixed(0)} | ${measured.loadAverage.toFixed(1)}`
for (const row of rows) {
  const { variance, forecastLoad } = row
  console.log(
    `| ${row.database} | ${row.lines.toLocaleString('en')} | ${cells(variance)} | ${forecastLoad.p50} ms (${row.forecastItems}) | ${forecastLoad.p99} ms | ${row.seedSeconds.toFixed(0)} s |`,
  )
  const operations = row.withOperations
  if (operations)
    console.log(`| ${row.database}, with transfers and waste | ${row.lines.toLocaleString('en')} | ${cells(operations)} | | | + ${operations.operationSeconds.toFixed(0)} s |`)
}
for (const row of rows) {
  const operations = row.withOperations
  if (operations)
    console.log(
      `\n${row.database}, ${row.lines.toLocaleString('en')} lines: p50 ratio with transfers and waste / as seeded: ${(operations.load.p50 / row.variance.load.p50).toFixed(2)} (p99 ${(operations.load.p99 / row.variance.load.p99).toFixed(2)}; reference workload ${row.variance.referenceMs.toFixed(0)} → ${operations.referenceMs.toFixed(0)} ms)`,
    )
}
if (rows.length === 2)
  console.log(
    `\np50 ratio ${rows[1]!.lines.toLocaleString('en')} / ${rows[0]!.lines.toLocaleString('en')} lines: ${(rows[1]!.variance.load.p50 / rows[0]!.variance.load.p50).toFixed(2)}`,
  )
