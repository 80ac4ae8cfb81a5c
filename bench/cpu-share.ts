import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'

/**
 * A share of one core for a set of processes, through a cgroup of the v1 `cpu` controller (CFS bandwidth:
 * every 10 ms the processes in the group together run at most `share` × 10 ms). A bench puts the server,
 * its database backends and a machine-speed reference each in such a group to run them as on a slower
 * machine, and the reference timed inside the group shows how much slower (bench/slow-reports.ts).
 *
 * Throttling is not a slower clock: inside a period the processes run at full speed, then wait, so a
 * request's time moves in steps of up to one period, and memory and disk are not slowed.
 */
export interface CpuShareGroup {
  /** Moves a process (all its threads) into the group; false when it has ended meanwhile. */
  add(pid: number): boolean
  /** Limits the group to `share` of one core; `undefined` lifts the limit. */
  limit(share: number | undefined): void
  /**
   * Moves the group's processes back to the root group and removes the group, once the processes that
   * were ending have left it (the kernel refuses to remove a group that still holds one).
   */
  remove(): Promise<void>
}

const V1_CPU_ROOT = '/sys/fs/cgroup/cpu'
const PERIOD_US = 10_000

/** Whether this machine lets the bench make cpu groups (root, cgroup v1 `cpu` mounted). */
export function cpuSharesAvailable(): boolean {
  return existsSync(join(V1_CPU_ROOT, 'cpu.cfs_quota_us'))
}

/** Writes `pid` into a group's `cgroup.procs`; false when no such process is left (ESRCH). */
function movePid(procsFile: string, pid: number): boolean {
  try {
    writeFileSync(procsFile, String(pid))
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false
    throw error
  }
}

/** A new group named `name` under the root group, unlimited until `limit` is called. */
export function cpuShareGroup(name: string): CpuShareGroup {
  const directory = join(V1_CPU_ROOT, `barstock-bench-${process.pid}-${name}`)
  mkdirSync(directory)
  writeFileSync(join(directory, 'cpu.cfs_period_us'), String(PERIOD_US))
  const procs = join(directory, 'cgroup.procs')
  return {
    add: (pid) => movePid(procs, pid),
    limit: (share) => writeFileSync(join(directory, 'cpu.cfs_quota_us'), share === undefined ? '-1' : String(Math.round(share * PERIOD_US))),
    async remove() {
      for (let attempt = 1; ; attempt++) {
        // A process that ended meanwhile cannot be moved; it leaves the group by itself.
        for (const pid of readFileSync(procs, 'utf8').split('\n').filter(Boolean)) movePid(join(V1_CPU_ROOT, 'cgroup.procs'), Number(pid))
        try {
          return rmdirSync(directory)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EBUSY' || attempt === 50) throw error
          await delay(100)
        }
      }
    },
  }
}
