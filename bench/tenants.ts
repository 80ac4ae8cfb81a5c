import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { scratchPostgres } from '../test/helpers/context.js'
import { CLI, childEnv } from '../test/helpers/server-process.js'
import { DAY_MS } from '../src/platform/zoned-time.js'
import { type ApiTarget, benchSaleLine, call, forecastsSettled, progress, random, resentAfter503, seedMappedItems, vacuumAnalyze } from './api-seeding.js'
import type { LoadResult } from './load-worker.js'
import { referenceMs } from './machine-speed.js'
import { type BenchServer, runLoad, startQuietServer } from './processes.js'

/**
 * Many tenants on one PostgreSQL database (issue 25, item 1): BENCH_BARS accounts (default 50), each a bar
 * of BENCH_ITEMS items (60) with BENCH_DAYS days of sales (90), BENCH_LINES_PER_DAY sale lines a day (30)
 * and a count of every item each week, seeded through the CLI (`barstock accounts create`, `keys create`)
 * and the API of a real server process started as `npm start` starts it, bars BENCH_SEED_CONCURRENCY (4) at
 * a time. The first bar is seeded again, with the same data, alone in a second database. Once both
 * servers' background forecast refits have settled, a load generator in a third process measures that
 * bar's 30-day variance report and 7-day forecast on each database in turn (one connection, BENCH_SECONDS
 * each, 20), with the machine-speed reference timed before each; the ratios many / alone are printed
 * (goal ≤ 1.2). Then (BENCH_INGEST_SECONDS, 20; 0 skips it) the measured bar's variance report is read
 * alone, then every other bar posts 30-line sales batches at once, one request at a time per bar, first
 * alone, then while that report is read: lines/s of both, the report's p99 against its p99 alone right
 * before, and the imports answered 503 (sent again after Retry-After). The ingested lines are sold at the
 * time of the run, so they stay out of the report's window (and cause no refit) but are added to the kept
 * database. BENCH_VARIANTS compares server builds and settings in one run: `label=cli[,KEY=VALUE…]`
 * entries separated by `;` (cli another build's dist/src/cli/main.js, empty for this one), the many-bar
 * server restarted as each in turn for the ingest phases, BENCH_ROUNDS (1) rounds of them alternated. The issue's 200-bar
 * size is BENCH_BARS=200. Opt-in, after the ingest: BENCH_SYNC_CONNECTIONS=<n> has n of the other bars ask a POS
 * sync from the sandbox simulators at once (syncAtOnce), BENCH_REFIT_ALL=1 makes every tenant's forecast
 * refit due at once, as a business day's close does, and times the worker through them (refitAll).
 * BARSTOCK_BULK_WRITE_SLOTS and BARSTOCK_DB_POOL_SIZE reach the servers.
 * Run: `DATABASE_URL=postgres://… npm run bench:tenants`. BENCH_KEEP=1 keeps both databases (their URLs are
 * printed); BENCH_REUSE=<many URL>,<alone URL> measures them again without seeding, with new keys
 * (BENCH_REUSE=<many URL> alone seeds the one-bar database again). The sales are dated relative to the
 * seeding day and the report reads the 30 days up to yesterday: reuse within a few days of seeding, or the
 * report's window runs past the history.
 */

const BARS = Number(process.env.BENCH_BARS ?? 50)
const ITEMS = Number(process.env.BENCH_ITEMS ?? 60)
const DAYS = Number(process.env.BENCH_DAYS ?? 90)
const LINES_PER_DAY = Number(process.env.BENCH_LINES_PER_DAY ?? 30)
const SEED_CONCURRENCY = Number(process.env.BENCH_SEED_CONCURRENCY ?? 4)
/** The sales endpoint's limit per request. */
const LINES_PER_IMPORT = 5000
/** The name of the bar that is measured, in both databases. */
const MEASURED_BAR = 'Bench bar 0'
const run = promisify(execFile)

/** The admin CLI on the database at `url`, its `--json` answer parsed. */
async function cli(url: string, args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, [CLI, ...args, '--json'], { env: childEnv({ DATABASE_URL: url, BARSTOCK_LOG_LEVEL: 'warn' }) })
  return JSON.parse(stdout)
}

