import { type ChildProcess, fork, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { setTimeout as delay } from 'node:timers/promises'
import { CLI, childEnv } from '../test/helpers/server-process.js'
import type { LoadResult, LoadSpec } from './load-worker.js'
import { freePort } from '../test/helpers/free-port.js'

/** The processes a benchmark starts: the server as `npm start` runs it, baselines, load generators. */

export interface BenchServer {
  url: string
  child: ChildProcess
  /** SIGTERM, then SIGKILL if it has not exited within 15 s; resolves once it has. */
  stop: () => Promise<unknown>
}

/** Ends `child` (SIGTERM, SIGKILL after 15 s) and resolves once it exited. */
function stopper(child: ChildProcess, exited: Promise<unknown>): () => Promise<unknown> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const forced = setTimeout(() => child.kill('SIGKILL'), 15_000)
    await exited
    clearTimeout(forced)
  }
}

/**
 * What runs a server's `node`: the command itself, or a tool that runs it (`valgrind …`), its arguments
 * before node's own.
 */
export type Launcher = string[]

/** The command and arguments that run `node nodeArguments…` under `launcher`. */
function launch(launcher: Launcher, nodeArguments: string[]): [string, string[]] {
  const [command, ...rest] = [...launcher, process.execPath, ...nodeArguments]
  return [command!, rest]
}

/**
 * `barstock serve` as `npm start` runs it, at log level warn (per-request logs would be part of the
 * measure otherwise), so it does not print its port: it gets a free one, and another starts if someone
 * took it meanwhile. `nodeOptions` go before the script (e.g. `--cpu-prof`); `cli` is another build's
 * `dist/src/cli/main.js` when a bench compares two.
 */
export async function startQuietServer(env: Record<string, string>, nodeOptions: string[] = [], launcher: Launcher = [], cli = CLI, attempts = 3): Promise<BenchServer> {
  const port = await freePort()
  const child = spawn(...launch(launcher, [...nodeOptions, cli, 'serve']), {
    env: childEnv({ BARSTOCK_LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: 'inherit',
  })
  const exited = new Promise((resolve) => child.on('exit', resolve))
  const server = { url: `http://127.0.0.1:${port}`, child, stop: stopper(child, exited) }
  try {
    for (;;) {
      const ready = await fetch(`${server.url}/readyz`).catch(() => undefined)
      if (ready?.status === 200) return server
      if (child.exitCode !== null) {
        if (attempts > 1) return startQuietServer(env, nodeOptions, launcher, cli, attempts - 1)
        throw new Error(`server exited with ${child.exitCode}`)
      }
      await delay(200)
    }
  } catch (error) {
    await server.stop()
    throw error
  }
}

/** Forks a bench script that sends `{ url }` over IPC once it listens; `nodeOptions` and `launcher` as for startQuietServer. */
export async function forkListener(script: URL, env: Record<string, string>, nodeOptions: string[] = [], launcher: Launcher = []): Promise<BenchServer> {
  const [execPath, execArgv] = launch(launcher, nodeOptions)
  const child = fork(fileURLToPath(script), { env: { ...process.env, ...env }, execPath, execArgv })
  const exited = new Promise((resolve) => child.on('exit', resolve))
  const stop = stopper(child, exited)
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.once('message', (message) => resolve((message as { url: string }).url))
      child.once('exit', (code) => reject(new Error(`${script.pathname} exited with ${code} before listening`)))
    })
    return { url, child, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** One autocannon run in a process of its own (bench/load-worker.ts). */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./load-worker.js', import.meta.url)), { env: { ...process.env, BENCH_LOAD_SPEC: JSON.stringify(spec) } })
    child.once('message', (result) => resolve(result as LoadResult))
    child.once('error', reject)
    child.once('exit', (code) => code === 0 || reject(new Error(`load generator exited with ${code}`)))
  })
}
