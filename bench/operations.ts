import { cpus, loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { runCli } from '../test/helpers/server-process.js'
import { scratchPostgres } from '../test/helpers/context.js'
import { referenceMs } from './machine-speed.js'
import { startQuietServer } from './processes.js'

/**
 * What a transfer and a waste entry cost against a count of the same lines (issue 20: "no more than a
 * count"), measured the way the service runs: a scratch PostgreSQL database, `barstock serve` in a
 * process of its own as `npm start` starts it (log level warn, rate limit raised), and this process as the
 * client, one request at a time, the three kinds interleaved round by round so that a busy machine slows
 * all three alike. One request in flight: the client waits on the server, it is not the limit. Ratios
 * are of medians from the same run.
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:operations
 * BENCH_LINES (10) lines a request, BENCH_ROUNDS (60) requests of each kind.
 */

const LINES = Number(process.env.BENCH_LINES ?? 10)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60)

type Kind = 'count' | 'transfer' | 'waste'

async function post(url: string, key: string, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const text = await response.text()
  if (response.status !== 201) throw new Error(`${path}: ${response.status} ${text}`)
  return JSON.parse(text)
}

/** LINES products stocked at the storeroom and at main_bar under one SKU each; answers the two locations' item ids. */
async function seed(url: string, key: string): Promise<{ store: string[]; bar: string[] }> {
  await post(url, key, '/v1/locations', { id: 'storeroom', name: 'Storeroom' })
  const store: string[] = []
  const bar: string[] = []
  for (let index = 0; index < LINES; index++) {
    const product = { name: `Bench spirit ${index}`, sku: `OPS-${index}`, category: 'spirits', unit: 'bottle', size_ml: 750, cost_per_unit: 20 }
    store.push(((await post(url, key, '/v1/inventory/items', { ...product, location: 'storeroom', quantity: 100_000 })) as { data: { id: string } }).data.id)
    bar.push(((await post(url, key, '/v1/inventory/items', { ...product, location: 'main_bar', quantity: 100_000 })) as { data: { id: string } }).data.id)
  }
  return { store, bar }
}

function request(kind: Kind, items: { store: string[]; bar: string[] }, round: number): { path: string; body: unknown } {
  if (kind === 'count') {
    return { path: '/v1/inventory/count', body: { location: 'main_bar', counted_by: 'bench', items: items.bar.map((item_id) => ({ item_id, quantity: 100_000 - round })) } }
  }
  if (kind === 'transfer') {
    return {
      path: '/v1/inventory/transfers',
      body: { from_location: 'storeroom', to_location: 'main_bar', transferred_by: 'bench', items: items.store.map((item_id) => ({ item_id, quantity: 1 })) },
    }
  }
  return {
    path: '/v1/inventory/waste',
    body: { location: 'main_bar', recorded_by: 'bench', items: items.bar.map((item_id) => ({ item_id, quantity: 1, unit: 'oz', reason: 'spill' })) },
  }
}

function percentile(sorted: number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] as number
}

async function main() {
  const url = process.env.DATABASE_URL
  if (!url) throw new Error('DATABASE_URL must name a PostgreSQL server (the bench creates and drops a database of its own there)')
  const database = await scratchPostgres(url, 'barstock_operations_bench')
  const env = { DATABASE_URL: database.url, BARSTOCK_LOG_LEVEL: 'warn', BARSTOCK_RATE_LIMIT_PRODUCTION: '100000000' }
  const server = await startQuietServer(env)
  try {
    const created = await runCli(['keys', 'create', '--name', 'bench', '--permissions', '*', '--json'], env)
    if (created.code !== 0) throw new Error(`keys create failed: ${created.stderr}`)
    const key = (JSON.parse(created.stdout) as { key: string }).key
    const items = await seed(server.url, key)
    const reference = referenceMs()
    const times: Record<Kind, number[]> = { count: [], transfer: [], waste: [] }
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of ['count', 'transfer', 'waste'] as const) {
        const { path, body } = request(kind, items, round)
        const start = performance.now()
        await post(server.url, key, path, body)
        times[kind].push(performance.now() - start)
      }
    }
    const median = (kind: Kind) =>
      percentile(
        [...times[kind]].sort((a, b) => a - b),
        0.5,
      )
    const p90 = (kind: Kind) =>
      percentile(
        [...times[kind]].sort((a, b) => a - b),
        0.9,
      )
    process.stdout.write(
      `\nPostgreSQL, ${LINES} lines a request, ${ROUNDS} rounds, one request at a time; ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}; reference workload ${reference.toFixed(0)} ms; load ${loadavg()
        .map((load) => load.toFixed(2))
        .join(', ')}\n\n`,
    )
    process.stdout.write('| request | p50 ms | p90 ms | p50 ÷ count’s |\n|---|---:|---:|---:|\n')
    for (const kind of ['count', 'transfer', 'waste'] as const) {
      process.stdout.write(`| ${kind} | ${median(kind).toFixed(1)} | ${p90(kind).toFixed(1)} | ${(median(kind) / median('count')).toFixed(2)} |\n`)
    }
  } finally {
    await server.stop()
    await database.drop()
  }
}

await main()
