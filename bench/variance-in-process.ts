import { readFileSync, writeFileSync } from 'node:fs'
import { sql } from 'kysely'
import { openPostgres } from '../src/platform/db/connect.js'
import type { Tenant } from '../src/platform/db/database.js'
import { varianceReport } from '../src/analytics/variance/variance.service.js'
import { DAY_MS } from '../src/platform/zoned-time.js'

/**
 * The variance report called in this process against a database the analytics bench kept
 * (`BENCH_KEEP=1 node dist/bench/analytics.js` prints its URL): the Node CPU time and the wall time of
 * each report, for comparing commits on the same data where the HTTP figures drown in a busy machine's
 * noise. Also the CPU time of the database's backends per report (PostgreSQL on this host: their
 * /proc schedstat), which a machine held to a share of a core pays in full, though two backends at once
 * hide it from the wall time. Run: `BENCH_REUSE=<url> node dist/bench/variance-in-process.js [reports] [json file]`; the
 * period is the bench's (the 30 days before yesterday) unless BENCH_FROM and BENCH_TO say otherwise. The
 * first two reports are left out of the median (warm-up); the last report's JSON goes to the file, for
 * comparing outputs byte for byte.
 */

const WARM_UP = 2

/** The CPU time (ns) each backend of the bench's database has run, by pid: /proc/<pid>/schedstat's first field. */
async function backendCpu(db: Parameters<typeof varianceReport>[0]): Promise<Map<number, number>> {
  const backends = await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`.execute(db)
  const cpu = new Map<number, number>()
  for (const { pid } of backends.rows) {
    try {
      cpu.set(pid, Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]))
    } catch {
      // A backend that ended meanwhile: its time is not counted.
    }
  }
  return cpu
}

/** The backends' CPU (ms) between two readings; a backend new since the first counts whole. */
function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let ns = 0
  for (const [pid, total] of after) ns += total - (before.get(pid) ?? 0)
  return ns / 1e6
}

const url = process.env.BENCH_REUSE
if (!url) throw new Error('BENCH_REUSE=<the kept database URL> is required')
const reports = Number(process.argv[2] ?? 10)
const output = process.argv[3]
const handle = await openPostgres(url, 10)
try {
  const accounts = await sql<{ id: string }>`SELECT id FROM accounts ORDER BY created_at`.execute(handle.db)
  if (accounts.rows.length !== 1) throw new Error(`expected the bench's one account, found ${accounts.rows.length}`)
  const tenant: Tenant = { accountId: (accounts.rows[0] as { id: string }).id, environment: 'sandbox' }
  const now = Date.now()
  const query = {
    date_from: process.env.BENCH_FROM ?? new Date(now - 31 * DAY_MS).toISOString().slice(0, 10),
    date_to: process.env.BENCH_TO ?? new Date(now - DAY_MS).toISOString().slice(0, 10),
  }
  const cpu: number[] = []
  const database: number[] = []
  const wall: number[] = []
  let last: unknown
  for (let index = 0; index < reports; index++) {
    const startDatabase = await backendCpu(handle.db)
    const startCpu = process.cpuUsage()
    const startWall = performance.now()
    last = await varianceReport(handle.db, tenant, query)
    const used = process.cpuUsage(startCpu)
    wall.push(performance.now() - startWall)
    cpu.push((used.user + used.system) / 1000)
    database.push(cpuBetween(startDatabase, await backendCpu(handle.db)))
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b)
    return sorted[Math.floor(sorted.length / 2)] as number
  }
  const kept = (values: number[]) => values.slice(WARM_UP)
  console.log(`period ${query.date_from}/${query.date_to}, ${reports} reports, first ${WARM_UP} left out`)
  console.log(`CPU per report (ms): ${cpu.map((value) => value.toFixed(0)).join(' ')}; median ${median(kept(cpu)).toFixed(0)}, lowest ${Math.min(...kept(cpu)).toFixed(0)}`)
  console.log(
    `database CPU per report (ms): ${database.map((value) => value.toFixed(0)).join(' ')}; median ${median(kept(database)).toFixed(0)}, lowest ${Math.min(...kept(database)).toFixed(0)}`,
  )
  console.log(`wall per report (ms): ${wall.map((value) => value.toFixed(0)).join(' ')}; median ${median(kept(wall)).toFixed(0)}, lowest ${Math.min(...kept(wall)).toFixed(0)}`)
  if (output) writeFileSync(output, JSON.stringify(last))
} finally {
  await handle.close()
}
