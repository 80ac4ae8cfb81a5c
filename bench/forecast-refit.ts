import { cpus, loadavg } from 'node:os'
import { forecastDemand } from '../src/analytics/forecast/demand-forecast.js'
import { initForecasting } from '../src/analytics/forecast/augurs.js'
import { locationAdjustments } from '../src/analytics/forecast/location-pooling.js'
import { syntheticSeries } from './forecast-series.js'
import { referenceMs } from './machine-speed.js'

/**
 * Refit timing: the location's adjustments from all 1,000 series (one location, as the refit computes
 * them first), then forecastDemand (back-test and model choice included) over each series of 365 days,
 * one after the other on this one thread, as the background refit runs them. The budget is 60 s in total.
 * Wall time grows with the machine's load; the process's CPU time is what one core spent. The
 * machine-speed reference (bench/machine-speed.ts) is timed before and after, in the same process.
 * Run: npm run bench:forecast-refit.
 */

const ITEMS = 1000
const DAYS = 365

function main(): void {
  // 125 series of each of the 8 synthetic families.
  const series = syntheticSeries(ITEMS / 8, DAYS, 500_000)
  const referenceBefore = referenceMs()
  const initStarted = performance.now()
  initForecasting()
  const initMs = performance.now() - initStarted
  const durations: number[] = []
  const started = performance.now()
  const cpuStarted = process.cpuUsage()
  const location = locationAdjustments(series.map(({ values }) => values))
  const locationMs = performance.now() - started
  for (const { values } of series) {
    const itemStarted = performance.now()
    forecastDemand(values, { smoothingAlpha: location.smoothingAlpha })
    durations.push(performance.now() - itemStarted)
  }
  const totalMs = performance.now() - started
  const cpu = process.cpuUsage(cpuStarted)
  durations.sort((a, b) => a - b)
  const at = (share: number) => (durations[Math.min(durations.length - 1, Math.floor(share * durations.length))] ?? 0).toFixed(1)
  console.log(`| items | days | total (wall) | CPU time | location's adjustments (wall) | per item (mean) | p50 | p95 | max | WebAssembly load |`)
  console.log(`|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|`)
  console.log(
    `| ${series.length} | ${DAYS} | ${(totalMs / 1000).toFixed(1)} s | ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s | ${locationMs.toFixed(0)} ms | ${(totalMs / series.length).toFixed(1)} ms | ${at(0.5)} ms | ${at(0.95)} ms | ${at(1 - 1e-9)} ms | ${initMs.toFixed(0)} ms |`,
  )
  const referenceAfter = referenceMs()
  console.log(
    `\n${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores (one used), node ${process.version}; machine-speed reference ${referenceBefore.toFixed(0)} ms before, ${referenceAfter.toFixed(0)} ms after; load average ${loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}`,
  )
}

main()
