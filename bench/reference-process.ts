import { referenceMs } from './machine-speed.js'

/**
 * The machine-speed reference in a process of its own, forked with IPC: it waits for a message, times the
 * workload and sends the milliseconds back, so the bench can first place it in a cpu group
 * (bench/slow-reports.ts).
 */
process.once('message', () => {
  process.send?.(referenceMs(), () => process.exit(0))
})
