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
 * 30-day variance report of `main_bar` and the 7-day forecast are loaded by a third process, one
 * connection, BENCH_SECONDS (default 20) each. The reference tells how slow the machine was made; the
 * p50s are then read against it.
 *
 * Run (root, cgroup v1 `cpu`): `DATABASE_URL=<the kept database's URL> node dist/bench/slow-reports.js`.
 */

interface ShareRow {
  share: number
  referenceMs: number
  loadAverage: number
  variance: LoadResult
  forecast: LoadResult
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
  const env = { DATABASE_URL: databaseUrl, BARSTOCK_DATA_DIR: dataDir, BARSTOCK_RATE_LIMIT_SANDBOX: '100000000', BARSTOCK_RATE_LIMIT_PRODUCTION: '100000000' }
  const keys = await runCli(['keys', 'create', '--name', 'slow-reports', '--permissions', '*', '--sandbox', '--json'], env)
  if (keys.code !== 0) throw new Error(`keys create failed: ${keys.stderr}`)
  const headers = { 'x-api-key': (JSON.parse(keys.stdout) as { key: string }).key }
  const server = await startQuietServer(env)
  const groups = { server: cpuShareGroup('server'), database: cpuShareGroup('database'), reference: cpuShareGroup('reference') }
  const stopFollowing = await followBackends(databaseUrl, groups.database)
  try {
    groups.server.add(server.child.pid as number)
    const now = Date.now()
    const day = (daysAgo: number) => new Date(now - daysAgo * DAY_MS).toISOString().slice(0, 10)
    const variancePath = `/v1/analytics/variance?date_from=${day(31)}&date_to=${day(1)}&location=main_bar`
    const load = async (path: string) => {
      const result = await runLoad({ url: server.url, method: 'GET', paths: [path], headers, connections: 1, durationSeconds: Number(process.env.BENCH_SECONDS ?? 20) })
      if (result.errors || result.non2xx) throw new Error(`errors in the run: ${JSON.stringify(result)}`)
      return result
    }
    const rows: ShareRow[] = []
    for (const share of shares) {
      const limit = share >= 1 ? undefined : share
      for (const group of Object.values(groups)) group.limit(limit)
      const referenceMs = await referenceIn(groups.reference)
      await fetch(`${server.url}${variancePath}`, { headers }) // stores the windows a first report computes
      const variance = await load(variancePath)
      const forecast = await load('/v1/analytics/forecast?days_ahead=7')
      rows.push({ share, referenceMs, loadAverage: loadavg()[0] ?? 0, variance, forecast })
      progress(`share ${share}: reference ${referenceMs.toFixed(0)} ms, variance p50 ${variance.p50} ms, forecast p50 ${forecast.p50} ms`)
    }
    return rows
  } finally {
    await stopFollowing()
    await server.stop()
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
  console.log('| CPU share | reference ms | × unlimited | variance p50 | p99 | forecast p50 | p99 | load |')
  console.log('|---|---|---|---|---|---|---|---|')
  const base = rows[0]?.referenceMs ?? 1
  for (const row of rows) {
    console.log(
      `| ${row.share} | ${row.referenceMs.toFixed(0)} | ${(row.referenceMs / base).toFixed(2)} | ${row.variance.p50} ms | ${row.variance.p99} ms | ${row.forecast.p50} ms | ${row.forecast.p99} ms | ${row.loadAverage.toFixed(1)} |`,
    )
  }
}
