import { readFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { runCli } from '../test/helpers/server-process.js'
import type { LoadResult, LoadSpec } from './load-worker.js'
import { scratchPostgres } from '../test/helpers/context.js'
import { type Callgrind, callgrind, CONTROL_HOST, callgrindAvailable, type InstructionCount } from './instructions.js'
import { type BenchServer, forkListener, type Launcher, runLoad, startQuietServer } from './processes.js'
import { referenceMs } from './machine-speed.js'

/**
 * Inventory benchmark, measured the way the service runs: on a scratch PostgreSQL database (created and
 * dropped here), `barstock serve` in a process of its own as `npm start` starts it (log level warn, rate
 * limit raised), a bare Fastify + `pg` baseline doing the same SQL in another (bench/bare-server.ts), and
 * autocannon in a third for each run, sending fixed lists of requests (bench/load-worker.ts).
 *
 * Each round of a scenario loads barstock, its baseline, then the load generator's own ceiling: a trivial
 * server (bench/trivial-server.ts) answering barstock's bytes for the scenario from memory. The generator
 * is shown not to be the limit when it drives that server at 2× the baseline's rate or more; the table
 * says so per scenario. The better round of each side counts. Before each scenario's rounds the bench
 * times the machine-speed reference (bench/machine-speed.ts) and prints it beside the figures.
 *
 * Then, where valgrind is installed, the instructions per request of barstock and of the baseline, each
 * restarted under callgrind (bench/instructions.ts): the figure to compare across machines and runs.
 *
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench
 * BENCH_SECONDS (10), BENCH_CONNECTIONS (32), BENCH_ROUNDS (2), BENCH_SCENARIOS (fragments of "<name> vs
 * <baseline>", e.g. `get item,put`) adjust a run; BENCH_MEASURE (`throughput,instructions`, the default)
 * picks the parts; BENCH_CPU_PROF=<dir> starts the server and the baseline with `node --cpu-prof` writing
 * there (one profile each).
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
  /** How many requests callgrind counts (after as many again to warm up). */
  countedRequests: number
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
      countedRequests: 2000,
    },
    {
      name: 'list 50, filtered',
      baseline: 'the same SELECT',
      method: 'GET',
      barstockPaths: ['/v1/inventory/items?category=spirits&per_page=50'],
      baselinePaths: ['/items'],
      countedRequests: 400,
    },
    {
      name: 'PUT quantity',
      baseline: 'a bare UPDATE',
      method: 'PUT',
      barstockPaths: sample.map((id) => `/v1/inventory/items/${id}`),
      baselinePaths: sample.map((id) => `/items/${id}`),
      bodies: quantities,
      countedRequests: 1000,
    },
    {
      name: 'PUT quantity',
      baseline: 'the same writes in bare SQL',
      method: 'PUT',
      barstockPaths: sample.map((id) => `/v1/inventory/items/${id}`),
      baselinePaths: sample.map((id) => `/items-with-ledger/${id}`),
      bodies: quantities,
      countedRequests: 1000,
    },
  ]
}

/** A run's figures with the CPU time its server process spent per answered request. */
interface Measured extends LoadResult {
  cpuMicrosPerRequest: number
}

interface Throughput {
  ours: Measured
  base: Measured
  /** The load generator against the trivial server answering barstock's bytes. */
  ceiling: Measured
  ratio: number
  load: string
  /** The machine-speed reference (bench/machine-speed.ts) timed just before the scenario's rounds, ms. */
  referenceMs: number
}

interface Row {
  scenario: Scenario
  throughput?: Throughput
  instructions?: { ours: InstructionCount; base: InstructionCount }
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
  return loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')
}

/** The servers a part of the bench loads, and barstock's key. */
interface Servers {
  barstock: BenchServer
  bare: BenchServer
  key: string
}

/** The load of `scenario` on barstock (`ours`) or on its baseline, without a duration or an amount. */
function loadSpec(scenario: Scenario, servers: Servers, side: 'ours' | 'base'): LoadSpec {
  const common = { method: scenario.method, connections: CONNECTIONS, ...(scenario.bodies ? { bodies: scenario.bodies } : {}) }
  return side === 'ours'
    ? { ...common, url: servers.barstock.url, paths: scenario.barstockPaths, headers: { 'x-api-key': servers.key } }
    : { ...common, url: servers.bare.url, paths: scenario.baselinePaths, headers: {} }
}

