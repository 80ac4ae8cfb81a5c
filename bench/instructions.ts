import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { LoadResult, LoadSpec } from './load-worker.js'
import { type BenchServer, type Launcher, runLoad } from './processes.js'

/**
 * Instructions a server process executes per request, counted by valgrind's callgrind: a figure the
 * machine's speed and its other load do not move, where throughput and CPU time follow both. (`perf stat
 * -e instructions` would be cheaper, but this machine's virtual CPU exposes no counters: "<not
 * supported>".) The server starts under callgrind with counting off and V8 on one thread
 * (`--single-threaded`: it compiles hot code and collects garbage on the main thread, at the same points
 * in every run, where with helper threads the count followed how the machine scheduled them: 0.93 and
 * 1.39 million instructions per GET in two runs of the same code). A warm-up load lets V8 compile its hot
 * code; after a pause, what the idle process executes (the workers' polls and timers) is counted for a
 * few seconds, then a fixed number of requests, from which the idle rate over the load's duration is
 * subtracted.
 */

const run = promisify(execFile)

/** The $HOST of every process under callgrind (see `control`). */
export const CONTROL_HOST = '127.0.0.1'

export interface Callgrind {
  launcher: Launcher
  /** The options of the `node` it runs. */
  nodeOptions: string[]
  /** Instructions per answered request of `spec` on `server` (started with `launcher`), after `warmup` requests. */
  perRequest(server: BenchServer, spec: LoadSpec, warmup: number): Promise<InstructionCount>
  cleanup(): void
}

export interface InstructionCount {
  perRequest: number
  /** What the idle process executed per second, subtracted in proportion to the measured load's time. */
  idlePerSecond: number
  load: LoadResult
}

/** Whether valgrind is installed. */
export async function callgrindAvailable(): Promise<boolean> {
  return run('valgrind', ['--version']).then(
    () => true,
    () => false,
  )
}

export function callgrind(): Callgrind {
  const directory = mkdtempSync(join(tmpdir(), 'barstock-callgrind-'))
  // valgrind names its command pipes after $USER and $HOST of the process it runs; barstock's HOST is the
  // address it listens on, so the servers and callgrind_control all run with that one.
  const control = (pid: number, ...command: string[]) => run('callgrind_control', [...command, String(pid)], { env: { ...process.env, HOST: CONTROL_HOST } })

  const dumps = new Map<number, number>()
  /**
   * The instructions counted since the last zeroing: dumps them and reads the dump's summary. callgrind
   * answers the command before it has written the file (`cg.<pid>.<n>`, n counting the process's dumps),
   * so this waits for its last line.
   */
  async function dumpCount(pid: number): Promise<number> {
    const number = (dumps.get(pid) ?? 0) + 1
    dumps.set(pid, number)
    await control(pid, '--dump')
    const file = join(directory, `cg.${pid}.${number}`)
    for (let waited = 0; waited < 60_000; waited += 200) {
      const text = existsSync(file) ? readFileSync(file, 'utf8') : ''
      const summary = /^summary: (\d+)/m.exec(text)
      if (summary && /^totals: /m.test(text)) return Number(summary[1])
      await delay(200)
    }
    throw new Error(`callgrind wrote no dump ${file}`)
  }

  /** Counts instructions while `work` runs; answers them with the seconds it took. */
  async function counted(pid: number, work: () => Promise<unknown>): Promise<{ instructions: number; seconds: number }> {
    await control(pid, '--zero')
    const start = performance.now()
    await work()
    const seconds = (performance.now() - start) / 1000
    return { instructions: await dumpCount(pid), seconds }
  }

  return {
    launcher: ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${join(directory, 'cg.%p')}`],
    nodeOptions: ['--single-threaded'],
    async perRequest(server, spec, warmup) {
      const pid = server.child.pid!
      await runLoad({ ...spec, amount: warmup })
      await delay(2_000)
      await control(pid, '--instr=on')
      const idle = await counted(pid, () => delay(5_000))
      let load: LoadResult | undefined
      const loaded = await counted(pid, async () => (load = await runLoad(spec)))
      await control(pid, '--instr=off')
      const idlePerSecond = idle.instructions / idle.seconds
      return { perRequest: (loaded.instructions - idlePerSecond * loaded.seconds) / load!.total, idlePerSecond, load: load! }
    },
    cleanup: () => rmSync(directory, { recursive: true, force: true }),
  }
}
