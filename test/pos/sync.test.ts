import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { listEvents } from '../../src/platform/outbox.js'
import type { PosSyncFailedData } from '../../src/pos/sync/sync.events.js'
import { decimal } from '../../src/platform/decimal.js'
import type { BackgroundLoop } from '../../src/platform/background.js'
import { scheduleDueSyncs } from '../../src/pos/sync/sync-worker.js'
import { json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { MENU, MODIFIERS } from '../../src/pos/simulation/bar-data.js'
import { createConnection, createPosTestContext, createSyncedConnection, itemQuantity, ledgerOf, runSync, startWorker, waitForSync } from './pos-helpers.js'

let ctx: TestContext
let worker: BackgroundLoop
before(async () => {
  ctx = await createPosTestContext()
  worker = await startWorker(ctx)
})
after(async () => {
  await worker.stop()
  await ctx.close()
})

/** The POS item id of a simulated menu entry, from the connection's mappings list. */
async function posItemNamed(caller: { key: string }, connectionId: string, name: string): Promise<string> {
  const list = json(await ctx.request('GET', `/v1/pos/connections/${connectionId}/mappings`, { key: caller.key, query: { per_page: '100' } }))
  const entry = list.data.find((mapping: { pos_name: string }) => mapping.pos_name === name)
  if (!entry) throw new Error(`no POS item ${name}`)
  return entry.pos_item_id
}

async function storedUnits(connectionId: string, posItemId: string): Promise<string> {
  const row = await ctx.database.db
    .selectFrom('pos_sales')
    .select((eb) => eb.fn.sum<string>('quantity').as('units'))
    .where('connection_id', '=', connectionId)
    .where('pos_item_id', '=', posItemId)
    .executeTakeFirstOrThrow()
  return String(row.units ?? 0)
}

describe('sync runs', () => {
  test('the first run, asked for at create, reads 30 days and the menu, then completes with results, duration and pos.sync_completed', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createSyncedConnection(ctx, caller)
    const run = await waitForSync(ctx, caller, connection.first_sync_id)
    assert.equal(run.sync_type, 'incremental')
    assert.equal(run.status, 'completed', JSON.stringify(run.error))
    assert.equal(run.error, null)
    assert.ok(run.results.sales_synced > 1000)
    assert.equal(run.results.products_synced, MENU.length + MODIFIERS.length)
    assert.equal(Number.isInteger(run.duration_seconds), true)
    const [event] = await listEvents(ctx.database.db, caller.tenant, 'pos.sync_completed')
    assert.deepEqual(event?.data, {
      connection_id: connection.id,
      pos_type: 'square',
      sync_id: run.sync_id,
      sync_type: 'incremental',
      duration_seconds: run.duration_seconds,
      sales_synced: run.results.sales_synced,
      products_synced: MENU.length + MODIFIERS.length,
      variance_detected: 0,
      status: 'success',
    })
    const stored = await ctx.database.db
      .selectFrom('pos_sales')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('connection_id', '=', connection.id)
      .executeTakeFirstOrThrow()
    assert.equal(Number(stored.n), run.results.sales_synced)
    const fetched = json(await ctx.request('GET', `/v1/pos/connections/${connection.id}`, { key: caller.key })).data
    assert.equal(fetched.sync_stats.total_syncs, 1)
    assert.equal(fetched.sync_stats.failed_syncs, 0)
    assert.equal(typeof fetched.sync_stats.last_sync_duration_ms, 'number')
    assert.equal(fetched.last_sync, run.completed_at)
  })

  test('as the API text has it: a connection created without initial_sync, then POST …/sync, which answers 201 and reads the 30 days and the menu', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    assert.equal(connection.first_sync_id, null)
    const run = await runSync(ctx, caller, connection.id)
    assert.equal(run.status, 'completed', JSON.stringify(run.error))
    assert.ok(run.results.sales_synced > 1000)
    assert.equal(run.results.products_synced, MENU.length + MODIFIERS.length)
    const listed = json(await ctx.request('GET', '/v1/pos/syncs', { key: caller.key, query: { connection_id: connection.id } }))
    assert.deepEqual(
      listed.data.map((listedRun: { sync_id: string }) => listedRun.sync_id),
      [run.sync_id],
    )
  })

  test('mapping after a first sync keeps 30 days of earlier sales as history: stock unchanged, usage stored per line; re-syncing never double counts', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createSyncedConnection(ctx, caller)
    await waitForSync(ctx, caller, connection.first_sync_id)
    const titos = await createItem(ctx, caller, { name: "Tito's Handmade Vodka 750ml", quantity: 12, size_ml: 750 })
    const posItemId = await posItemNamed(caller, connection.id, "Tito's Vodka 1.5oz")
    const mapped = await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
      key: caller.key,
      body: { pos_item_id: posItemId, inventory_item_id: titos.id, conversion_factor: 1.5 },
    })
    assert.equal(mapped.statusCode, 201, mapped.body)
    // Every stored sale was sold before the 12 bottles were entered: they are in that quantity already.
    assert.equal(await itemQuantity(ctx, caller, titos.id), 12)
    assert.equal((await ledgerOf(ctx, titos.id)).filter((row) => row.kind === 'sale').length, 0)
    const units = decimal(await storedUnits(connection.id, posItemId))
    const usage = await ctx.database.db.selectFrom('stock_sale_usage').select(['units', 'applied']).where('item_id', '=', titos.id).execute()
    const used = usage.reduce((total, row) => total.plus(row.units), decimal(0))
    assert.equal(used.round(6).toFixed(6), units.times(1.5).times('29.5735').div(750).round(6).toFixed(6), 'each line converted once, in bottles')
    assert.ok(usage.every((row) => !row.applied))
    // A full re-sync reads the same window again: every line is a duplicate.
    const again = await runSync(ctx, caller, connection.id, 'full')
    assert.equal(again.status, 'completed')
    assert.equal(again.results.sales_synced, 0)
    assert.equal(await itemQuantity(ctx, caller, titos.id), 12)
    const usageAgain = await ctx.database.db.selectFrom('stock_sale_usage').select('sequence').where('item_id', '=', titos.id).execute()
    assert.equal(usageAgain.length, usage.length)
  })

  test('sales_only reads no products', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createSyncedConnection(ctx, caller)
    assert.equal((await waitForSync(ctx, caller, connection.first_sync_id)).results.products_synced, MENU.length + MODIFIERS.length)
    const run = await runSync(ctx, caller, connection.id, 'sales_only')
    assert.equal(run.status, 'completed')
    assert.equal(run.sync_type, 'sales_only')
    assert.equal(run.results.products_synced, 0)
  })

  test('an incremental run starts from the cursor of the last good run', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createSyncedConnection(ctx, caller)
    await waitForSync(ctx, caller, connection.first_sync_id)
    const cursor = await ctx.database.db.selectFrom('pos_connections').select('sales_cursor').where('id', '=', connection.id).executeTakeFirstOrThrow()
    assert.ok(cursor.sales_cursor)
    // A POST without a body: the defaults. The answer comes at once, the run in the background.
    const response = await ctx.request('POST', `/v1/pos/connections/${connection.id}/sync`, { key: caller.key })
    assert.equal(response.statusCode, 201)
    const queued = json(response).data
    assert.equal(queued.status, 'processing')
    assert.match(queued.sync_id, /^sync_/)
    assert.ok(Date.parse(queued.estimated_completion) > Date.parse(queued.started_at))
    const run = await waitForSync(ctx, caller, queued.sync_id)
    assert.equal(run.sync_type, 'incremental')
    assert.equal(run.status, 'completed')
    // Nothing new was sold in the simulated bar since: only the overlap was read again, all duplicates.
    assert.ok(run.results.sales_synced <= 5)
  })
})