/** A sandbox key with every permission for the account `accountId`. */
async function createKey(url: string, accountId: string): Promise<string> {
  const created = (await cli(url, ['keys', 'create', '--name', 'bench', '--permissions', '*', '--sandbox', '--account', accountId])) as { key: string }
  return created.key
}

interface SeededBar extends ApiTarget {
  /** When its sales were imported (counts start no forecast refit). */
  lastImport: Date
}

/** An account with its key, then its items, mappings, sales and weekly counts through the API. */
async function seedBar(databaseUrl: string, serverUrl: string, bar: number, now: number): Promise<SeededBar> {
  const account = (await cli(databaseUrl, ['accounts', 'create', '--name', `Bench bar ${bar}`])) as { id: string }
  const server = { url: serverUrl, key: await createKey(databaseUrl, account.id) }
  const { connectionId, itemIds } = await seedMappedItems(server, ITEMS, `L8BENCH${bar}`)
  // The same bar number gives the same sales and counts in either database.
  const next = random(1000 + bar)
  const firstDay = Math.floor(now / DAY_MS) * DAY_MS - DAYS * DAY_MS
  const sales = Array.from({ length: DAYS * LINES_PER_DAY }, (_, index) => {
    const day = Math.floor(index / LINES_PER_DAY)
    return benchSaleLine(next, ITEMS, `L${index}`, () => firstDay + day * DAY_MS + (12 + next() * 11) * 3_600_000)
  })
  for (let sent = 0; sent < sales.length; sent += LINES_PER_IMPORT)
    await call(server, 'POST', '/v1/sales', { connection_id: connectionId, sales: sales.slice(sent, sent + LINES_PER_IMPORT) })
  const lastImport = new Date()
  for (let week = 0; week * 7 <= DAYS; week++) {
    const counted = itemIds.map((item_id) => ({ item_id, quantity: Math.round(next() * 200) / 10 }))
    const countedAt = new Date(firstDay + week * 7 * DAY_MS + 10 * 3_600_000).toISOString()
    await call(server, 'POST', '/v1/inventory/count', { location: 'main_bar', counted_by: 'bench', counted_at: countedAt, items: counted })
  }
  return { ...server, lastImport }
}

/** Bars 0 … count - 1, SEED_CONCURRENCY at a time; their API targets in bar order. */
async function seedBars(databaseUrl: string, serverUrl: string, count: number, now: number): Promise<SeededBar[]> {
  const targets: SeededBar[] = []
  let nextBar = 0
  const worker = async () => {
    for (let bar = nextBar++; bar < count; bar = nextBar++) {
      targets[bar] = await seedBar(databaseUrl, serverUrl, bar, now)
      if ((bar + 1) % 10 === 0 || bar + 1 === count) progress(`${bar + 1} of ${count} bars seeded`)
    }
  }
  await Promise.all(Array.from({ length: Math.min(SEED_CONCURRENCY, count) }, worker))
  return targets
}

/** A database holding `bars` bars, its server, and the measured bar's API target. */
interface Tenancy {
  label: string
  databaseUrl: string
  server: BenchServer
  /** What its server runs. */
  variant: Variant
  /** Every bar's API target, the measured bar first. */
  bars: ApiTarget[]
  /** Seconds the seeding took; undefined when reused. */
  seedSeconds?: number
  /** Seconds from the end of the seeding until every bar's forecasts had settled (refit delay included); undefined when reused. */
  refitAllSeconds?: number
  drop: () => Promise<void>
}

/**
 * The key that seals POS credentials, the same for every bench server: without it each server makes one
 * in its data dir, and a reused database's connections could not be opened by the next run's server.
 */
const BENCH_SECRET_KEY = 'b'.repeat(64)

/** A server build and its settings, measured against others in one run (BENCH_VARIANTS). */
interface Variant {
  label: string
  /** The build's dist/src/cli/main.js. */
  cli: string
  env: Record<string, string>
}

const THIS_BUILD: Variant = { label: 'this build', cli: CLI, env: {} }

