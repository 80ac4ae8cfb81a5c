import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'
import { runDueRefit } from '../src/analytics/forecast/forecast-refit.js'
import { openPostgres } from '../src/platform/db/connect.js'
import { DAY_MS } from '../src/platform/zoned-time.js'
import { referenceMs } from './machine-speed.js'

/**
 * The forecast worker's pass over every tenant when none is due (issue 25, item 2): runDueRefit as the
 * worker runs it each minute, on a kept tenants-bench database (DATABASE_URL), with a refit delay of a
 * day so that no history change falls due and nothing is refitted: what is timed is the seeding of the
 * refit rows, the read of the claimable ones and the check of each. BENCH_BEFORE=<another build's dist>
 * times that build's runDueRefit too, the two alternated BENCH_ROUNDS (5) times, with the machine-speed
 * reference before each round.
 * Run: `DATABASE_URL=postgres://…/barstock_tenants_200_… BENCH_BEFORE=/path/to/before/dist node dist/bench/refit-pass.js`.
 */

type Pass = typeof runDueRefit
const url = process.env.DATABASE_URL
if (!url) throw new Error('set DATABASE_URL to a kept tenants-bench database')
const builds: { label: string; pass: Pass }[] = [{ label: 'this build', pass: runDueRefit }]
if (process.env.BENCH_BEFORE) {
  const module = await import(pathToFileURL(resolve(process.env.BENCH_BEFORE, 'src/analytics/forecast/forecast-refit.js')).href)
  builds.unshift({ label: 'before', pass: module.runDueRefit as Pass })
}
const database = await openPostgres(url, 2)
try {
  const tenants = await database.db
    .selectFrom('forecast_refits' as never)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
  const times = new Map(builds.map((build) => [build.label, [] as number[]]))
  for (let round = 0; round < rounds; round++) {
    const reference = referenceMs()
    for (const build of builds) {
      const started = performance.now()
      const pass = await build.pass(database.db, new Date(), { refitDelayMs: DAY_MS })
      const ms = performance.now() - started
      if (pass.run) throw new Error(`${build.label} ran a refit (${JSON.stringify(pass.run.tenant)}): the database has one due`)
      times.get(build.label)!.push(ms)
      console.log(`round ${round + 1}, ${build.label}: ${ms.toFixed(0)} ms (reference ${reference.toFixed(0)} ms)`)
    }
  }
  for (const [label, values] of times) {
    const sorted = [...values].sort((a, b) => a - b)
    console.log(`${label}: ${tenants.n} tenants, median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms, min ${sorted[0]!.toFixed(0)}, max ${sorted.at(-1)!.toFixed(0)}`)
  }
} finally {
  await database.close()
}
