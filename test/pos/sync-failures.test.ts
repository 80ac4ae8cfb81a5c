import assert from 'node:assert/strict'
import { test } from 'node:test'
import { listEvents } from '../../src/platform/outbox.js'
import type { PosSyncFailedData } from '../../src/pos/sync/sync.events.js'
import { decimal } from '../../src/platform/decimal.js'
import { json } from '../helpers/context.js'
import { assertRollupsMatchRaw } from '../analytics/analytics-helpers.js'
import { createItem } from '../helpers/inventory.js'
import { createSyncedConnection, itemQuantity, ledgerOf, runSync, startSwitchableSquare, usePosFixture, waitForSync } from './pos-helpers.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

// The vendor and the worker live a day ahead, so the items a test creates now have a day of sales after
// their starting stock (sales sold before it are history and take no stock).
const dayAhead = () => new Date(Date.now() + DAY_MS)

/** The worker's waits (a Retry-After, a retry's back-off), ms: recorded and answered at once. */
const waits: number[] = []
const pos = usePosFixture({ square: () => startSwitchableSquare(7, dayAhead) }, { clock: dayAhead, wait: async (ms) => void waits.push(ms) })

async function salesCount(connectionId: string): Promise<number> {
  const row = await pos.ctx.database.db
    .selectFrom('pos_sales')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('connection_id', '=', connectionId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

test('a run cut off mid-sales fails, keeps the pages it read, keeps the cursor, and the next run picks up', async () => {
  pos.simulators.square.state.mode = 'ok'
  const caller = await pos.ctx.newCaller({ environment: 'production' })
  const connection = await createSyncedConnection(pos.ctx, caller, { sync_frequency: 'daily' })
  // The first run reads the products, so a Well Vodka mapping exists before the failing run.
  const products = await waitForSync(pos.ctx, caller, connection.first_sync_id)
  await pos.ctx.database.db.deleteFrom('pos_sales').where('source_id', '=', products.sync_id).execute()
  await pos.ctx.database.db.updateTable('pos_connections').set({ sales_cursor: null }).where('id', '=', connection.id).execute()
  const list = json(await pos.ctx.request('GET', `/v1/pos/connections/${connection.id}/mappings`, { key: caller.key, query: { per_page: '100' } }))
  const wellVodka = list.data.find((entry: { pos_name: string }) => entry.pos_name === 'Well Vodka 1.5oz')
  const item = await createItem(pos.ctx, caller, { name: 'Smirnoff Vodka 1L', size_ml: 1000, quantity: 100 })
  await pos.ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
    key: caller.key,
    body: { pos_item_id: wellVodka.pos_item_id, inventory_item_id: item.id, conversion_factor: 1.5 },
  })
  const ledgerBefore = (await ledgerOf(pos.ctx, item.id)).length

  // Three pages (over 5,000 lines) are fetched and staged before the connection drops. Square resumes
  // (by close time): the failed run keeps them, and they are the month's oldest, history to the new item.
  Object.assign(pos.simulators.square.state, { mode: 'drop_sales', salesPagesBeforeDrop: 3, salesPagesServed: 0 })
  const failed = await runSync(pos.ctx, caller, connection.id, 'incremental')
  assert.equal(failed.status, 'failed')
  assert.equal(failed.error.code, 'connection_failed')
  assert.equal(failed.results, null)
  const kept = await salesCount(connection.id)
  assert.match(failed.error.message, new RegExp(`; the ${kept} new lines read before were kept, and the next run resumes where this one stopped$`))
  assert.ok(kept > 5_000, `${kept} lines kept`)
  assert.equal(await itemQuantity(pos.ctx, caller, item.id), 100)
  assert.equal((await ledgerOf(pos.ctx, item.id)).length, ledgerBefore)
  const cursor = await pos.ctx.database.db.selectFrom('pos_connections').select('sales_cursor').where('id', '=', connection.id).executeTakeFirstOrThrow()
  assert.equal(cursor.sales_cursor, null)
  const events = await listEvents(pos.ctx.database.db, caller.tenant, 'pos.sync_failed')
  assert.deepEqual(
    events.map((event) => event.data),
    [
      {
        connection_id: connection.id,
        pos_type: 'square',
        sync_id: failed.sync_id,
        error_code: 'connection_failed',
        error_message: failed.error.message,
        retry_after: 86_400,
      },
    ],
  )

  pos.simulators.square.state.mode = 'ok'
  const recovered = await runSync(pos.ctx, caller, connection.id, 'incremental')
  assert.equal(recovered.status, 'completed')
  assert.ok(recovered.results.sales_synced > 0)
  assert.equal(await salesCount(connection.id), kept + recovered.results.sales_synced)
  const usage = await pos.ctx.database.db.selectFrom('stock_sale_usage').select(['units', 'applied']).where('item_id', '=', item.id).execute()
  const applied = usage.filter((row) => row.applied).reduce((total, row) => total.plus(row.units), decimal(0))
  assert.ok(applied.gt(0), 'the day after the item was created took stock')
  assert.ok(
    usage.some((row) => !row.applied),
    'the days before it are history',
  )
  // Stock keeps 4 decimals and takes one rounded ledger row per business day: at most 0.00005 off per row
  // (how many days the simulated sales after the item's creation span depends on the time of day the test runs).
  const saleRows = (await ledgerOf(pos.ctx, item.id)).length - ledgerBefore
  const off = decimal(await itemQuantity(pos.ctx, caller, item.id))
    .minus(decimal(100).minus(applied))
    .abs()
  assert.ok(off.lte(decimal('0.00005').times(saleRows)), `stock is 100 less the applied usage (off by ${off} over ${saleRows} ledger rows)`)
  const stats = json(await pos.ctx.request('GET', `/v1/pos/connections/${connection.id}`, { key: caller.key })).data.sync_stats
  assert.equal(stats.total_syncs, 3)
  // The failed run's pages were applied with its failure; the rollups followed them in the same transaction.
  await assertRollupsMatchRaw(pos.ctx, caller)
  assert.equal(stats.failed_syncs, 1)
})

