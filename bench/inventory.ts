import { readFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { runCli } from '../test/helpers/server-process.js'
import type { LoadResult, LoadSpec } from './load-worker.js'
import { scratchPostgres } from '../test/helpers/context.js'
import { type BenchServer, forkListener, runLoad, startQuietServer } from './processes.js'

/**
 * Inventory benchmark, measured the way the service runs: on a scratch PostgreSQL database (created and
 * dropped here), `barstock serve` in a process of its own as `npm start` starts it (log level warn, rate
 * limit raised), a bare Fastify + `pg` baseline doing the same SQL in another (bench/bare-server.ts), and
 * autocannon in a third for each run. Each scenario runs barstock and its baseline alternately, two
 * rounds each; the better round of each side counts, so the ratio is of figures taken minutes apart.
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench
 * BENCH_SECONDS (10), BENCH_CONNECTIONS (32), BENCH_ROUNDS (2), BENCH_SCENARIOS (fragments of "<name> vs <baseline>", e.g.
 * `get item,put`) adjust a run; BENCH_CPU_PROF=<dir> starts the server and the baseline with
 * `node --cpu-prof` writing there (one profile each).
 */

const ITEMS = 1000
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const DURATION = Number(process.env.BENCH_SECONDS ?? 10)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
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

/** `count` items created through the API, a few requests at a time; answers their ids. */
async function seed(url: string, key: string, count: number): Promise<string[]> {
  const ids: string[] = []
  const create = async (index: number) => {
    const response = await fetch(`${url}/v1/inventory/items`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: `Bench item ${index}`,
        sku: `BENCH-${index}`,
        category: index % 2 ? 'spirits' : 'beer',
        quantity: 10,
        unit: 'bottle',
        size_ml: 750,
        location: 'main_bar',
        reorder_point: 2,
        cost_per_unit: 12.5,
      }),
    })
    const text = await response.text()
    if (response.status !== 201) throw new Error(`seeding: ${response.status} ${text}`)
    ids[index] = (JSON.parse(text) as { data: { id: string } }).data.id
  }
  for (let start = 0; start < count; start += 8) {
    await Promise.all(Array.from({ length: Math.min(8, count - start) }, (_, offset) => create(start + offset)))
  }
  return ids
}

function scenarios(ids: string[]): Scenario[] {
  const sample = ids.filter((_, index) => index % 7 === 0)
  const quantities = [11, 12.5, 9, 10.25].map((quantity) => JSON.stringify({ quantity }))
  return [
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
}

interface Row {
  scenario: Scenario
  ours: Measured
  base: Measured
  ratio: number
  load: string
}

/** A run's figures with the CPU time its server process spent per answered request. */
interface Measured extends LoadResult {
  cpuMicrosPerRequest: number
}

/**
 * CPU seconds (user + system) a process has used so far, from /proc: per request, a figure the machine's
 * other load disturbs far less than throughput does (Linux only; NaN elsewhere).
 */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks of 1/100 s.
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return Number.NaN
  }
}

async function run(server: BenchServer, spec: LoadSpec): Promise<Measured> {
  const before = cpuSeconds(server.child.pid)
  const result = await runLoad(spec)
  return { ...result, cpuMicrosPerRequest: ((cpuSeconds(server.child.pid) - before) * 1e6) / result.total }
}

function best(results: Measured[]): Measured {
  return results.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a))
}

function loadAverage(): string {
  return loadavg().map((value) => value.toFixed(1)).join(' ')
}