/**
 * BENCH_VARIANTS: entries `label=cli[,KEY=VALUE…]` separated by `;`, cli a build's dist/src/cli/main.js
 * (empty: this build's), the settings reaching its server; none: this build alone.
 */
function variants(): Variant[] {
  const spec = process.env.BENCH_VARIANTS
  if (!spec) return [THIS_BUILD]
  const pair = (text: string) => [text.slice(0, text.indexOf('=')), text.slice(text.indexOf('=') + 1)] as const
  return spec.split(';').map((entry) => {
    const [label, build] = pair(entry)
    const [cli, ...settings] = build.split(',')
    return { label, cli: cli || CLI, env: Object.fromEntries(settings.map(pair)) }
  })
}

/** A server on `databaseUrl` (of `variant`'s build and settings) with a data dir of its own, removed when it stops. */
async function startServer(databaseUrl: string, variant = THIS_BUILD): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'barstock-tenants-'))
  const env = {
    DATABASE_URL: databaseUrl,
    BARSTOCK_DATA_DIR: dataDir,
    BARSTOCK_SECRET_KEY: BENCH_SECRET_KEY,
    BARSTOCK_RATE_LIMIT_SANDBOX: '100000000',
    BARSTOCK_RATE_LIMIT_PRODUCTION: '100000000',
    ...variant.env,
  }
  const server = await startQuietServer(env, [], [], variant.cli)
  return {
    ...server,
    stop: async () => {
      await server.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Seeds `bars` bars in a new database (or opens a reused one) and waits for every bar's forecasts. */
async function prepare(label: string, bars: number, reusedUrl: string | undefined, now: number): Promise<Tenancy> {
  const scratch = reusedUrl ? { url: reusedUrl, drop: async () => {} } : await scratchPostgres(process.env.DATABASE_URL!, `barstock_tenants_${bars}`)
  const server = await startServer(scratch.url)
  try {
    if (reusedUrl) {
      const accounts = (await cli(scratch.url, ['accounts', 'list'])) as { id: string; name: string }[]
      const account = accounts.find((candidate) => candidate.name === MEASURED_BAR)
      if (!account) throw new Error(`${reusedUrl} has no account named ${MEASURED_BAR}`)
      const others = accounts.filter((candidate) => candidate !== account && candidate.name.startsWith('Bench bar '))
      // SEED_CONCURRENCY CLI processes at a time: one after another, 200 bars' keys took 9 minutes on a busy machine.
      const accountIds = [account, ...others].map(({ id }) => id)
      const targets: ApiTarget[] = []
      for (let start = 0; start < accountIds.length; start += SEED_CONCURRENCY) {
        const keys = await Promise.all(accountIds.slice(start, start + SEED_CONCURRENCY).map((id) => createKey(scratch.url, id)))
        targets.push(...keys.map((key) => ({ url: server.url, key })))
      }
      await vacuumAnalyze(scratch.url)
      return { label, databaseUrl: scratch.url, server, variant: THIS_BUILD, bars: targets, drop: scratch.drop }
    }
    const seeding = performance.now()
    const targets = await seedBars(scratch.url, server.url, bars, now)
    const seeded = Date.now()
    const seedSeconds = (performance.now() - seeding) / 1000
    progress(`${label}: ${bars} bars seeded in ${seedSeconds.toFixed(0)} s, ${scratch.url}`)
    // Each bar's own last import: a bar seeded early may have been refitted while the others were seeded.
    await Promise.all(targets.map((target) => forecastsSettled(target, target.lastImport, 5_000)))
    const refitAllSeconds = (Date.now() - seeded) / 1000
    progress(`${label}: every bar's forecasts settled ${refitAllSeconds.toFixed(0)} s after the seeding ended`)
    await vacuumAnalyze(scratch.url)
    return { label, databaseUrl: scratch.url, server, variant: THIS_BUILD, bars: targets, seedSeconds, refitAllSeconds, drop: scratch.drop }
  } catch (error) {
    await server.stop()
    if (!reusedUrl) await scratch.drop()
    throw error
  }
}

interface Measured {
  load: LoadResult
  /** The machine-speed reference (referenceMs) timed right before the load. */
  referenceMs: number
  /** The 1-minute load average right after it. */
  loadAverage: number
}

async function measure(target: ApiTarget, path: string): Promise<Measured> {
  await call(target, 'GET', path)
  const reference = referenceMs()
  const load = await runLoad({
    url: target.url,
    method: 'GET',
    paths: [path],
    headers: { 'x-api-key': target.key },
    connections: 1,
    durationSeconds: Number(process.env.BENCH_SECONDS ?? 20),
  })
  if (load.errors || load.non2xx) throw new Error(`errors in the run: ${JSON.stringify(load)}`)
  return { load, referenceMs: reference, loadAverage: loadavg()[0] ?? 0 }
}

/** Sale lines per POST /v1/sales during the ingest: a bar's sync of a busy hour. */
const INGEST_LINES_PER_REQUEST = 30

/** Times an ingest request answered 503 is sent again before the bench gives up. */
const INGEST_RETRIES = 50

/** Every bar's first POS connection. */
async function connectionsOf(bars: ApiTarget[]): Promise<string[]> {
  return Promise.all(bars.map(async (bar) => ((await call(bar, 'GET', '/v1/pos/connections')) as { id: string }[])[0]!.id))
}

/**
 * Every bar syncing at once for `seconds`: one request at a time per bar, INGEST_LINES_PER_REQUEST lines
 * sold now (after every report's window), line ids under `tag`; the lines written per second.
 */
async function ingest(bars: ApiTarget[], connections: string[], seconds: number, tag: string): Promise<number> {
  const started = performance.now()
  const deadline = started + seconds * 1000
  let lines = 0
  await Promise.all(
    bars.map(async (bar, index) => {
      const next = random(index)
      for (let batch = 0; performance.now() < deadline; batch++) {
        const sales = Array.from({ length: INGEST_LINES_PER_REQUEST }, (_, line) => {
          const item = Math.floor(next() * ITEMS)
          const sold_at = new Date().toISOString()
          return { location: 'main_bar', pos_item_id: `PLU-${item}`, name: `Bench spirit ${item} 1.5oz`, quantity: 1, unit_price: 8, sold_at, line_id: `${tag}-${batch}-${line}` }
        })
        // Sent again after each 503 as its Retry-After says, up to INGEST_RETRIES times: the bench counts them.
        await call(bar, 'POST', '/v1/sales', { connection_id: connections[index], sales }, INGEST_RETRIES)
        lines += sales.length
      }
    }),
  )
  return lines / ((performance.now() - started) / 1000)
}

interface IngestBeside {
  /** The report alone, right before. */
  idle: Measured
  /** Lines/s of the ingest alone, then while the report is read. */
  solo: number
  withReads: number
  /** The report during the second. */
  reads: Measured
  /** Imports answered 503 (and sent again) in both. */
  resent: number
}

/** The measured bar's report idle, then the other bars ingesting alone and while that report is read. */
async function ingestBeside(many: Tenancy, report: string, seconds: number, tag: string): Promise<IngestBeside> {
  // Other tenants' ingest beside a tenant's report; BENCH_INGEST_OWN=1 adds the measured bar's own sync.
  const syncing = process.env.BENCH_INGEST_OWN === '1' ? many.bars : many.bars.slice(1)
  const connections = await connectionsOf(syncing)
  const idle = await measure(many.bars[0]!, report)
  const resentBefore = resentAfter503.count
  const solo = await ingest(syncing, connections, seconds, `${tag}-solo`)
  const [withReads, reads] = await Promise.all([ingest(syncing, connections, seconds, `${tag}-reads`), measure(many.bars[0]!, report)])
  const resent = resentAfter503.count - resentBefore
  progress(
    `${many.variant.label}: variance idle p99 ${idle.load.p99} ms; ingest alone ${solo.toFixed(0)} lines/s, with reads ${withReads.toFixed(0)}; variance meanwhile p99 ${reads.load.p99} ms; ${resent} resent`,
  )
  return { idle, solo, withReads, reads, resent }
}

/** Restarts the tenancy's server as `variant` (unless it runs it already), its bars' targets moved to it. */
async function restartAs(tenancy: Tenancy, variant: Variant): Promise<void> {
  if (tenancy.variant === variant) return
  await tenancy.server.stop()
  tenancy.server = await startServer(tenancy.databaseUrl, variant)
  tenancy.variant = variant
  tenancy.bars = tenancy.bars.map((bar) => ({ ...bar, url: tenancy.server.url }))
}

/**
 * The ingest beside the report for each variant (BENCH_VARIANTS) in turn, BENCH_ROUNDS rounds (1): the
 * many-bar server restarted as each; one table row per round and variant.
 */
async function ingestRounds(many: Tenancy, report: string, seconds: number, tag: string): Promise<string[]> {
  const syncing = process.env.BENCH_INGEST_OWN === '1' ? 'every bar (the measured one among them)' : 'every bar but the measured one'
  const rows = [
    `\nIngest, ${syncing} syncing at once (${INGEST_LINES_PER_REQUEST} lines a request, ${seconds} s each), the first bar's variance report idle right before and during the second:\n`,
    '| round, server | report idle p50 / p99 | ingest alone / while the report is read | the report meanwhile p50 / p99 (× idle p99) | imports answered 503, sent again | reference ms | load |',
    '|---|---|---|---|---|---|---|',
  ]
  const rounds = Number(process.env.BENCH_ROUNDS ?? 1)
  for (let round = 1; round <= rounds; round++)
    for (const variant of variants()) {
      await restartAs(many, variant)
      const { idle, solo, withReads, reads, resent } = await ingestBeside(many, report, seconds, `${tag}-${round}-${variant.label}`)
      rows.push(
        `| ${round}, ${variant.label} | ${idle.load.p50} / ${idle.load.p99} ms | ${solo.toFixed(0)} / ${withReads.toFixed(0)} lines/s (${(withReads / solo).toFixed(2)}) | ` +
          `${reads.load.p50} / ${reads.load.p99} ms (**${(reads.load.p99 / idle.load.p99).toFixed(2)} ×**) | ${resent} | ${idle.referenceMs.toFixed(0)}, ${reads.referenceMs.toFixed(0)} | ${idle.loadAverage.toFixed(1)}, ${reads.loadAverage.toFixed(1)} |`,
      )
    }
  return rows
}

/** One statement on the database at `url`, on a connection of its own; its rows. */
async function query<Row>(url: string, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text, values)).rows as Row[]
  } finally {
    await client.end()
  }
}

