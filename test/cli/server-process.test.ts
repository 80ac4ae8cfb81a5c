import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { runCli, startServerProcess, scratchDataDir } from '../helpers/server-process.js'
import { migratedDataDir } from '../helpers/pglite-image.js'

const dataDir = scratchDataDir

async function authTest(url: string, key: string) {
  const response = await fetch(`${url}/v1/auth/test`, { headers: { 'x-api-key': key } })
  return response.status
}

describe('the run contract on the embedded database', () => {
  test('keys are created with no server, and through a running server’s channel, usable at once; revocation is immediate', async () => {
    const env = { BARSTOCK_DATA_DIR: dataDir() }
    const offline = await runCli(['keys', 'create', '--name', 'offline', '--permissions', '*', '--json'], env)
    assert.equal(offline.code, 0, offline.stderr)
    const offlineKey = JSON.parse(offline.stdout.trim().split('\n').at(-1)!)
    assert.deepEqual(Object.keys(offlineKey), ['id', 'key', 'name', 'permissions', 'environment'])
    assert.equal(offlineKey.permissions.length, 8)
    assert.equal(offlineKey.environment, 'production')

    const server = await startServerProcess(env)
    try {
      assert.equal(await authTest(server.url, offlineKey.key), 200)
      const online = await runCli(['keys', 'create', '--name', 'ci', '--permissions', 'inventory:read,inventory:write', '--sandbox', '--json'], env)
      assert.equal(online.code, 0, online.stderr)
      const created = JSON.parse(online.stdout)
      assert.match(created.key, /^bs_test_/)
      assert.deepEqual(created.permissions, ['inventory:read', 'inventory:write'])
      assert.equal(await authTest(server.url, created.key), 200)

      const listed = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout)
      assert.deepEqual(
        listed.map((key: { name: string }) => key.name),
        ['offline', 'ci'],
      )
      assert.ok(!JSON.stringify(listed).includes(created.key), 'keys are never listed')

      assert.equal((await runCli(['keys', 'revoke', created.id], env)).code, 0)
      assert.equal(await authTest(server.url, created.key), 401)

      const account = JSON.parse((await runCli(['accounts', 'create', '--name', 'Second Bar Group', '--json'], env)).stdout)
      assert.match(account.id, /^acct_/)

      const second = await runCli(['serve'], { ...env, PORT: '0' })
      assert.equal(second.code, 1)
      assert.match(second.stderr, /in use by another barstock server/)
    } finally {
      server.child.kill('SIGTERM')
      assert.equal(await server.exited, 0)
    }
  })

  test('SIGTERM lets in-flight requests finish and loses no acknowledged write', async () => {
    const env = { BARSTOCK_DATA_DIR: await migratedDataDir() }
    const key = JSON.parse((await runCli(['keys', 'create', '--name', 'k', '--permissions', '*', '--json'], env)).stdout).key
    const server = await startServerProcess(env)
    const posts = Array.from({ length: 25 }, (_, index) =>
      fetch(`${server.url}/v1/inventory/items`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Item ${index}`, sku: `S-${index}`, category: 'beer', quantity: 1, unit: 'can', location: 'main_bar' }),
      }).then(
        (response) => response.status,
        () => 'refused',
      ),
    )
    // Once the first write is answered the server is busy with the rest: stop it then.
    await Promise.race(posts)
    server.child.kill('SIGTERM')
    const statuses = await Promise.all(posts)
    assert.equal(await server.exited, 0)
    const acknowledged = statuses.filter((status) => status === 201).length
    assert.ok(acknowledged > 0, `some writes were acknowledged: ${statuses.join(',')}`)
    for (const status of statuses) assert.ok(status === 201 || status === 503 || status === 'refused', String(status))

    const restarted = await startServerProcess(env)
    try {
      const list = await fetch(`${restarted.url}/v1/inventory/items?per_page=100`, { headers: { 'x-api-key': key } })
      const body = (await list.json()) as { pagination: { total: number } }
      assert.equal(body.pagination.total, acknowledged, 'every acknowledged write survived, nothing else')
    } finally {
      restarted.child.kill('SIGINT')
      assert.equal(await restarted.exited, 0)
    }
  })

  test('a bad configuration value stops the server with a message naming the variable', async () => {
    const result = await runCli(['serve'], { BARSTOCK_DATA_DIR: dataDir(), BARSTOCK_RATE_LIMIT_SANDBOX: 'lots' })
    assert.equal(result.code, 1)
    assert.match(result.stderr, /BARSTOCK_RATE_LIMIT_SANDBOX must be a positive integer/)
  })

  test('a bad worker setting stops the server before its port opens', async () => {
    const result = await runCli(['serve'], { BARSTOCK_DATA_DIR: dataDir(), BARSTOCK_WEBHOOK_RETRY_SCHEDULE: 'bogus', PORT: '0' })
    assert.equal(result.code, 1)
    assert.match(result.stderr, /BARSTOCK_WEBHOOK_RETRY_SCHEDULE must be/)
    assert.doesNotMatch(result.stdout + result.stderr, /Server listening/)
  })
})
