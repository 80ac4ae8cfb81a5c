import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { listEvents } from '../../src/platform/outbox.js'
import { type Caller, createTestContext, json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

async function ledgerOf(itemId: string) {
  return ctx.database.db
    .selectFrom('stock_movements')
    .select(['kind', 'delta', 'quantity_before', 'quantity_after', 'reference_id', 'actor', 'occurred_at'])
    .where('item_id', '=', itemId)
    .orderBy('sequence')
    .execute()
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5))

async function batch(caller: Caller, body: object) {
  const response = await ctx.request('POST', '/v1/inventory/batch', { key: caller.key, body })
  assert.equal(response.statusCode, 201, response.body)
  return json(response).data
}

async function quantityOf(caller: Caller, itemId: string): Promise<number> {
  return json(await ctx.request('GET', `/v1/inventory/items/${itemId}`, { key: caller.key })).data.quantity
}

describe('POST /v1/inventory/count', () => {
  test('sets stock to the counted quantities and reports variance as actual minus expected', async () => {
    const caller = await ctx.newCaller()
    const vodka = await createItem(ctx, caller, { quantity: 10 })
    const gin = await createItem(ctx, caller, { quantity: 4 })
    const response = await ctx.request('POST', '/v1/inventory/count', {
      key: caller.key,
      body: {
        location: 'main_bar',
        counted_by: 'user_maria',
        items: [
          { item_id: vodka.id, quantity: 8.5, notes: 'one open bottle' },
          { item_id: gin.id, quantity: 4, notes: null },
        ],
      },
    })
    assert.equal(response.statusCode, 201, response.body)
    const result = json(response).data
    assert.match(result.count_id, /^cnt_/)
    assert.equal(result.items_updated, 2)
    assert.equal(result.counted_by, 'user_maria')
    assert.deepEqual(result.variance_detected, [{ item_id: vodka.id, expected: 10, actual: 8.5, variance: -1.5 }])
    const stock = json(await ctx.request('GET', `/v1/inventory/items/${vodka.id}`, { key: caller.key })).data
    assert.equal(stock.quantity, 8.5)
    const ledger = await ledgerOf(vodka.id)
    assert.equal(ledger.at(-1)!.kind, 'count')
    assert.equal(ledger.at(-1)!.reference_id, result.count_id)
    const completed = await listEvents(ctx.database.db, caller.tenant, 'inventory.count_completed')
    assert.deepEqual(completed[0]!.data, {
      count_id: result.count_id,
      location: 'main_bar',
      items_counted: 2,
      variance_detected: 1,
      counted_by: 'user_maria',
    })
  })

  test('a count entered after the fact keeps the movements recorded since counted_at', async () => {
    const caller = await ctx.newCaller()
    const item = await createItem(ctx, caller, { quantity: 10 })
    await new Promise((resolve) => setTimeout(resolve, 20))
    const countedAt = new Date().toISOString()
    await new Promise((resolve) => setTimeout(resolve, 20))
    // Two bottles leave after the shelf was counted but before the count is entered.
    await ctx.request('POST', '/v1/inventory/batch', { key: caller.key, body: { updates: [{ item_id: item.id, change: -2 }] } })
    const result = json(
      await ctx.request('POST', '/v1/inventory/count', {
        key: caller.key,
        body: { location: 'main_bar', counted_by: 'sam', counted_at: countedAt, items: [{ item_id: item.id, quantity: 9 }] },
      }),
    ).data
    assert.equal(result.counted_at, countedAt)
    assert.deepEqual(result.variance_detected, [{ item_id: item.id, expected: 10, actual: 9, variance: -1 }])
    const stock = json(await ctx.request('GET', `/v1/inventory/items/${item.id}`, { key: caller.key })).data
    assert.equal(stock.quantity, 7, 'counted 9, minus the 2 that left since')
    const ledger = await ledgerOf(item.id)
    assert.equal(
      ledger.reduce((sum, row) => sum + Number(row.delta), 0),
      7,
      'the ledger sums to the stock',
    )
    assert.equal(ledger.at(-1)!.occurred_at.toISOString(), countedAt)
  })

  test('a count back-dated before a quantity set by hand is history: recorded with its variance, stock unchanged', async () => {
    const caller = await ctx.newCaller()
    const item = await createItem(ctx, caller, { quantity: 10 })
    const countedAt = new Date().toISOString()
    await ctx.request('POST', '/v1/inventory/batch', { key: caller.key, body: { updates: [{ item_id: item.id, change: -1 }] } })
    await ctx.request('PUT', `/v1/inventory/items/${item.id}`, { key: caller.key, body: { quantity: 20 } })
    const ledgerBefore = await ledgerOf(item.id)
    const response = await ctx.request('POST', '/v1/inventory/count', {
      key: caller.key,
      body: { location: 'main_bar', counted_by: 'sam', counted_at: countedAt, items: [{ item_id: item.id, quantity: 8 }] },
    })
    assert.equal(response.statusCode, 201, response.body)
    // At counted_at the item stood at its starting 10; the later change of -1 does not count back.
    assert.deepEqual(json(response).data.variance_detected, [{ item_id: item.id, expected: 10, actual: 8, variance: -2 }])
    assert.equal(json(await ctx.request('GET', `/v1/inventory/items/${item.id}`, { key: caller.key })).data.quantity, 20)
    assert.deepEqual(await ledgerOf(item.id), ledgerBefore)
  })

  test('rejects a count in the future, a duplicate item, another location’s item; changes nothing', async () => {
    const caller = await ctx.newCaller()
    await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'cellar', name: 'Cellar' } })
    const item = await createItem(ctx, caller, { quantity: 3 })
    const cellarItem = await createItem(ctx, caller, { quantity: 3, location: 'cellar' })
    const cases: [object, number, string][] = [
      [{ location: 'main_bar', counted_by: 'a', counted_at: '2099-01-01T00:00:00Z', items: [{ item_id: item.id, quantity: 1 }] }, 400, 'invalid_parameter'],
      [
        {
          location: 'main_bar',
          counted_by: 'a',
          items: [
            { item_id: item.id, quantity: 1 },
            { item_id: item.id, quantity: 2 },
          ],
        },
        400,
        'invalid_parameter',
      ],
      [
        {
          location: 'main_bar',
          counted_by: 'a',
          items: [
            { item_id: item.id, quantity: 1 },
            { item_id: cellarItem.id, quantity: 2 },
          ],
        },
        400,
        'invalid_parameter',
      ],
      [
        {
          location: 'main_bar',
          counted_by: 'a',
          items: [
            { item_id: item.id, quantity: 1 },
            { item_id: 'item_ghost', quantity: 2 },
          ],
        },
        404,
        'item_not_found',
      ],
      [{ location: 'main_bar', counted_by: 'a', items: [{ item_id: item.id, quantity: -1 }] }, 400, 'invalid_quantity'],
      [{ location: 'attic', counted_by: 'a', items: [{ item_id: item.id, quantity: 1 }] }, 404, 'location_not_found'],
      [{ location: 'main_bar', counted_by: 'a', items: [] }, 400, 'invalid_parameter'],
    ]
    for (const [body, status, code] of cases) {
      const response = await ctx.request('POST', '/v1/inventory/count', { key: caller.key, body })
      assert.equal(response.statusCode, status, JSON.stringify(body))
      assert.equal(json(response).error.code, code)
    }
    assert.equal(json(await ctx.request('GET', `/v1/inventory/items/${item.id}`, { key: caller.key })).data.quantity, 3)
    assert.equal((await ledgerOf(item.id)).length, 1)
    assert.equal((await listEvents(ctx.database.db, caller.tenant, 'inventory.count_completed')).length, 0)
    const counts = await ctx.database.db.selectFrom('inventory_counts').select('id').where('account_id', '=', caller.tenant.accountId).execute()
    assert.equal(counts.length, 0)
  })
})