interface FinishedSync {
  status: string
  results?: { sales_synced: number }
}

/** Polls a sync run until it is no longer processing. */
async function syncFinished(bar: ApiTarget, syncId: string): Promise<FinishedSync> {
  for (;;) {
    const run = (await call(bar, 'GET', `/v1/pos/syncs/${syncId}`)) as FinishedSync
    if (run.status !== 'processing') return run
    await new Promise((resolve) => setTimeout(resolve, 2_000))
  }
}

/**
 * `bars` POS connections syncing from the sandbox simulators at once (BENCH_SYNC_CONNECTIONS): a new Square
 * connection per bar (unmapped: its lines are stored, not depleted), its cursor set BENCH_SYNC_HOURS (24) back, as after the previous day's sync, then each asks
 * `POST /v1/pos/connections/:id/sync` (incremental) at the same moment, while `report` is read for
 * BENCH_SECONDS; lines/s from the first request to the last run's end. The server's sync worker runs the
 * queued runs one at a time (docs/pos.md), so this is that worker's rate with the simulators in the same
 * process.
 */
async function syncAtOnce(many: Tenancy, bars: ApiTarget[], report: string): Promise<string> {
  const hours = Number(process.env.BENCH_SYNC_HOURS ?? 24)
  // New connections of their own, unmapped, so their lines are stored and not depleted.
  const connections = await Promise.all(
    bars.map(async (bar, index) => {
      const credentials = { access_token: 'EAAAlBenchAccessTokenForTheSandbox00000000000000000000000000000', location_id: `L8SYNC${index}` }
      return ((await call(bar, 'POST', '/v1/pos/connections', { pos_type: 'square', name: 'Bench sync', credentials, sync_frequency: 'daily' })) as { id: string }).id
    }),
  )
  await query(many.databaseUrl, `UPDATE pos_connections SET sales_cursor = now() - make_interval(hours => $2) WHERE id = ANY($1)`, [connections, hours])
  const started = performance.now()
  const reads = measure(many.bars[0]!, report)
  const runs = await Promise.all(bars.map((bar, index) => call(bar, 'POST', `/v1/pos/connections/${connections[index]}/sync`, { sync_type: 'incremental' })))
  const finished = await Promise.all(runs.map((run: { sync_id: string }, index) => syncFinished(bars[index]!, run.sync_id)))
  const seconds = (performance.now() - started) / 1000
  const read = await reads
  const lines = finished.reduce((sum, run) => sum + (run.results?.sales_synced ?? 0), 0)
  const failed = finished.filter((run) => run.status !== 'completed').length
  progress(`${bars.length} syncs at once: ${lines} lines in ${seconds.toFixed(0)} s; variance p99 ${read.load.p99} ms`)
  return (
    `\nSyncs, ${bars.length} connections asking POST /v1/pos/connections/:id/sync at once (sandbox simulators, ${hours} h of sales each): ` +
    `${lines.toLocaleString('en')} lines in ${seconds.toFixed(1)} s (${(lines / seconds).toFixed(0)} lines/s, ${(seconds / bars.length).toFixed(2)} s a run), ${failed} runs not completed; ` +
    `the first bar's variance report meanwhile (its first ${process.env.BENCH_SECONDS ?? 20} s) p50 ${read.load.p50} ms, p99 ${read.load.p99} ms ` +
    `(reference ${read.referenceMs.toFixed(0)} ms, load ${read.loadAverage.toFixed(1)})`
  )
}

