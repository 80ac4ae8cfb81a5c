import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import { createTestContext, json, type TestContext } from '../helpers/context.js'
import { createItem, holdItemLock } from '../helpers/inventory.js'

/**
 * A count without counted_at is timed when it holds its items' locks: a quantity change that commits
 * while the count waits for a lock comes before the count, and is not re-applied on top of it. It once
 * took its time before locking (count 7 and PUT 50 on an item at 5 ended at 52). Needs a server, where
 * the count can wait on one connection while the PUT commits on another: skipped on the embedded database.
 */

const url = process.env.DATABASE_URL
let ctx: TestContext

before(async () => {
  if (url) ctx = await createTestContext()
})
after(async () => {
  if (ctx) await ctx.close()
})

/** Resolves once a statement of the pool waits for a row lock (the count, queued behind the test's lock). */
async function countWaitsForLock(): Promise<void> {
  for (;;) {
    const waiting = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%for update%'`.execute(ctx.database.db)
    if (waiting.rows[0]!.n > 0) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

test('a PUT committing while a count waits for its lock is before the count: stock ends at the count, not their sum', {
  skip: !url && 'needs DATABASE_URL (PostgreSQL)',
}, async () => {
  const caller = await ctx.newCaller()
  const created = [await createItem(ctx, caller, { quantity: 5 }), await createItem(ctx, caller, { quantity: 5 })]
  // The count locks its items in id order: holding the first keeps it waiting with the second unlocked.
  const [first, second] = created.map((item) => item.id).sort() as [string, string]
  const lock = await holdItemLock(ctx, first)
  try {
    const count = ctx.request('POST', '/v1/inventory/count', {
      key: caller.key,
      body: {
        location: 'main_bar',
        counted_by: 'maria',
        items: [
          { item_id: first, quantity: 5 },
          { item_id: second, quantity: 7 },
        ],
      },
    })
    await countWaitsForLock()
    const put = await ctx.request('PUT', `/v1/inventory/items/${second}`, { key: caller.key, body: { quantity: 50 } })
    assert.equal(put.statusCode, 200, put.body)
    lock.release()
    await lock.done
    const counted = await count
    assert.equal(counted.statusCode, 201, counted.body)
    const stock = json(await ctx.request('GET', `/v1/inventory/items/${second}`, { key: caller.key })).data
    assert.equal(stock.quantity, 7)
    assert.deepEqual(json(counted).data.variance_detected, [{ item_id: second, expected: 50, actual: 7, variance: -43 }])
    assert.ok(Date.parse(json(counted).data.counted_at) >= Date.parse(json(put).data.last_updated), 'the count is timed after the PUT it waited for')
  } finally {
    lock.release()
    await lock.done.catch(() => undefined)
  }
})