async function measure(scenario: Scenario, barstock: BenchServer, key: string, bare: BenchServer): Promise<Row> {
  const common = { method: scenario.method, connections: CONNECTIONS, durationSeconds: DURATION, ...(scenario.bodies ? { bodies: scenario.bodies } : {}) }
  const ours: Measured[] = []
  const base: Measured[] = []
  const loads = [loadAverage()]
  for (let round = 0; round < ROUNDS; round++) {
    ours.push(await run(barstock, { ...common, url: barstock.url, paths: scenario.barstockPaths, headers: { 'x-api-key': key } }))
    base.push(await run(bare, { ...common, url: bare.url, paths: scenario.baselinePaths, headers: {} }))
  }
  loads.push(loadAverage())
  // A wrong answer means the bench is broken; a timeout (an error here) is a figure of the run, reported.
  for (const result of [...ours, ...base]) {
    if (result.non2xx) throw new Error(`${scenario.name}: non-2xx answers in the run ${JSON.stringify({ ours, base })}`)
  }
  const row = { scenario, ours: best(ours), base: best(base), ratio: best(ours).requestsPerSecond / best(base).requestsPerSecond, load: loads.join(' → ') }
  const rounds = (results: Measured[]) =>
    results.map((result) => `${result.requestsPerSecond.toFixed(0)} req/s p99 ${result.p99} ms ${result.cpuMicrosPerRequest.toFixed(0)} µs CPU/req${result.errors ? ` ${result.errors} errors` : ''}`).join(', ')
  console.error(`${scenario.name} vs ${scenario.baseline}: barstock ${rounds(ours)}; baseline ${rounds(base)}; load ${row.load}`)
  return row
}

function table(rows: Row[]): string {
  const lines = [
    '| scenario | barstock req/s | p50 ms | p99 ms | baseline | baseline req/s | p50 ms | p99 ms | ratio | p99 ratio | CPU µs/req, barstock : baseline | errors (timeouts), barstock : baseline | load average (1, 5, 15 min) |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---|---|',
  ]
  for (const { scenario, ours, base, ratio, load } of rows) {
    lines.push(
      `| ${scenario.name} | ${ours.requestsPerSecond.toFixed(0)} | ${ours.p50} | ${ours.p99} | ${scenario.baseline} | ${base.requestsPerSecond.toFixed(0)} | ${base.p50} | ${base.p99} | ${ratio.toFixed(2)} | ${(ours.p99 / base.p99).toFixed(2)} | ${ours.cpuMicrosPerRequest.toFixed(0)} : ${base.cpuMicrosPerRequest.toFixed(0)} | ${ours.errors} : ${base.errors} | ${load} |`,
    )
  }
  return lines.join('\n')
}

async function main() {
  const url = process.env.DATABASE_URL
  if (!url) throw new Error('DATABASE_URL must name a PostgreSQL server (the bench creates and drops a database of its own there)')
  const database = await scratchPostgres(url, 'barstock_inventory_bench')
  const env = { DATABASE_URL: database.url, BARSTOCK_LOG_LEVEL: 'warn', BARSTOCK_RATE_LIMIT_PRODUCTION: '100000000' }
  const profile = process.env.BENCH_CPU_PROF
  const profiling = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []
  const started: BenchServer[] = []
  try {
    const barstock = await startQuietServer(env, profiling)
    started.push(barstock)
    const created = await runCli(['keys', 'create', '--name', 'bench', '--permissions', '*', '--json'], env)
    if (created.code !== 0) throw new Error(`keys create failed: ${created.stderr}`)
    const key = (JSON.parse(created.stdout) as { key: string }).key
    const ids = await seed(barstock.url, key, ITEMS)
    const bare = await forkListener(new URL('./bare-server.js', import.meta.url), { DATABASE_URL: database.url, BENCH_ACCOUNT: ACCOUNT }, profiling)
    started.push(bare)
    // BENCH_SCENARIOS=put (comma-separated fragments of "<name> vs <baseline>") runs only the matching scenarios.
    const only = process.env.BENCH_SCENARIOS?.split(',').map((part) => part.trim().toLowerCase())
    const chosen = scenarios(ids).filter((candidate) => !only || only.some((part) => `${candidate.name} vs ${candidate.baseline}`.toLowerCase().includes(part)))
    const rows: Row[] = []
    for (const scenario of chosen) rows.push(await measure(scenario, barstock, key, bare))
    const cpu = cpus()[0]?.model ?? 'unknown CPU'
    process.stdout.write(`\nPostgreSQL, ${CONNECTIONS} connections, ${DURATION} s a run, best of ${ROUNDS} rounds, ${cpus().length} cores (${cpu}), Node ${process.version}\n\n`)
    process.stdout.write(`${table(rows)}\n`)
  } finally {
    for (const server of started.reverse()) await server.stop()
    await database.drop()
  }
}

await main()