describe('one sync at a time', () => {
  test('answers 409 sync_in_progress right after a create that asked for a first run, while it is queued, and the database refuses a second running run', async () => {
    await worker.stop()
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    let queued: string | undefined
    try {
      const connection = await createSyncedConnection(ctx, caller)
      queued = connection.first_sync_id
      const second = await ctx.request('POST', `/v1/pos/connections/${connection.id}/sync`, { key: caller.key, body: { sync_type: 'full' } })
      assert.equal(second.statusCode, 409)
      assert.equal(json(second).error.code, 'sync_in_progress')
      assert.equal(json(second).error.details.sync_id, connection.first_sync_id)
      await assert.rejects(
        ctx.database.db
          .insertInto('pos_sync_runs')
          .values({
            id: 'sync_manual',
            account_id: caller.tenant.accountId,
            environment: caller.tenant.environment,
            connection_id: connection.id,
            sync_type: 'full',
            status: 'processing',
            triggered_by: 'test',
            estimated_completion: new Date(),
          })
          .execute(),
        /pos_sync_runs_one_running|unique/,
      )
      const runs = await ctx.database.db.selectFrom('pos_sync_runs').select(['id', 'status']).where('connection_id', '=', connection.id).execute()
      assert.deepEqual(runs, [{ id: connection.first_sync_id, status: 'processing' }])
    } finally {
      worker = await startWorker(ctx)
      // The queued run ends here, so the next test's worker restart does not interrupt it.
      if (queued) await waitForSync(ctx, caller, queued)
    }
  })

  test('a run whose worker crashed is failed as interrupted, with pos.sync_failed, once its lease has run out', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createSyncedConnection(ctx, caller)
    await waitForSync(ctx, caller, connection.first_sync_id)
    const stale = new Date(Date.now() - 10 * 60_000)
    await ctx.database.db
      .insertInto('pos_sync_runs')
      .values({
        id: 'sync_orphan_' + connection.id,
        account_id: caller.tenant.accountId,
        environment: caller.tenant.environment,
        connection_id: connection.id,
        sync_type: 'incremental',
        status: 'processing',
        triggered_by: 'test',
        estimated_completion: stale,
        // Claimed by a worker that is gone: its lease ran out long ago.
        attempts: 1,
        lease_expires_at: stale,
      })
      .execute()
    await worker.stop()
    worker = await startWorker(ctx)
    const run = await waitForSync(ctx, caller, `sync_orphan_${connection.id}`)
    assert.equal(run.status, 'failed')
    assert.equal(run.error.code, 'interrupted')
    const [event] = await listEvents(ctx.database.db, caller.tenant, 'pos.sync_failed')
    const data = event?.data as PosSyncFailedData
    assert.equal(data.error_code, 'interrupted')
    assert.equal(data.retry_after, 3600)
    const stored = await ctx.database.db.selectFrom('pos_sync_runs').select(['attempts', 'lease_expires_at']).where('id', '=', run.sync_id).executeTakeFirstOrThrow()
    assert.deepEqual(stored, { attempts: 2, lease_expires_at: null }, 'failed by the worker that claimed it after the lease ran out')
  })

  test('GET of an unknown or foreign sync is 404 sync_not_found; sync on an unknown connection is connection_not_found', async () => {
    const owner = await ctx.newCaller({ environment: 'sandbox' })
    const stranger = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createSyncedConnection(ctx, owner)
    const run = await waitForSync(ctx, owner, connection.first_sync_id)
    for (const [key, id] of [
      [stranger.key, run.sync_id],
      [owner.key, 'sync_nope'],
    ] as const) {
      const response = await ctx.request('GET', `/v1/pos/syncs/${id}`, { key })
      assert.equal(response.statusCode, 404)
      assert.equal(json(response).error.code, 'sync_not_found')
    }
    const foreign = await ctx.request('POST', `/v1/pos/connections/${connection.id}/sync`, { key: stranger.key, body: {} })
    assert.equal(foreign.statusCode, 404)
    assert.equal(json(foreign).error.code, 'connection_not_found')
    const runs = await ctx.database.db.selectFrom('pos_sync_runs').select('id').where('connection_id', '=', connection.id).execute()
    assert.equal(runs.length, 1)
  })

  test('rejects an unknown sync_type with invalid_parameter', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const response = await ctx.request('POST', `/v1/pos/connections/${connection.id}/sync`, { key: caller.key, body: { sync_type: 'everything' } })
    assert.equal(response.statusCode, 400)
    assert.equal(json(response).error.details.parameter, 'sync_type')
  })
})

