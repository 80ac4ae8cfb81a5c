import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import type { LightMyRequestResponse } from 'fastify'
import { type Caller, json, type TestContext } from '../helpers/context.js'
import { createItem, holdItemLock } from '../helpers/inventory.js'
import { createConnection, createPosTestContext, itemQuantity } from './pos-helpers.js'

/**
 * Sales imports are bulk writes: at most BARSTOCK_BULK_WRITE_SLOTS run at once, the others wait for their
 * turn holding no connection, so a burst of imports leaves the pool room for reads. An import is kept in
 * its transaction by a row lock the test holds on the item its lines deplete. Needs a server, where the
 * import waits on one connection while others answer: skipped on the embedded database.
 */

const url = process.env.DATABASE_URL
const skip = !url && 'needs DATABASE_URL (PostgreSQL)'
/** The test database's pool (openTestDatabase): this many imports at once would take every connection. */
const POOL_SIZE = 10

interface Bar {
  caller: Caller
  connectionId: string
  itemId: string
}

/** A sandbox tenant with one item at 100 bottles, mapped from PLU-1 on a Square connection (to the simulator). */
async function barWithMappedItem(ctx: TestContext): Promise<Bar> {
  const caller = await ctx.newCaller({ environment: 'sandbox' })
  const item = await createItem(ctx, caller, { quantity: 100, unit: 'bottle' })
  const connection = await createConnection(ctx, caller)
  const mapped = await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
    key: caller.key,
    body: { pos_item_id: 'PLU-1', inventory_item_id: item.id, conversion_factor: 1, conversion_unit: 'bottle' },
  })
  assert.equal(mapped.statusCode, 201, mapped.body)
  return { caller, connectionId: connection.id, itemId: item.id }
}

/** POST /v1/sales of one line of one bottle, its line_id `lineId`. */
function importOne(ctx: TestContext, bar: Bar, lineId: string): Promise<LightMyRequestResponse> {
  const line = { location: 'main_bar', pos_item_id: 'PLU-1', name: 'House red', quantity: 1, unit_price: 8, sold_at: new Date().toISOString(), line_id: lineId }
  return ctx.request('POST', '/v1/sales', { key: bar.caller.key, body: { connection_id: bar.connectionId, sales: [line] } })
}

/** Statements of the database waiting for a row lock now. */
async function lockWaiters(ctx: TestContext): Promise<number> {
  const waiting = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(ctx.database.db)
  return waiting.rows[0]!.n
}

async function untilAnImportWaitsForTheLock(ctx: TestContext): Promise<void> {
  while ((await lockWaiters(ctx)) === 0) await new Promise((resolve) => setTimeout(resolve, 20))
}

describe('bulk-write turns', () => {
  let ctx: TestContext
  before(async () => {
    // A turn waited for as long as the test needs (the wait's own bound is the next test's), longer than a connection would be.
    if (url) ctx = await createPosTestContext({ env: { BARSTOCK_BULK_WRITE_SLOTS: '1', BARSTOCK_BULK_WRITE_WAIT_MS: '600000', BARSTOCK_DB_CONNECT_TIMEOUT_MS: '1000' } })
  })
  after(async () => {
    if (ctx) await ctx.close()
  })

  test('with one slot, a read is answered while an import holds it and as many more as the pool has connections wait their turn, past the connect timeout', { skip }, async () => {
    const bar = await barWithMappedItem(ctx)
    const lock = await holdItemLock(ctx, bar.itemId)
    const imports = Array.from({ length: POOL_SIZE }, (_, index) => importOne(ctx, bar, `line-${index}`))
    try {
      await untilAnImportWaitsForTheLock(ctx)
      // Without the bound the waiting imports would hold every other connection and this read would wait for one.
      const read = await ctx.request('GET', `/v1/inventory/items/${bar.itemId}`, { key: bar.caller.key })
      assert.equal(read.statusCode, 200, read.body)
      assert.equal(json(read).data.quantity, 100, 'no import has committed yet')
      assert.equal(await lockWaiters(ctx), 1, 'one import in its transaction; the others wait for their turn without a connection')
      // A turn is not a connection: waited for longer than one would be, the imports are still served.
      await new Promise((resolve) => setTimeout(resolve, 1500))
    } finally {
      lock.release()
      await lock.done
    }
    for (const imported of await Promise.all(imports)) assert.equal(imported.statusCode, 201, imported.body)
    assert.equal(await itemQuantity(ctx, bar.caller, bar.itemId), 100 - POOL_SIZE, 'every import ran in its turn')
  })
})

describe('a bulk write whose turn does not come in time', () => {
  let ctx: TestContext
  before(async () => {
    if (url) ctx = await createPosTestContext({ env: { BARSTOCK_BULK_WRITE_SLOTS: '1', BARSTOCK_BULK_WRITE_WAIT_MS: '200' } })
  })
  after(async () => {
    if (ctx) await ctx.close()
  })

  test('answers 503 imports_busy with Retry-After, the wait it estimates, and imports nothing', { skip }, async () => {
    const bar = await barWithMappedItem(ctx)
    const lock = await holdItemLock(ctx, bar.itemId)
    let first: Promise<LightMyRequestResponse> | undefined
    try {
      first = importOne(ctx, bar, 'first')
      await untilAnImportWaitsForTheLock(ctx)
      const refused = await importOne(ctx, bar, 'second')
      assert.equal(refused.statusCode, 503, refused.body)
      assert.equal(json(refused).error.code, 'imports_busy')
      const retryAfter = json(refused).error.details.retry_after_seconds
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `retry_after_seconds ${retryAfter}`)
      assert.equal(refused.headers['retry-after'], String(retryAfter), 'Retry-After says when to try again, as the details do')
    } finally {
      lock.release()
      await lock.done
    }
    assert.equal((await first).statusCode, 201)
    assert.equal(await itemQuantity(ctx, bar.caller, bar.itemId), 99, 'only the first import depleted stock')
    const retried = await importOne(ctx, bar, 'second')
    assert.equal(retried.statusCode, 201, retried.body)
    assert.deepEqual([json(retried).data.imported, json(retried).data.duplicates], [1, 0], 'the refused line was not stored: sent again, it is new')
    assert.equal(await itemQuantity(ctx, bar.caller, bar.itemId), 98)
  })
})