test('a run the vendor refuses fails with authentication_failed and marks the connection error until a good run', async () => {
  pos.simulators.square.state.mode = 'ok'
  const caller = await pos.ctx.newCaller({ environment: 'production' })
  const connection = await createSyncedConnection(pos.ctx, caller)
  assert.equal((await waitForSync(pos.ctx, caller, connection.first_sync_id)).status, 'completed')
  pos.simulators.square.state.mode = 'unauthorized'
  const failed = await runSync(pos.ctx, caller, connection.id, 'full')
  assert.equal(failed.status, 'failed')
  assert.equal(failed.error.code, 'authentication_failed')
  const [event] = await listEvents(pos.ctx.database.db, caller.tenant, 'pos.sync_failed')
  assert.equal((event?.data as PosSyncFailedData).error_code, 'authentication_failed')
  assert.equal((event?.data as PosSyncFailedData).retry_after, 3600)
  const broken = json(await pos.ctx.request('GET', `/v1/pos/connections/${connection.id}`, { key: caller.key })).data
  assert.equal(broken.status, 'error')
  pos.simulators.square.state.mode = 'ok'
  const good = await runSync(pos.ctx, caller, connection.id, 'sales_only')
  assert.equal(good.status, 'completed')
  const healed = json(await pos.ctx.request('GET', `/v1/pos/connections/${connection.id}`, { key: caller.key })).data
  assert.equal(healed.status, 'active')
})

test('a run waits out a rate limit longer than a request would (2 s three times) and asks for the same page again', async () => {
  pos.simulators.square.state.mode = 'ok'
  const caller = await pos.ctx.newCaller({ environment: 'production' })
  // The first run, queued at create, meets the limits (logging in is no sales search).
  Object.assign(pos.simulators.square.state, { mode: 'rate_limit_sales', rateLimitsLeft: 3, retryAfterSeconds: 2 })
  waits.length = 0
  const connection = await createSyncedConnection(pos.ctx, caller)
  const run = await waitForSync(pos.ctx, caller, connection.first_sync_id)
  assert.equal(run.status, 'completed', JSON.stringify(run.error))
  assert.deepEqual(waits, [2_000, 2_000, 2_000])
  pos.simulators.square.state.mode = 'ok'
  assert.equal(pos.simulators.square.state.rateLimitsLeft, 0)
  // Thirty days of the simulated bar, every line of every page stored once.
  assert.ok(run.results.sales_synced > 10_000, `${run.results.sales_synced} lines`)
  assert.equal(await salesCount(connection.id), run.results.sales_synced)
})

test("a rate limit past BARSTOCK_POS_RETRY_WAIT_SECONDS fails the run with rate_limited and the vendor's Retry-After", async () => {
  pos.simulators.square.state.mode = 'ok'
  const caller = await pos.ctx.newCaller({ environment: 'production' })
  Object.assign(pos.simulators.square.state, { mode: 'rate_limit_sales', rateLimitsLeft: 1, retryAfterSeconds: 3_601 })
  const connection = await createSyncedConnection(pos.ctx, caller)
  const run = await waitForSync(pos.ctx, caller, connection.first_sync_id)
  pos.simulators.square.state.mode = 'ok'
  assert.equal(run.status, 'failed')
  assert.equal(run.error.code, 'rate_limited')
  assert.equal(await salesCount(connection.id), 0)
  const [event] = await listEvents(pos.ctx.database.db, caller.tenant, 'pos.sync_failed')
  assert.equal((event?.data as PosSyncFailedData).retry_after, 3_601)
})
