import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import pg from 'pg'
import { openPostgres } from '../../src/platform/db/connect.js'
import { enqueue } from '../../src/platform/outbox.js'
import { createWebhook } from '../../src/webhooks/webhooks.service.js'
import '../../src/inventory/inventory.events.js'
import { childEnv, CLI, tempDataDir } from '../helpers/server-process.js'
import { startReceiver } from './receiver.js'

interface WorkerProcess {
  child: ChildProcess
  exited: Promise<number | null>
}

/** Starts `barstock worker` and waits until its workers run. */
async function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [CLI, 'worker'], { env: childEnv(env) })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('workers running')) resolve()
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    exited.then((code) => reject(new Error(`worker exited with ${code}:\n${output}`)))
    setTimeout(() => reject(new Error(`worker did not start within 30 s:\n${output}`)), 30_000).unref()
  })
  return { child, exited }
}

test('barstock worker runs the workers on the embedded database and stops cleanly on SIGTERM', { timeout: 60_000 }, async (t) => {
  const { dir, cleanup } = tempDataDir()
  t.after(cleanup)
  const worker = await startWorker({ BARSTOCK_DATA_DIR: dir })
  worker.child.kill('SIGTERM')
  assert.equal(await worker.exited, 0)
})

test('barstock worker delivers webhooks from a PostgreSQL database', { timeout: 60_000, skip: !process.env.DATABASE_URL && 'needs DATABASE_URL' }, async (t) => {
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