describe('POST /v1/inventory/batch', () => {
  test('applies absolute quantities and signed changes, and returns failures item by item', async () => {
    const caller = await ctx.newCaller()
    const a = await createItem(ctx, caller, { quantity: 10 })
    const b = await createItem(ctx, caller, { quantity: 2 })
    const response = await ctx.request('POST', '/v1/inventory/batch', {
      key: caller.key,
      body: {
        updates: [
          { item_id: a.id, quantity: 12 },
          { item_id: b.id, change: -0.5 },
          { item_id: 'item_ghost', quantity: 1 },
          { item_id: b.id, change: -10 },
          { item_id: a.id, quantity: -3 },
          { item_id: a.id, quantity: 1, change: 1 },
        ],
      },
    })
    assert.equal(response.statusCode, 201, response.body)
    const result = json(response).data
    assert.match(result.batch_id, /^bat_/)
    assert.equal(result.items_updated, 2)
    assert.deepEqual(
      result.failed.map((entry: { item_id: string; error: { code: string } }) => [entry.item_id, entry.error.code]),
      [
        ['item_ghost', 'item_not_found'],
        [b.id, 'invalid_quantity'],
        [a.id, 'invalid_quantity'],
        [a.id, 'invalid_parameter'],
      ],
    )
    assert.equal(json(await ctx.request('GET', `/v1/inventory/items/${a.id}`, { key: caller.key })).data.quantity, 12)
    assert.equal(json(await ctx.request('GET', `/v1/inventory/items/${b.id}`, { key: caller.key })).data.quantity, 1.5)
    const batchRows = (await ledgerOf(b.id)).filter((row) => row.kind === 'batch')
    assert.equal(batchRows.length, 1)
    assert.equal(batchRows[0]!.reference_id, result.batch_id)
  })

  test('occurred_at dates the batch: a quantity anchors there with the movements since on top, a change moves stock at that time', async () => {
    const caller = await ctx.newCaller()
    const a = await createItem(ctx, caller, { quantity: 10 })
    const b = await createItem(ctx, caller, { quantity: 5 })
    await tick()
    const occurredAt = new Date().toISOString()
    await tick()
    // Two bottles of a leave after the shelf was seen, before the batch is entered.
    await batch(caller, { updates: [{ item_id: a.id, change: -2 }] })
    const result = await batch(caller, {
      occurred_at: occurredAt,
      updates: [
        { item_id: a.id, quantity: 9 },
        { item_id: b.id, change: -1 },
      ],
    })
    assert.deepEqual([result.items_updated, result.failed], [2, []])
    assert.equal(await quantityOf(caller, a.id), 7, 'set to 9 then, less the 2 that left since')
    assert.equal(await quantityOf(caller, b.id), 4)
    assert.equal((await ledgerOf(b.id)).at(-1)!.occurred_at.toISOString(), occurredAt)
  })

  test('dated before the item’s latest count, a quantity is history (stock unchanged, read by theoretical stock) and a change is refused', async () => {
    const caller = await ctx.newCaller()
    const item = await createItem(ctx, caller, { quantity: 10 })
    await tick()
    const occurredAt = new Date().toISOString()
    await tick()
    const between = new Date().toISOString()
    await tick()
    await ctx.request('POST', '/v1/inventory/count', { key: caller.key, body: { location: 'main_bar', counted_by: 'sam', items: [{ item_id: item.id, quantity: 8 }] } })
    const result = await batch(caller, {
      occurred_at: occurredAt,
      updates: [
        { item_id: item.id, quantity: 12 },
        { item_id: item.id, change: -1 },
      ],
    })
    assert.equal(result.items_updated, 1)
    assert.deepEqual(
      result.failed.map((entry: { item_id: string; error: { code: string } }) => [entry.item_id, entry.error.code]),
      [[item.id, 'invalid_parameter']],
    )
    assert.match(result.failed[0].error.message, /latest count/)
    assert.equal(await quantityOf(caller, item.id), 8, 'as counted')
    const last = (await ledgerOf(item.id)).at(-1)!
    assert.deepEqual([last.kind, Number(last.delta), last.occurred_at.toISOString()], ['batch', 0, occurredAt])
    // A count entered for a moment after the batch expects what the batch said the shelf held.
    const response = await ctx.request('POST', '/v1/inventory/count', {
      key: caller.key,
      body: { location: 'main_bar', counted_by: 'sam', counted_at: between, items: [{ item_id: item.id, quantity: 11 }] },
    })
    assert.deepEqual(json(response).data.variance_detected, [{ item_id: item.id, expected: 12, actual: 11, variance: -1 }])
  })

  test('rejects an occurred_at in the future with invalid_parameter and changes nothing', async () => {
    const caller = await ctx.newCaller()
    const item = await createItem(ctx, caller, { quantity: 10 })
    const ledgerBefore = await ledgerOf(item.id)
    const response = await ctx.request('POST', '/v1/inventory/batch', {
      key: caller.key,
      body: { occurred_at: new Date(Date.now() + 3_600_000).toISOString(), updates: [{ item_id: item.id, quantity: 3 }] },
    })
    assert.equal(response.statusCode, 400, response.body)
    const { error } = json(response)
    assert.deepEqual([error.code, error.details.parameter], ['invalid_parameter', 'occurred_at'])
    assert.match(error.message, /in the future/)
    assert.equal(await quantityOf(caller, item.id), 10)
    assert.deepEqual(await ledgerOf(item.id), ledgerBefore)
  })

  test('rejects an empty batch and a malformed entry with invalid_parameter', async () => {
    const caller = await ctx.newCaller()
    for (const body of [{ updates: [] }, { updates: [{ quantity: 1 }] }, { changes: [] }]) {
      const response = await ctx.request('POST', '/v1/inventory/batch', { key: caller.key, body })
      assert.equal(response.statusCode, 400)
      assert.equal(json(response).error.code, 'invalid_parameter')
    }
  })
})

