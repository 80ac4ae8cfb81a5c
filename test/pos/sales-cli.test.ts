import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'
import { startServer, type RunningServer } from '../../src/cli/serve.js'
import { createApiKey } from '../../src/platform/auth/api-keys.js'
import { loadConfig } from '../../src/platform/config.js'
import { projectPath } from '../../src/platform/paths.js'
import { SQUARE_CREDENTIALS } from './pos-helpers.js'

const run = promisify(execFile)
const dataDir = mkdtempSync(join(tmpdir(), 'barstock-sales-cli-'))
const env: Record<string, string | undefined> = { ...process.env, BARSTOCK_DATA_DIR: dataDir, BARSTOCK_SECRET_KEY: randomBytes(32).toString('hex'), PORT: '0', HOST: '127.0.0.1', BARSTOCK_LOG_LEVEL: 'silent' }
delete env.DATABASE_URL
let server: RunningServer

before(async () => {
  server = await startServer(loadConfig(env))
})
after(async () => {
  await server.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

test('barstock sales import loads a CSV through the running server that holds the embedded database', async () => {
  const key = await createApiKey(server.app.db, { accountId: 'acct_default', environment: 'sandbox', name: 'cli test', permissions: ['pos:write', 'pos:read'] })
  const created = await server.app.inject({
    method: 'POST',
    url: '/v1/pos/connections',
    headers: { 'x-api-key': key.key },
    payload: { pos_type: 'square', name: 'CSV bar', credentials: SQUARE_CREDENTIALS },
  })
  assert.equal(created.statusCode, 201, created.body)
  const connectionId = JSON.parse(created.body).data.id as string
  const rows = Array.from({ length: 4_500 }, (_, index) => `L${index},P${index % 7},Item ${index % 7},1,7.5,2026-11-20T2${index % 4}:00:00.000Z`)
  const file = join(dataDir, 'sales.csv')
  writeFileSync(file, ['line_id,pos_item_id,name,quantity,unit_price,sold_at', ...rows, 'L0,P0,Item 0,1,7.5,2026-11-20T20:00:00.000Z'].join('\n'))
  const { stdout } = await run('node', [projectPath('dist', 'src', 'cli', 'main.js'), 'sales', 'import', file, '--location', 'main_bar', '--connection', connectionId], { env })
  assert.deepEqual(JSON.parse(stdout.trim().split('\n').pop() ?? ''), { imported: 4_500, duplicates: 1, unmapped: 4_500 })
  const mappings = await server.app.inject({ method: 'GET', url: `/v1/pos/connections/${connectionId}/mappings`, headers: { 'x-api-key': key.key } })
  assert.equal(JSON.parse(mappings.body).pagination.total, 7)
})
