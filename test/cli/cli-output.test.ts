import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { projectPath } from '../../src/platform/paths.js'
import { childEnv, runCli, startServerProcess } from '../helpers/server-process.js'
import { migratedDataDir } from '../helpers/pglite-image.js'

const run = promisify(execFile)
const dataDir = migratedDataDir

test('barstock --version prints the version in package.json', async () => {
  const { version } = JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string }
  const result = await runCli(['--version'], {})
  assert.equal(result.code, 0)
  assert.equal(result.stdout, `${version}\n`)
})

test("--json output through the run contract's `npm run barstock --` (and `npm run -s`) is JSON alone; the data dir is named on stderr", async () => {
  const dir = await dataDir()
  for (const npmRun of [['run'], ['run', '-s']]) {
    const { stdout, stderr } = await run('npm', [...npmRun, 'barstock', '--', 'keys', 'create', '--name', 'ci', '--permissions', '*', '--json'], {
      cwd: projectPath(),
      env: childEnv({ BARSTOCK_DATA_DIR: dir }),
    })
    assert.deepEqual(Object.keys(JSON.parse(stdout)), ['id', 'key', 'name', 'permissions', 'environment'], stdout)
    assert.ok(stderr.includes(`barstock: data dir ${dir}\n`), stderr)
  }
})

test('a command on a data dir no server holds warns when a server answers on the port; through the server it does not', async () => {
  const serverDir = await dataDir()
  const server = await startServerProcess({ BARSTOCK_DATA_DIR: serverDir })
  try {
    const port = new URL(server.url).port
    const otherDir = await dataDir()
    const elsewhere = await runCli(['keys', 'list', '--json'], { BARSTOCK_DATA_DIR: otherDir, PORT: port })
    assert.equal(elsewhere.code, 0, elsewhere.stderr)
    assert.deepEqual(JSON.parse(elsewhere.stdout), [])
    assert.ok(elsewhere.stderr.includes(`warning: a barstock server answers on http://127.0.0.1:${port} but does not hold ${otherDir}`), elsewhere.stderr)
    assert.match(elsewhere.stderr, /Set BARSTOCK_DATA_DIR to its data dir/)

    const through = await runCli(['keys', 'list', '--json'], { BARSTOCK_DATA_DIR: serverDir, PORT: port })
    assert.equal(through.code, 0, through.stderr)
    assert.equal(through.stderr, `barstock: data dir ${serverDir} (through the server running as pid ${server.child.pid})\n`)

    // migrate opens the data dir itself: refused while the server holds it, with no word of another server.
    const migrating = await runCli(['migrate'], { BARSTOCK_DATA_DIR: serverDir, PORT: port })
    assert.equal(migrating.code, 1)
    assert.match(migrating.stderr, new RegExp(`in use by another barstock server \\(pid ${server.child.pid}\\)`))
    assert.doesNotMatch(migrating.stderr, /warning/)
  } finally {
    server.child.kill('SIGTERM')
    assert.equal(await server.exited, 0)
  }
})

test('a command on a new data dir says plainly that it makes a database no running server uses', async () => {
  const fresh = join(await mkdtemp(join(tmpdir(), 'barstock-new-')), 'data')
  const created = await runCli(['keys', 'create', '--name', 'x', '--permissions', '*', '--json'], { BARSTOCK_DATA_DIR: fresh })
  assert.equal(created.code, 0, created.stderr)
  assert.match(created.stderr, new RegExp(`warning: the data dir ${fresh} is new: .*a key made here reaches no server`))
  const again = await runCli(['keys', 'list', '--json'], { BARSTOCK_DATA_DIR: fresh })
  assert.doesNotMatch(again.stderr, /is new/)
})

test('CLI errors are one message and exit code 1, never a stack trace', async () => {
  const dir = await dataDir()
  const missing = await runCli(['keys', 'revoke', 'key_nope'], { BARSTOCK_DATA_DIR: dir })
  assert.equal(missing.code, 1)
  assert.equal(missing.stderr, `barstock: data dir ${dir}\nbarstock: no key key_nope\n`)

  // Nothing listens on port 1: the driver's error, with the database named without its password.
  const unreachable = await runCli(['accounts', 'list'], { DATABASE_URL: 'postgres://barstock:hunter2@127.0.0.1:1/barstock' })
  assert.equal(unreachable.code, 1)
  assert.equal(unreachable.stderr, 'barstock: database postgres://barstock@127.0.0.1:1/barstock\nbarstock: connect ECONNREFUSED 127.0.0.1:1\n')
  assert.equal(unreachable.stdout, '')

  // The command line itself, refused before anything runs: one line too.
  const noPermissions = await runCli(['keys', 'create', '--name', 'x'], { BARSTOCK_DATA_DIR: dir })
  assert.equal(noPermissions.code, 1)
  assert.equal(noPermissions.stderr, "barstock: required option '--permissions <list>' not specified (--help shows the usage)\n")
  const typo = await runCli(['keys', 'lst'], { BARSTOCK_DATA_DIR: dir })
  assert.equal(typo.code, 1)
  assert.equal(typo.stderr, "barstock: unknown command 'lst' (Did you mean list?) (--help shows the usage)\n")
})
