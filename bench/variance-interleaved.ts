import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { sql } from 'kysely'
import { openPostgres } from '../src/platform/db/connect.js'
import type { Tenant } from '../src/platform/db/database.js'
import { varianceReport } from '../src/analytics/variance/variance.service.js'
import { getDemandForecast } from '../src/analytics/forecast/forecast.service.js'
import { referenceMs } from './machine-speed.js'
import { DAY_MS } from '../src/platform/zoned-time.js'

/**
 * The variance report of this build against another build's (an earlier commit's `dist/`, copied aside),
 * called alternately in one process, report by report, on a database the analytics bench kept: where a
 * busy machine's speed moves by a factor of two within minutes, only a ratio taken this close is worth
 * reading. Each pair's two answers must be byte for byte the same (JSON). Run:
 * `BENCH_REUSE=<url> BENCH_BEFORE=<the other build's dist> node dist/bench/variance-interleaved.js [pairs]`;
 * the bench's report (`location=main_bar`, the 30 days before yesterday). The first three pairs are left
 * out (warm-up); the order inside a pair alternates. The reference workload is timed before every tenth
 * pair (its first figure is the one to read: later ones run optimized by the JIT). BENCH_REPORT=forecast
 * compares the forecast endpoint's answer instead (`getDemandForecast`, all items, 7 days ahead, as the
 * analytics bench asks for it).
 */

const WARM_UP = 3

const url = process.env.BENCH_REUSE
const otherBuild = process.env.BENCH_BEFORE
if (!url || !otherBuild) throw new Error('BENCH_REUSE=<the kept database URL> and BENCH_BEFORE=<another build’s dist directory> are required')
const forecast = process.env.BENCH_REPORT === 'forecast'
/** A module of the other build, at its path since analytics' sub-folders or, for an older build, before them. */
async function fromOtherBuild<Module>(folder: string, file: string): Promise<Module> {
  const current = resolve(otherBuild as string, 'src/analytics', folder, file)
  return (await import(pathToFileURL(existsSync(current) ? current : resolve(otherBuild as string, 'src/analytics', file)).href)) as Module
}
const otherVariance = await fromOtherBuild<{ varianceReport: typeof varianceReport }>('variance', 'variance.service.js')
const otherForecast = await fromOtherBuild<{ getDemandForecast: typeof getDemandForecast }>('forecast', 'forecast.service.js')
const pairs = Number(process.argv[2] ?? 40)
const handle = await openPostgres(url, 10)
try {
  const accounts = await sql<{ id: string }>`SELECT id FROM accounts ORDER BY created_at`.execute(handle.db)
  if (accounts.rows.length !== 1) throw new Error(`expected the bench's one account, found ${accounts.rows.length}`)
  const tenant: Tenant = { accountId: (accounts.rows[0] as { id: string }).id, environment: 'sandbox' }
  const now = new Date()
  const query = {
    date_from: new Date(now.getTime() - 31 * DAY_MS).toISOString().slice(0, 10),
    date_to: new Date(now.getTime() - DAY_MS).toISOString().slice(0, 10),
    location: 'main_bar',
  }
  // The refit delay only words an error this comparison does not meet.
  const sides = forecast
    ? {
        before: (db: typeof handle.db) => otherForecast.getDemandForecast(db, tenant, { days_ahead: 7 }, 60_000),
        after: (db: typeof handle.db) => getDemandForecast(db, tenant, { days_ahead: 7 }, 60_000),
      }
    : { before: (db: typeof handle.db) => otherVariance.varianceReport(db, tenant, query, now), after: (db: typeof handle.db) => varianceReport(db, tenant, query, now) }
  const walls = { before: [] as number[], after: [] as number[] }
  const references: number[] = []
  for (let pair = 0; pair < pairs + WARM_UP; pair++) {
    if (pair % 10 === 0) references.push(referenceMs())
    const order = pair % 2 === 0 ? (['after', 'before'] as const) : (['before', 'after'] as const)
    const answers: string[] = []
    for (const side of order) {
      const start = performance.now()
      answers.push(JSON.stringify(await sides[side](handle.db)))
      if (pair >= WARM_UP) walls[side].push(performance.now() - start)
    }
    if (answers[0] !== answers[1]) throw new Error(`the two builds answered differently in pair ${pair}`)
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number
  const ratios = walls.after.map((wall, index) => wall / (walls.before[index] as number))
  console.log(`${pairs} pairs (first ${WARM_UP} left out), answers identical; reference workload (ms): ${references.map((value) => value.toFixed(0)).join(' ')}`)
  console.log(
    `wall p50 other build ${median(walls.before).toFixed(0)} ms, this build ${median(walls.after).toFixed(0)} ms; ratio of the p50s ${(median(walls.after) / median(walls.before)).toFixed(2)}, median of the pairs' ratios ${median(ratios).toFixed(2)}`,
  )
} finally {
  await handle.close()
}