interface RefitRowTimes {
  fitted_as_of: Date | null
  updated_at: Date
}

/**
 * Every tenant's forecasts refitted as after a business day closes (BENCH_REFIT_ALL=1): the close makes
 * each tenant's scheduled refit due (forecast_refits.next_attempt_at, set to the next close by its last
 * refit), so the bench sets them all due now; the server's refit worker, which polls every 60 s and runs
 * one tenant after another, then refits them all. The time from due to the last one settled, and the span
 * between the first and last refit's end.
 */
async function refitAll(many: Tenancy): Promise<string> {
  const [due] = await query<{ at: Date; tenants: number }>(many.databaseUrl, `SELECT now() AS at, count(*)::int AS tenants FROM forecast_refits`)
  await query(many.databaseUrl, 'UPDATE forecast_refits SET next_attempt_at = $1', [due!.at])
  for (;;) {
    const rows = await query<RefitRowTimes>(many.databaseUrl, 'SELECT fitted_as_of, updated_at FROM forecast_refits')
    const done = rows.filter((row) => row.fitted_as_of !== null && row.fitted_as_of >= due!.at)
    if (done.length === rows.length) {
      const ends = done.map((row) => row.updated_at.getTime()).sort((a, b) => a - b)
      const allSeconds = (ends.at(-1)! - due!.at.getTime()) / 1000
      const spanSeconds = (ends.at(-1)! - ends[0]!) / 1000
      progress(`every tenant refitted ${allSeconds.toFixed(0)} s after they fell due`)
      return (
        `\nRefit after a business day closes: ${rows.length} tenants (${many.bars.length} bars × production and sandbox, and the default account) fell due at once; ` +
        `the last one refitted ${allSeconds.toFixed(1)} s later (the worker polls every 60 s); ${spanSeconds.toFixed(1)} s from the first refit's end to the last's ` +
        `(${(spanSeconds / Math.max(1, rows.length - 1)).toFixed(2)} s a tenant; load ${(loadavg()[0] ?? 0).toFixed(1)})`
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000))
  }
}