/** barstock's answer to the scenario's first request: what the trivial server answers during its runs. */
async function barstockAnswer(scenario: Scenario, servers: Servers): Promise<string> {
  const response = await fetch(`${servers.barstock.url}${scenario.barstockPaths[0]}`, {
    method: scenario.method,
    headers: { 'x-api-key': servers.key, 'content-type': 'application/json' },
    ...(scenario.bodies ? { body: scenario.bodies[0] } : {}),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${scenario.name}: ${response.status} ${text}`)
  return text
}

/** Sets what the trivial server answers, once it has it. */
function answerWith(trivial: BenchServer, body: string): Promise<void> {
  return new Promise((resolve) => {
    trivial.child.once('message', () => resolve())
    trivial.child.send({ body })
  })
}

async function measureThroughput(scenario: Scenario, servers: Servers, trivial: BenchServer): Promise<Throughput> {
  await answerWith(trivial, await barstockAnswer(scenario, servers))
  const reference = referenceMs()
  const timed = { durationSeconds: DURATION }
  const ours: Measured[] = []
  const base: Measured[] = []
  const ceiling: Measured[] = []
  const loads = [loadAverage()]
  for (let round = 0; round < ROUNDS; round++) {
    ours.push(await run(servers.barstock, { ...loadSpec(scenario, servers, 'ours'), ...timed }))
    base.push(await run(servers.bare, { ...loadSpec(scenario, servers, 'base'), ...timed }))
    ceiling.push(await run(trivial, { ...loadSpec(scenario, servers, 'ours'), url: trivial.url, ...timed }))
  }
  loads.push(loadAverage())
  // A wrong answer means the bench is broken; a timeout (an error here) is a figure of the run, reported.
  for (const result of [...ours, ...base]) {
    if (result.non2xx) throw new Error(`${scenario.name}: non-2xx answers in the run ${JSON.stringify({ ours, base })}`)
  }
  const row = {
    ours: best(ours),
    base: best(base),
    ceiling: best(ceiling),
    ratio: best(ours).requestsPerSecond / best(base).requestsPerSecond,
    load: loads.join(' → '),
    referenceMs: reference,
  }
  const rounds = (results: Measured[]) =>
    results
      .map(
        (result) =>
          `${result.requestsPerSecond.toFixed(0)} req/s p99 ${result.p99} ms ${result.cpuMicrosPerRequest.toFixed(0)} µs CPU/req (generator ${result.generatorCpuMicrosPerRequest.toFixed(0)})${result.errors ? ` ${result.errors} errors` : ''}`,
      )
      .join(', ')
  console.error(
    `${scenario.name} vs ${scenario.baseline}: barstock ${rounds(ours)}; baseline ${rounds(base)}; generator ceiling ${rounds(ceiling)}; load ${row.load}; reference workload ${reference.toFixed(0)} ms`,
  )
  return row
}

/** Each scenario's instructions per request on barstock and its baseline, both started under callgrind. */
async function measureInstructions(rows: Row[], start: (nodeOptions: string[], launcher: Launcher) => Promise<Servers>): Promise<void> {
  const counter: Callgrind = callgrind()
  try {
    const servers = await start(counter.nodeOptions, counter.launcher)
    try {
      for (const row of rows) {
        const count = (side: 'ours' | 'base') =>
          counter.perRequest(
            side === 'ours' ? servers.barstock : servers.bare,
            { ...loadSpec(row.scenario, servers, side), connections: 8, amount: row.scenario.countedRequests },
            row.scenario.countedRequests,
          )
        row.instructions = { ours: await count('ours'), base: await count('base') }
        const { ours, base } = row.instructions
        console.error(
          `${row.scenario.name} vs ${row.scenario.baseline}: instructions/req ${ours.perRequest.toFixed(0)} : ${base.perRequest.toFixed(0)} (idle ${ours.idlePerSecond.toFixed(0)} : ${base.idlePerSecond.toFixed(0)} a second)`,
        )
      }
    } finally {
      await servers.barstock.stop()
      await servers.bare.stop()
    }
  } finally {
    counter.cleanup()
  }
}

const thousands = (value: number) => Math.round(value).toLocaleString('en-US')

/**
 * A count whose requests did not all succeed counted other work (on a saturated machine, a server under
 * valgrind can time out its database connections): said in the table, where it cannot be missed.
 */
function failedNote({ ours, base }: { ours: InstructionCount; base: InstructionCount }): string {
  const failed = (count: InstructionCount) => count.load.errors + count.load.non2xx
  return failed(ours) + failed(base) > 0 ? `, not valid: ${failed(ours)} : ${failed(base)} requests failed` : ''
}

function table(rows: Row[]): string {
  const lines = [
    '| scenario | barstock req/s | p50 ms | p99 ms | baseline | baseline req/s | p50 ms | p99 ms | ratio | p99 ratio | CPU µs/req, barstock : baseline | generator ceiling req/s (× baseline) | instructions/req, barstock : baseline (ratio) | errors (timeouts), barstock : baseline | load average (1, 5, 15 min) | reference workload ms |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---|---|---|---|---:|',
  ]
  for (const { scenario, throughput: t, instructions: i } of rows) {
    const measured = t
      ? [
          t.ours.requestsPerSecond.toFixed(0),
          t.ours.p50,
          t.ours.p99,
          scenario.baseline,
          t.base.requestsPerSecond.toFixed(0),
          t.base.p50,
          t.base.p99,
          t.ratio.toFixed(2),
          (t.ours.p99 / t.base.p99).toFixed(2),
          `${t.ours.cpuMicrosPerRequest.toFixed(0)} : ${t.base.cpuMicrosPerRequest.toFixed(0)}`,
          `${t.ceiling.requestsPerSecond.toFixed(0)} (${(t.ceiling.requestsPerSecond / t.base.requestsPerSecond).toFixed(1)}×${t.ceiling.requestsPerSecond >= 2 * t.base.requestsPerSecond ? '' : ', below 2×: the generator may be the limit'})`,
        ]
      : ['—', '—', '—', scenario.baseline, '—', '—', '—', '—', '—', '—', '—']
    const counted = i ? `${thousands(i.ours.perRequest)} : ${thousands(i.base.perRequest)} (${(i.ours.perRequest / i.base.perRequest).toFixed(2)})${failedNote(i)}` : '—'
    const errors = t ? `${t.ours.errors} : ${t.base.errors}` : '—'
    lines.push(`| ${scenario.name} | ${measured.join(' | ')} | ${counted} | ${errors} | ${t?.load ?? '—'} | ${t ? t.referenceMs.toFixed(0) : '—'} |`)
  }
  return lines.join('\n')
}

async function main() {
  const url = process.env.DATABASE_URL
  if (!url) throw new Error('DATABASE_URL must name a PostgreSQL server (the bench creates and drops a database of its own there)')
  const parts = (process.env.BENCH_MEASURE ?? 'throughput,instructions').split(',').map((part) => part.trim())
  const countInstructions = parts.includes('instructions') && (await callgrindAvailable())
  const database = await scratchPostgres(url, 'barstock_inventory_bench')
  // Forecast refits wait their longest (an hour): the seeding's 1,000 new items would otherwise start one
  // a minute later, in barstock's process, in the middle of the runs (and of the instruction counts).
  const env = { DATABASE_URL: database.url, BARSTOCK_LOG_LEVEL: 'warn', BARSTOCK_RATE_LIMIT_PRODUCTION: '100000000', BARSTOCK_FORECAST_REFIT_DELAY_SECONDS: '3600' }
  const profile = process.env.BENCH_CPU_PROF
  const profiling = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []
  const started: BenchServer[] = []
  /** barstock and the baseline on the bench's database, their node run by `launcher`; stopped at the end at the latest. */
  const startServers = async (nodeOptions: string[], launcher: Launcher, key?: string): Promise<Servers> => {
    const barstock = await startQuietServer(env, nodeOptions, launcher)
    started.push(barstock)
    const bare = await forkListener(new URL('./bare-server.js', import.meta.url), { DATABASE_URL: database.url, BENCH_ACCOUNT: ACCOUNT, HOST: CONTROL_HOST }, nodeOptions, launcher)
    started.push(bare)
    return { barstock, bare, key: key ?? (await createKey()) }
  }
  const createKey = async () => {
    const created = await runCli(['keys', 'create', '--name', 'bench', '--permissions', '*', '--json'], env)
    if (created.code !== 0) throw new Error(`keys create failed: ${created.stderr}`)
    return (JSON.parse(created.stdout) as { key: string }).key
  }
  try {
    const servers = await startServers(profiling, [])
    const ids = await seed(servers.barstock.url, servers.key, ITEMS)
    // BENCH_SCENARIOS=put (comma-separated fragments of "<name> vs <baseline>") runs only the matching scenarios.
    const only = process.env.BENCH_SCENARIOS?.split(',').map((part) => part.trim().toLowerCase())
    const chosen = scenarios(ids).filter((candidate) => !only || only.some((part) => `${candidate.name} vs ${candidate.baseline}`.toLowerCase().includes(part)))
    const rows: Row[] = chosen.map((scenario) => ({ scenario }))
    if (parts.includes('throughput')) {
      const trivial = await forkListener(new URL('./trivial-server.js', import.meta.url), {})
      started.push(trivial)
      for (const row of rows) row.throughput = await measureThroughput(row.scenario, servers, trivial)
    }
    await servers.barstock.stop()
    await servers.bare.stop()
    if (countInstructions) await measureInstructions(rows, (nodeOptions, launcher) => startServers(nodeOptions, launcher, servers.key))
    const cpu = cpus()[0]?.model ?? 'unknown CPU'
    process.stdout.write(`\nPostgreSQL, ${CONNECTIONS} connections, ${DURATION} s a run, best of ${ROUNDS} rounds, ${cpus().length} cores (${cpu}), Node ${process.version}\n\n`)
    process.stdout.write(`${table(rows)}\n`)
  } finally {
    for (const server of started.reverse()) await server.stop()
    await database.drop()
  }
}

await main()
