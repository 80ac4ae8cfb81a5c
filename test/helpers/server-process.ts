import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { projectPath } from '../../src/platform/paths.js'

const run = promisify(execFile)
export const CLI = projectPath('dist', 'src', 'cli', 'main.js')

/**
 * How long a server or worker process may take to migrate a fresh data dir and be ready: 23–85 s were
 * measured with other work saturating this machine's two cores (load average 15–30), and the CI runs
 * must pass then too.
 */
const LISTEN_TIMEOUT_MS = 120_000

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

/**
 * Every process the tests start, killed when this test process ends however it ends: a failed or timed-out
 * test (the runner ends a file with SIGTERM) must not leave a server running after `npm test`.
 */
const children = new Set<ChildProcess>()
/**
 * SIGKILLs every process the tests of this process started that still runs. The shard runner calls it
 * after each file: a test that timed out while a server started never got to kill it, and its open pipes
 * would keep the shard's process (and `npm test`) running for good.
 */
export const killChildren = () => children.forEach((child) => child.kill('SIGKILL'))

/** Has `child` killed with the others when this test process ends (a process a test starts itself). */
export function killAtExit(child: ChildProcess): void {
  children.add(child)
  child.on('exit', () => children.delete(child))
}
process.on('exit', killChildren)
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    killChildren()
    process.exit(1)
  })
}

/**
 * Starts a barstock CLI command and waits until its output matches `ready` (the match is returned); a
 * process that exits or stays silent that long is killed and the start fails with its output.
 */
export async function startCliProcess(args: string[], env: Record<string, string>, ready: RegExp) {
  const child = spawn(process.execPath, [CLI, ...args], { env: childEnv(env) })
  killAtExit(child)
  let output = ''
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const found = ready.exec(output)
      if (found) resolve(found)
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    void exited.then((code) => reject(new Error(`barstock ${args[0]} exited with ${code} before it was ready:\n${output}`)))
    setTimeout(() => reject(new Error(`barstock ${args[0]} was not ready within ${LISTEN_TIMEOUT_MS / 1000} s:\n${output}`)), LISTEN_TIMEOUT_MS).unref()
  }).catch((error: unknown) => {
    child.kill('SIGKILL')
    throw error
  })
  return { child, match, output: () => output, exited }
}

/** Starts `barstock serve` on a free port and waits until it listens. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const { match, ...server } = await startCliProcess(['serve'], { PORT: '0', HOST: '127.0.0.1', ...env }, /Server listening at (http:\/\/127\.0\.0\.1:\d+)/)
  return { ...server, url: match[1]! }
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