describe('scheduler', () => {
  test('queues one incremental run for each due connection, skips inactive ones, and moves next_sync_at on', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    // The create asked for the first run and put the next one a period later: a realtime connection is due a minute on.
    const due = await createSyncedConnection(ctx, caller, { sync_frequency: 'realtime' })
    await waitForSync(ctx, caller, due.first_sync_id)
    await worker.stop()
    try {
      const paused = await createConnection(ctx, caller, { sync_frequency: 'realtime' })
      await ctx.request('PUT', `/v1/pos/connections/${paused.id}`, { key: caller.key, body: { status: 'inactive' } })
      const now = new Date(Date.now() + 61_000)
      await scheduleDueSyncs(ctx.database.db, now)
      await scheduleDueSyncs(ctx.database.db, now)
      const runs = await ctx.database.db.selectFrom('pos_sync_runs').selectAll().where('account_id', '=', caller.tenant.accountId).where('triggered_by', '=', 'scheduler').execute()
      assert.deepEqual(
        runs.map((run) => [run.connection_id, run.sync_type, run.triggered_by]),
        [[due.id, 'incremental', 'scheduler']],
      )
      const nextSyncAt = async (id: string) =>
        (await ctx.database.db.selectFrom('pos_connections').select('next_sync_at').where('id', '=', id).executeTakeFirstOrThrow()).next_sync_at.getTime()
      assert.equal(await nextSyncAt(due.id), now.getTime() + 60_000)
      assert.ok((await nextSyncAt(paused.id)) < now.getTime(), 'the paused connection was not taken')
    } finally {
      worker = await startWorker(ctx)
    }
  })
})

test("GET /v1/pos/syncs?connection_id= lists a connection's runs newest first; an unknown connection is 404, none named is 400", async () => {
  const caller = await ctx.newCaller({ environment: 'sandbox' })
  const connection = await createSyncedConnection(ctx, caller)
  const first = await waitForSync(ctx, caller, connection.first_sync_id)
  const second = await runSync(ctx, caller, connection.id, 'sales_only')
  const listed = json(await ctx.request('GET', '/v1/pos/syncs', { key: caller.key, query: { connection_id: connection.id } }))
  assert.deepEqual(
    listed.data.map((run: { sync_id: string }) => run.sync_id),
    [second.sync_id, first.sync_id],
  )
  assert.equal(listed.pagination.total, 2)
  assert.deepEqual(listed.data[1], first)
  const unknown = await ctx.request('GET', '/v1/pos/syncs', { key: caller.key, query: { connection_id: 'pos_nope' } })
  assert.equal(unknown.statusCode, 404)
  assert.equal(json(unknown).error.code, 'connection_not_found')
  const unnamed = await ctx.request('GET', '/v1/pos/syncs', { key: caller.key })
  assert.equal(unnamed.statusCode, 400)
  assert.equal(json(unnamed).error.details.parameter, 'connection_id')
})