describe('reading counts', () => {
  test('GET /v1/inventory/counts lists counts newest first; /counts/:count_id shows every counted line; unknown ones are 404', async () => {
    const caller = await ctx.newCaller()
    const vodka = await createItem(ctx, caller, { quantity: 10 })
    const gin = await createItem(ctx, caller, { quantity: 4 })
    const count = async (countedAt: string, quantities: [string, number][]) =>
      json(
        await ctx.request('POST', '/v1/inventory/count', {
          key: caller.key,
          body: { location: 'main_bar', counted_by: 'user_maria', counted_at: countedAt, items: quantities.map(([item_id, quantity]) => ({ item_id, quantity, notes: null })) },
        }),
      ).data
    const older = await count('2026-11-01T23:00:00.000Z', [[vodka.id, 9]])
    const newer = await count('2026-11-08T23:00:00.000Z', [
      [vodka.id, 8.5],
      [gin.id, 4],
    ])
    const listed = json(await ctx.request('GET', '/v1/inventory/counts', { key: caller.key }))
    assert.deepEqual(
      listed.data.map((entry: { count_id: string }) => entry.count_id),
      [newer.count_id, older.count_id],
    )
    assert.equal(listed.pagination.total, 2)
    assert.deepEqual(listed.data[0], {
      count_id: newer.count_id,
      location: 'main_bar',
      counted_by: 'user_maria',
      counted_at: '2026-11-08T23:00:00.000Z',
      items_updated: 2,
      created_at: newer.created_at,
    })
    const detail = json(await ctx.request('GET', `/v1/inventory/counts/${newer.count_id}`, { key: caller.key })).data
    const lines = new Map(detail.items.map((line: { item_id: string }) => [line.item_id, line]))
    assert.deepEqual(lines.get(gin.id), { item_id: gin.id, expected: 4, actual: 4, variance: 0, notes: null, weights_g: null })
    assert.equal((lines.get(vodka.id) as { actual: number }).actual, 8.5)
    const missing = await ctx.request('GET', '/v1/inventory/counts/cnt_nope', { key: caller.key })
    assert.equal(missing.statusCode, 404)
    assert.equal(json(missing).error.code, 'count_not_found')
    const elsewhere = await ctx.request('GET', '/v1/inventory/counts', { key: caller.key, query: { location: 'rooftop' } })
    assert.equal(elsewhere.statusCode, 404)
    assert.equal(json(elsewhere).error.code, 'location_not_found')
    const other = await ctx.newCaller()
    assert.equal((await ctx.request('GET', `/v1/inventory/counts/${newer.count_id}`, { key: other.key })).statusCode, 404)
  })
})
