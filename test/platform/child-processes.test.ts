import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

const FIXTURE = fileURLToPath(new URL('../helpers/failing-server.fixture.js', import.meta.url))

/** Whether a process runs: a reaped one has no /proc entry, and a zombie (Z) runs no more. */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

async function serverPidAfterFailure(mode: 'throw' | 'signal'): Promise<number> {
  const stdout = await new Promise<string>((resolve) => execFile(process.execPath, [FIXTURE, mode], (_error, out) => resolve(out)))
  const pid = Number(/server pid (\d+)/.exec(stdout)?.[1])
  assert.ok(pid > 0, `the fixture started a server: ${stdout}`)
  return pid
}

async function waitUntilGone(pid: number): Promise<boolean> {
  for (let tries = 0; tries < 100 && isRunning(pid); tries++) await new Promise((resolve) => setTimeout(resolve, 50))
  return !isRunning(pid)
}

for (const mode of ['throw', 'signal'] as const) {
  test(`a server a test started is killed when the test process ends by ${mode === 'throw' ? 'an error' : 'SIGTERM'}`, { timeout: 240_000 }, async () => {
    const pid = await serverPidAfterFailure(mode)
    assert.equal(await waitUntilGone(pid), true, `server ${pid} still runs`)
  })
}
