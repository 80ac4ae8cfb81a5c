import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { describeDatabase } from '../../src/platform/db/connect.js'
import { projectPath } from '../../src/platform/paths.js'
import { logLines, runCli, type ServerProcess, scratchDataDir, startServerProcess, waitForOutput } from '../helpers/server-process.js'
import { migratedDataDir } from '../helpers/pglite-image.js'

/** Starts a server whose process is killed after the test, whatever happens in it. */
async function serverFor(t: { after: (fn: () => void) => void }, env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess(env)
  t.after(() => server.child.kill('SIGKILL'))
  return server
}

const VERSION = (JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string }).version

describe('logs', () => {
  test('one line per request with method, route, status, ms, key id and request id; the start-up line names version, docs and database', async (t) => {
    const dir = await migratedDataDir()
    const created = await runCli(['keys', 'create', '--name', 'logs', '--permissions', '*', '--json'], { BARSTOCK_DATA_DIR: dir })
    const key = JSON.parse(created.stdout) as { id: string; key: string }
    const server = await serverFor(t, { BARSTOCK_DATA_DIR: dir })

    const response = await fetch(`${server.url}/v1/inventory/items?q=secret-search`, { headers: { 'x-api-key': key.key } })
    assert.equal(response.status, 200)
    const requestId = ((await response.json()) as { meta: { request_id: string } }).meta.request_id
    // The start-up line comes once the workers have started, which may be after the first request.
    const output = await waitForOutput(server, (text) => text.includes(`"request_id":"${requestId}"`) && text.includes('"version"'))

    const lines = logLines(output)
    const ofRequest = lines.filter((line) => line.request_id === requestId)
    assert.equal(ofRequest.length, 1, `one line for the request:\n${output}`)
    const { time: _time, pid: _pid, hostname: _hostname, ...line } = ofRequest[0]!
    assert.deepEqual(line, {
      level: 30,
      request_id: requestId,
      method: 'GET',
      route: '/v1/inventory/items',
      status: 200,
      ms: line.ms,
      key_id: key.id,
      msg: 'request',
    })
    assert.equal(typeof line.ms, 'number')
    assert.ok(!output.includes('secret-search'), 'the query string is not logged')
    assert.ok(!lines.some((entry) => entry.msg === 'incoming request' || entry.msg === 'request completed'), "Fastify's two lines are gone")

    const startup = lines.find((entry) => entry.version !== undefined)
    assert.ok(startup, `a start-up line:\n${output}`)
    assert.equal(startup.version, VERSION)
    assert.equal(startup.url, server.url)
    assert.equal(startup.docs, `${server.url}/docs`)
    assert.equal(startup.database, `PGlite in ${join(dir, 'pgdata')}`)
    assert.equal(startup.data_dir, dir)
    assert.match(String(startup.msg), new RegExp(`barstock ${VERSION} serving ${server.url} \\(API docs ${server.url}/docs\\)`))
  })

  test('BARSTOCK_LOG_FORMAT=pretty writes lines for a human', async (t) => {
    const server = await serverFor(t, { BARSTOCK_DATA_DIR: await migratedDataDir(), BARSTOCK_LOG_FORMAT: 'pretty' })
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200)
    const output = await waitForOutput(server, (text) => /INFO.*request/.test(text) && text.includes('route: "/healthz"') && / serving http/.test(text))
    assert.deepEqual(logLines(output), [], 'no JSON lines')
    assert.match(output, /INFO.*barstock .* serving http:\/\/127\.0\.0\.1:\d+/)
  })

  test('a bad BARSTOCK_LOG_FORMAT stops the server with a message naming the variable', async () => {
    const result = await runCli(['serve'], { BARSTOCK_DATA_DIR: scratchDataDir(), BARSTOCK_LOG_FORMAT: 'xml', PORT: '0' })
    assert.equal(result.code, 1)
    assert.match(result.stderr, /BARSTOCK_LOG_FORMAT must be one of json, pretty, got "xml"/)
  })

  test('the database is described without its password', () => {
    assert.equal(describeDatabase({ databaseUrl: 'postgres://barstock:s3cret@db.internal:6543/bar', dataDir: '/var/lib/barstock' }), 'PostgreSQL barstock@db.internal:6543/bar')
  })
})
