import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import pg from 'pg'
import { openPostgres } from '../../src/platform/db/connect.js'
import { enqueue } from '../../src/platform/outbox.js'
import { createWebhook } from '../../src/webhooks/webhooks.service.js'
import '../../src/inventory/inventory.events.js'
import { runCli, startCliProcess } from '../helpers/server-process.js'
import { migratedDataDir } from '../helpers/pglite-image.js'
import { startReceiver } from './receiver.js'

/** Starts `barstock worker` and waits until its workers run. */
const startWorker = (env: Record<string, string>) => startCliProcess(['worker'], env, /workers running/)

test('barstock worker runs the workers on the embedded database, serves the admin commands on it, and stops cleanly on SIGTERM', { timeout: 180_000 }, async () => {
  const dir = await migratedDataDir()
  const worker = await startWorker({ BARSTOCK_DATA_DIR: dir })
  try {
    // The worker holds the data dir, so the CLI reaches the database through the worker's channel.
    const listed = await runCli(['keys', 'list', '--json'], { BARSTOCK_DATA_DIR: dir })
    assert.equal(listed.code, 0, listed.stderr)
    assert.deepEqual(JSON.parse(listed.stdout), [])
  } finally {
    worker.child.kill('SIGTERM')
  }
  assert.equal(await worker.exited, 0)
})

test('barstock worker delivers webhooks from a PostgreSQL database', { timeout: 180_000, skip: !process.env.DATABASE_URL && 'needs DATABASE_URL' }, async (t) => {
  const serverUrl = process.env.DATABASE_URL!
  const name = `barstock_worker_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const receiver = await startReceiver()
  t.after(async () => {
    await receiver.close()
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  })

  const worker = await startWorker({ DATABASE_URL: url.toString(), BARSTOCK_WEBHOOK_ALLOW_PRIVATE: '1' })
  const database = await openPostgres(url.toString(), 2)
  try {
    const tenant = { accountId: 'acct_default', environment: 'production' as const }
    await database.db.transaction().execute((trx) => createWebhook(trx, tenant, { url: receiver.url, events: ['inventory.updated'] }))
    const eventId = await database.db.transaction().execute((trx) =>
      enqueue(trx, tenant, 'inventory.updated', {
        item_id: 'item_x',
        name: 'Worker Rum',
        previous_quantity: 1,
        new_quantity: 2,
        change: 1,
        location: 'main_bar',
        updated_by: 'test',
      }),
    )
    const [request] = await receiver.waitFor(1)
    assert.equal(request!.headers['x-webhook-id'], eventId)
  } finally {
    await database.close()
    worker.child.kill('SIGTERM')
  }
  assert.equal(await worker.exited, 0)
})