if (!process.env.DATABASE_URL) throw new Error('bench/tenants.ts measures PostgreSQL: set DATABASE_URL')
const now = Date.now()
const [reusedMany, reusedAlone] = process.env.BENCH_REUSE?.split(',') ?? []
const tenancies: Tenancy[] = []
try {
  tenancies.push(await prepare('many', BARS, reusedMany, now))
  tenancies.push(await prepare('alone', 1, reusedAlone, now))
  const to = new Date(now - DAY_MS).toISOString().slice(0, 10)
  const from = new Date(now - 30 * DAY_MS).toISOString().slice(0, 10)
  const reports = [
    { name: 'variance, 30 days', path: `/v1/analytics/variance?date_from=${from}&date_to=${to}&location=main_bar` },
    { name: 'forecast, 7 days', path: '/v1/analytics/forecast?days_ahead=7' },
  ]
  const lines: string[] = []
  for (const report of reports) {
    const results: Measured[] = []
    for (const tenancy of tenancies) {
      const measured = await measure(tenancy.bars[0]!, report.path)
      progress(`${tenancy.label}: ${report.name} p50 ${measured.load.p50} ms, p99 ${measured.load.p99} ms (reference ${measured.referenceMs.toFixed(0)} ms)`)
      results.push(measured)
    }
    const [onMany, onAlone] = results as [Measured, Measured]
    for (const [index, measured] of results.entries()) {
      const tenancy = tenancies[index]!
      lines.push(
        `| ${report.name} | ${tenancy.bars.length} | ${measured.load.p50} ms | ${measured.load.p99} ms | ${measured.load.requestsPerSecond.toFixed(1)} | ${measured.referenceMs.toFixed(0)} | ${measured.loadAverage.toFixed(1)} |`,
      )
    }
    lines.push(`| ${report.name}: many / alone | | ${(onMany.load.p50 / onAlone.load.p50).toFixed(2)} | ${(onMany.load.p99 / onAlone.load.p99).toFixed(2)} | | | |`)
  }
  const ingestSeconds = Number(process.env.BENCH_INGEST_SECONDS ?? 20)
  // Last: the lines it adds are sold today, outside the reports' windows, in the many-bar database only.
  const ingestLines = ingestSeconds > 0 ? await ingestRounds(tenancies[0]!, reports[0]!.path, ingestSeconds, `I${now}`) : []
  const syncCount = Number(process.env.BENCH_SYNC_CONNECTIONS ?? 0)
  // After the ingest (the runs' lines are today's too), before the refit that all of it makes due.
  if (syncCount > 0) ingestLines.push(await syncAtOnce(tenancies[0]!, tenancies[0]!.bars.slice(1, 1 + syncCount), reports[0]!.path))
  if (process.env.BENCH_REFIT_ALL === '1') ingestLines.push(await refitAll(tenancies[0]!))
  const sales = DAYS * LINES_PER_DAY
  console.log(
    `\n${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}; bars of ${ITEMS} items, ${DAYS} days × ${LINES_PER_DAY} lines (${sales} lines a bar), the first bar measured, one connection\n`,
  )
  console.log('| Report | Bars in the database | p50 | p99 | req/s | reference ms | load |')
  console.log('|---|---|---|---|---|---|---|')
  for (const line of lines) console.log(line)
  for (const line of ingestLines) console.log(line)
  for (const tenancy of tenancies)
    if (tenancy.seedSeconds !== undefined)
      console.log(
        `\n${tenancy.label}: ${tenancy.bars.length} bars (${(tenancy.bars.length * sales).toLocaleString('en')} lines) seeded through the CLI and API in ${tenancy.seedSeconds.toFixed(0)} s; every bar's forecasts settled ${tenancy.refitAllSeconds?.toFixed(0)} s after the seeding ended (refit delay ${process.env.BARSTOCK_FORECAST_REFIT_DELAY_SECONDS ?? 60} s)`,
      )
} finally {
  for (const tenancy of tenancies) {
    await tenancy.server.stop()
    if (process.env.BENCH_KEEP === '1') progress(`kept ${tenancy.databaseUrl}`)
    else await tenancy.drop()
  }
}
