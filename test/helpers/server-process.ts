import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { projectPath } from '../../src/platform/paths.js'

const run = promisify(execFile)
export const CLI = projectPath('dist', 'src', 'cli', 'main.js')

/** A fresh data dir for a real server process; removed by `cleanup`. */
export function tempDataDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'barstock-test-'))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

const scratchCleanups: (() => void)[] = []
process.on('exit', () => scratchCleanups.forEach((cleanup) => cleanup()))

/** A fresh data dir, removed when the test process exits. */
export function scratchDataDir(): string {
  const { dir, cleanup } = tempDataDir()
  scratchCleanups.push(cleanup)
  return dir
}

/** The environment of a child process: this one's, minus DATABASE_URL/REDIS_URL, plus `env`. */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, REDIS_URL: _r, ...rest } = process.env
  return { ...rest, BARSTOCK_LOG_LEVEL: 'info', ...env }
}

export interface ServerProcess {
  child: ChildProcess
  url: string
  output: () => string
  /** Resolves with the exit code once the process ends. */
  exited: Promise<number | null>
}

/** Starts `barstock serve` on a free port and waits until it listens. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [CLI, 'serve'], { env: childEnv({ PORT: '0', HOST: '127.0.0.1', ...env }) })
  let output = ''
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (match) resolve(match[1]!)
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    exited.then((code) => reject(new Error(`server exited with ${code} before listening:\n${output}`)))
    setTimeout(() => reject(new Error(`server did not listen within 30 s:\n${output}`)), 30_000).unref()
  })
  return { child, url, output: () => output, exited }
}

/** Runs the barstock CLI; resolves with stdout, stderr and the exit code. */
export async function runCli(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: childEnv(env) })
    return { stdout, stderr, code: 0 }
  } catch (error) {
    const failure = error as { stdout: string; stderr: string; code: number }
    return { stdout: failure.stdout, stderr: failure.stderr, code: failure.code }
  }
}

/** Resolves once the server's output so far satisfies `seen` (log lines arrive after the answer they describe). */
export async function waitForOutput(server: ServerProcess, seen: (output: string) => boolean, timeoutMs = 30_000): Promise<string> {
  if (seen(server.output())) return server.output()
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!seen(server.output())) return
      cleanup()
      resolve(server.output())
    }
    const timer = setTimeout(() => {
      cleanup()
      reject(new Error(`expected output did not appear within ${timeoutMs} ms:\n${server.output()}`))
    }, timeoutMs)
    const cleanup = () => {
      clearTimeout(timer)
      server.child.stdout?.off('data', check)
      server.child.stderr?.off('data', check)
    }
    // After the helper's own listeners, so output() already holds the new chunk.
    server.child.stdout?.on('data', check)
    server.child.stderr?.on('data', check)
  })
}

/** The complete JSON log lines among a server's output (a line still being written is left out). */
export function logLines(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}
