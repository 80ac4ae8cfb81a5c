import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { runCli, type ServerProcess, scratchDataDir, startServerProcess } from '../helpers/server-process.js'
import { migratedDataDir } from '../helpers/pglite-image.js'

test('barstock backup copies the embedded database while the server runs; the copy restores as docs/operations.md says', async (t) => {
  const dir = await migratedDataDir()
  const key = JSON.parse((await runCli(['keys', 'create', '--name', 'k', '--permissions', '*', '--json'], { BARSTOCK_DATA_DIR: dir })).stdout).key as string
  const started: ServerProcess[] = []
  t.after(() => started.forEach((server) => server.child.kill('SIGKILL')))
  const createItem = (server: ServerProcess, sku: string) =>
    fetch(`${server.url}/v1/inventory/items`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Item ${sku}`, sku, category: 'beer', quantity: 4, unit: 'can', location: 'main_bar' }),
    })
  const skus = async (server: ServerProcess) => {
    const body = (await (await fetch(`${server.url}/v1/inventory/items`, { headers: { 'x-api-key': key } })).json()) as { data: { sku: string }[] }
    return body.data.map((item) => item.sku)
  }

  const running = await startServerProcess({ BARSTOCK_DATA_DIR: dir })
  started.push(running)
  assert.equal((await createItem(running, 'BEFORE')).status, 201)
  const archive = join(scratchDataDir(), 'barstock.tar.gz')
  const backup = await runCli(['backup', '--out', archive, '--json'], { BARSTOCK_DATA_DIR: dir })
  assert.equal(backup.code, 0, backup.stderr)
  assert.deepEqual(JSON.parse(backup.stdout), { path: archive, bytes: statSync(archive).size })
  assert.equal(statSync(archive).mode & 0o777, 0o600, 'readable by the owner only')
  assert.equal((await createItem(running, 'AFTER')).status, 201)
  running.child.kill('SIGTERM')
  assert.equal(await running.exited, 0)

  // The restore of docs/operations.md: the archive unpacked into <data dir>/pgdata, secret.key beside it.
  const restored = scratchDataDir()
  mkdirSync(join(restored, 'pgdata'))
  execFileSync('tar', ['xzf', archive, '-C', join(restored, 'pgdata')])
  copyFileSync(join(dir, 'secret.key'), join(restored, 'secret.key'))
  const fromBackup = await startServerProcess({ BARSTOCK_DATA_DIR: restored })
  started.push(fromBackup)
  assert.deepEqual(await skus(fromBackup), ['BEFORE'])
})
