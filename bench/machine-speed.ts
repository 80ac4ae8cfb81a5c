import { performance } from 'node:perf_hooks'

/**
 * A fixed CPU-bound workload's time in this process (30 M integer steps): the machine-speed reference a
 * bench prints beside its absolute figures, timed in the same run, so that figures from a shared machine
 * can be read against how fast it was at the time.
 */
export function referenceMs(): number {
  const start = performance.now()
  let hash = 0
  for (let index = 0; index < 30_000_000; index++) hash = (hash * 31 + index) | 0
  if (hash === 42) console.error('')
  return performance.now() - start
}
