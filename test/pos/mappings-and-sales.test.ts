import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createConnection, createPosTestContext, itemQuantity, ledgerOf } from './pos-helpers.js'
import { assertRollupsMatchRaw } from '../analytics/analytics-helpers.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

const SOLD_AT = '2026-11-20T21:15:00.000Z'

/** A sale line sold now, after the items a test created: it takes stock (sales sold before an item's starting stock are history). */
function sale(fields: Record<string, unknown> = {}) {
  return { location: 'main_bar', pos_item_id: 'PLU-101', name: "Tito's Vodka 1.5oz", quantity: 2, unit_price: 8, sold_at: new Date().toISOString(), ...fields }
}

function later(timestamp: string, ms = 1): string {
  return new Date(Date.parse(timestamp) + ms).toISOString()
}

async function importSales(caller: Caller, connectionId: string, sales: unknown[]) {
  return ctx.request('POST', '/v1/sales', { key: caller.key, body: { connection_id: connectionId, sales } })
}

async function mappingsList(caller: Caller, connectionId: string, query: Record<string, string> = {}) {
  return json(await ctx.request('GET', `/v1/pos/connections/${connectionId}/mappings`, { key: caller.key, query }))
}

async function storedLines(connectionId: string): Promise<number> {
  const row = await ctx.database.db
    .selectFrom('pos_sales')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('connection_id', '=', connectionId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

describe('POST /v1/sales', () => {
  test('imports lines, counts duplicates by line_id, and lists new POS items as unmapped', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const first = await importSales(caller, connection.id, [sale({ line_id: 'a' }), sale({ line_id: 'b', pos_item_id: 'PLU-200', name: 'Bud Light Btl' }), sale()])
    assert.equal(first.statusCode, 201)
    assert.deepEqual({ ...json(first).data, import_id: undefined }, { import_id: undefined, imported: 3, duplicates: 0, unmapped: 3 })
    const again = await importSales(caller, connection.id, [sale({ line_id: 'a' }), sale({ line_id: 'b' }), sale({ line_id: 'c' })])
    assert.deepEqual({ ...json(again).data, import_id: undefined }, { import_id: undefined, imported: 1, duplicates: 2, unmapped: 1 })
    assert.equal(await storedLines(connection.id), 4)
    const list = await mappingsList(caller, connection.id, { mapped: 'false' })
    assert.deepEqual(list.data.map((entry: { pos_item_id: string }) => entry.pos_item_id).sort(), ['PLU-101', 'PLU-200'])
  })

  test('mapped lines deplete stock with one ledger row per item, referencing the import', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const item = await createItem(ctx, caller, { name: 'Bud Light 12oz Bottle', unit: 'bottle', size_ml: 355, quantity: 24, category: 'beer' })
    await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
      key: caller.key,
      body: { pos_item_id: 'PLU-200', inventory_item_id: item.id, conversion_factor: 1, conversion_unit: 'bottle' },
    })
    const response = await importSales(caller, connection.id, [
      sale({ pos_item_id: 'PLU-200', name: 'Bud Light Btl', quantity: 3 }),
      sale({ pos_item_id: 'PLU-200', name: 'Bud Light Btl', quantity: 2 }),
      sale({ pos_item_id: 'PLU-999', name: 'Nachos', quantity: 1 }),
    ])
    const result = json(response).data
    assert.equal(result.imported, 3)
    assert.equal(result.unmapped, 1)
    assert.equal(await itemQuantity(ctx, caller, item.id), 19)
    const sales = (await ledgerOf(ctx, item.id)).filter((row) => row.kind === 'sale')
    assert.equal(sales.length, 1)
    assert.equal(sales[0]?.reference_id, result.import_id)
  })

  test('a bottle item mapped in oz depletes through size_ml; sales may take stock below zero', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const item = await createItem(ctx, caller, { name: "Tito's Handmade Vodka 1L", size_ml: 1000, quantity: 1 })
    await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
      key: caller.key,
      body: { pos_item_id: 'PLU-101', inventory_item_id: item.id, conversion_factor: 1.5 },
    })
    await importSales(caller, connection.id, [sale({ quantity: 30 })])
    // 30 × 1.5 oz × 29.5735 ml = 1330.8075 ml = 1.3308 bottles of 1 L.
    assert.equal(await itemQuantity(ctx, caller, item.id), -0.3308)
  })

  test('rejects a zero quantity with invalid_quantity and stores nothing', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const response = await importSales(caller, connection.id, [sale(), sale({ quantity: 0 })])
    assert.equal(response.statusCode, 400)
    assert.equal(json(response).error.code, 'invalid_quantity')
    assert.equal(json(response).error.details.parameter, 'sales[1].quantity')
    assert.equal(await storedLines(connection.id), 0)
  })

  test('answers 404 location_not_found and connection_not_found, storing nothing', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const location = await importSales(caller, connection.id, [sale({ location: 'rooftop' })])
    assert.equal(location.statusCode, 404)
    assert.equal(json(location).error.code, 'location_not_found')
    const missing = await importSales(caller, 'pos_missing', [sale()])
    assert.equal(missing.statusCode, 404)
    assert.equal(json(missing).error.code, 'connection_not_found')
    assert.equal(await storedLines(connection.id), 0)
  })

  test('takes at most 10,000 lines a request', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const lines = Array.from({ length: 10_001 }, (_, index) => ({
      location: 'main_bar',
      pos_item_id: 'P',
      name: 'N',
      quantity: 1,
      unit_price: 1,
      sold_at: SOLD_AT,
      line_id: String(index),
    }))
    const response = await importSales(caller, connection.id, lines)
    assert.equal(response.statusCode, 400)
    assert.equal(json(response).error.details.parameter, 'sales')
    const accepted = await importSales(caller, connection.id, lines.slice(0, 10_000))
    assert.equal(accepted.statusCode, 201)
    assert.equal(json(accepted).data.imported, 10_000)
  })
})

describe('mappings', () => {
  test('creates, lists with filters, updates and deletes a mapping', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    await importSales(caller, connection.id, [sale({ line_id: '1' })])
    const item = await createItem(ctx, caller, { name: "Tito's Handmade Vodka 1L", size_ml: 1000, quantity: 10 })
    const created = await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
      key: caller.key,
      body: { pos_item_id: 'PLU-101', inventory_item_id: item.id, conversion_factor: 1.5 },
    })
    assert.equal(created.statusCode, 201)
    const mapping = json(created).data
    assert.equal(mapping.pos_name, "Tito's Vodka 1.5oz")
    assert.equal(mapping.inventory_name, "Tito's Handmade Vodka 1L")
    assert.equal(mapping.conversion_unit, 'oz')
    assert.equal(mapping.mapped, true)
    assert.ok(mapping.created_at)
    assert.equal((await mappingsList(caller, connection.id, { mapped: 'true' })).pagination.total, 1)
    assert.equal((await mappingsList(caller, connection.id, { mapped: 'false' })).pagination.total, 0)
    const updated = await ctx.request('PUT', `/v1/pos/connections/${connection.id}/mappings/PLU-101`, { key: caller.key, body: { conversion_factor: 2 } })
    assert.equal(updated.statusCode, 200)
    assert.deepEqual(Object.keys(json(updated).data).sort(), Object.keys(mapping).sort(), 'PUT answers the mapping as the list does')
    assert.equal(json(updated).data.conversion_factor, 2)
    const deleted = await ctx.request('DELETE', `/v1/pos/connections/${connection.id}/mappings/PLU-101`, { key: caller.key })
    assert.deepEqual(json(deleted).data, { pos_item_id: 'PLU-101', deleted: true })
    assert.equal((await mappingsList(caller, connection.id, { mapped: 'false' })).pagination.total, 1)
  })

  test('filters by POS category', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    await importSales(caller, connection.id, [sale()])
    await ctx.database.db.updateTable('pos_items').set({ category: 'Spirits' }).where('connection_id', '=', connection.id).execute()
    await importSales(caller, connection.id, [sale({ pos_item_id: 'F1', name: 'Fries' })])
    assert.equal((await mappingsList(caller, connection.id, { category: 'Spirits' })).pagination.total, 1)
  })

  test('a mapping may name a POS item not seen yet; its sales deplete when they arrive', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const item = await createItem(ctx, caller, { name: 'House Margarita Mix', unit: 'liter', size_ml: undefined, quantity: 5, category: 'mixer' })
    const created = await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
      key: caller.key,
      body: { pos_item_id: 'NEW-1', pos_name: 'Margarita', inventory_item_id: item.id, conversion_factor: 100, conversion_unit: 'ml' },
    })
    assert.equal(created.statusCode, 201, created.body)
    await importSales(caller, connection.id, [sale({ pos_item_id: 'NEW-1', name: 'House Margarita', quantity: 4 })])
    assert.equal(await itemQuantity(ctx, caller, item.id), 4.6)
  })

  test('a new mapping applies stored unmapped sales by sale time: after the latest count they take stock, before it they are history; once', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const item = await createItem(ctx, caller, { name: 'Bud Light 12oz Bottle', unit: 'bottle', size_ml: 355, quantity: 48, category: 'beer' })
    const bud = (fields: Record<string, unknown>) => sale({ pos_item_id: 'B', name: 'Bud Light Btl', ...fields })
    await importSales(caller, connection.id, [bud({ quantity: 7, sold_at: '2026-11-01T20:00:00.000Z' }), bud({ quantity: 5, sold_at: later(item.created_at as string) })])
    const count = json(
      await ctx.request('POST', '/v1/inventory/count', { key: caller.key, body: { location: 'main_bar', counted_by: 'sam', items: [{ item_id: item.id, quantity: 40 }] } }),
    ).data
    await importSales(caller, connection.id, [bud({ quantity: 3, sold_at: later(count.counted_at) })])
    assert.equal(await itemQuantity(ctx, caller, item.id), 40)
    const map = () =>
      ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
        key: caller.key,
        body: { pos_item_id: 'B', inventory_item_id: item.id, conversion_factor: 1, conversion_unit: 'bottle' },
      })
    await map()
    // Only the 3 sold after the count: the 5 before it are in the counted 40 already, the 7 before the item existed are history.
    assert.equal(await itemQuantity(ctx, caller, item.id), 37)
    const usage = await ctx.database.db.selectFrom('stock_sale_usage').select(['units', 'applied']).where('item_id', '=', item.id).orderBy('sold_at').execute()
    assert.deepEqual(
      usage.map((row) => [Number(row.units), row.applied]),
      [
        [7, false],
        [5, false],
        [3, true],
      ],
    )
    await ctx.request('DELETE', `/v1/pos/connections/${connection.id}/mappings/B`, { key: caller.key })
    await map()
    assert.equal(await itemQuantity(ctx, caller, item.id), 37)
  })

  test('a sale sold before the latest count never changes stock, however late it arrives', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const item = await createItem(ctx, caller, { name: 'Bud Light 12oz Bottle', unit: 'bottle', size_ml: 355, quantity: 10, category: 'beer' })
    await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
      key: caller.key,
      body: { pos_item_id: 'B', inventory_item_id: item.id, conversion_factor: 1, conversion_unit: 'bottle' },
    })
    const count = json(
      await ctx.request('POST', '/v1/inventory/count', { key: caller.key, body: { location: 'main_bar', counted_by: 'sam', items: [{ item_id: item.id, quantity: 8 }] } }),
    ).data
    const ledgerBefore = await ledgerOf(ctx, item.id)
    // Sold a moment before the count, imported after it: the count already saw that bottle gone.
    const late = await importSales(caller, connection.id, [sale({ pos_item_id: 'B', name: 'Bud Light Btl', quantity: 2, sold_at: later(count.counted_at, -1) })])
    assert.equal(json(late).data.unmapped, 0)
    assert.equal(await itemQuantity(ctx, caller, item.id), 8)
    assert.deepEqual(await ledgerOf(ctx, item.id), ledgerBefore)
    // Sold after it: taken, dated at its sale time.
    const soldAt = later(count.counted_at, 2)
    await importSales(caller, connection.id, [sale({ pos_item_id: 'B', name: 'Bud Light Btl', quantity: 1, sold_at: soldAt })])
    assert.equal(await itemQuantity(ctx, caller, item.id), 7)
    const saleRow = (await ledgerOf(ctx, item.id)).at(-1)
    assert.equal(saleRow?.kind, 'sale')
    assert.equal(saleRow?.occurred_at.toISOString(), soldAt)
  })

  test('changing a mapping restates its stored sales: history for analytics, and stock for sales after the latest count', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const item = await createItem(ctx, caller, { name: 'House Red Wine 750ml', size_ml: 750, quantity: 10, category: 'wine' })
    await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
      key: caller.key,
      body: { pos_item_id: 'WINE-GL', inventory_item_id: item.id, conversion_factor: 1, conversion_unit: 'bottle' },
    })
    const glass = (fields: Record<string, unknown>) => sale({ pos_item_id: 'WINE-GL', name: 'House Red Glass', quantity: 3, ...fields })
    await importSales(caller, connection.id, [glass({ sold_at: '2026-11-01T20:00:00.000Z' }), glass({})])
    // Mapped as a bottle per glass: the 3 glasses sold after the item existed took 3 bottles.
    assert.equal(await itemQuantity(ctx, caller, item.id), 7)
    const ledgerBefore = (await ledgerOf(ctx, item.id)).length
    const changed = await ctx.request('PUT', `/v1/pos/connections/${connection.id}/mappings/WINE-GL`, {
      key: caller.key,
      body: { conversion_factor: 150, conversion_unit: 'ml' },
    })
    assert.equal(changed.statusCode, 200, changed.body)
    // 150 ml of a 750 ml bottle is 0.2 bottle a glass: 0.6 taken instead of 3, so 2.4 come back.
    assert.equal(await itemQuantity(ctx, caller, item.id), 9.4)
    const ledger = await ledgerOf(ctx, item.id)
    assert.equal(ledger.length, ledgerBefore + 1)
    assert.equal(Number(ledger.at(-1)?.delta), 2.4)
    const usage = await ctx.database.db.selectFrom('stock_sale_usage').select(['units', 'applied']).where('item_id', '=', item.id).orderBy('sold_at').execute()
    assert.deepEqual(
      usage.map((row) => [Number(row.units), row.applied]),
      [
        [0.6, false],
        [0.6, true],
      ],
    )
    await assertRollupsMatchRaw(ctx, caller)
  })

  test('answers 404 mapping_not_found for an unknown POS item on PUT and DELETE, changing nothing', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const put = await ctx.request('PUT', `/v1/pos/connections/${connection.id}/mappings/NOPE`, { key: caller.key, body: { conversion_factor: 1 } })
    assert.equal(put.statusCode, 404)
    assert.equal(json(put).error.code, 'mapping_not_found')
    const del = await ctx.request('DELETE', `/v1/pos/connections/${connection.id}/mappings/NOPE`, { key: caller.key })
    assert.equal(json(del).error.code, 'mapping_not_found')
    assert.equal((await mappingsList(caller, connection.id)).pagination.total, 0)
  })

  test('rejects an unknown inventory item (item_not_found), a unit that does not convert (invalid_unit) and a second mapping', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const item = await createItem(ctx, caller, { size_ml: 750 })
    const base = { pos_item_id: 'X', conversion_factor: 1 }
    const missing = await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, { key: caller.key, body: { ...base, inventory_item_id: 'item_nope' } })
    assert.equal(missing.statusCode, 404)
    assert.equal(json(missing).error.code, 'item_not_found')
    const unit = await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
      key: caller.key,
      body: { ...base, inventory_item_id: item.id, conversion_unit: 'kg' },
    })
    assert.equal(unit.statusCode, 400)
    assert.equal(json(unit).error.code, 'invalid_unit')
    assert.equal((await mappingsList(caller, connection.id)).pagination.total, 0)
    await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, { key: caller.key, body: { ...base, inventory_item_id: item.id } })
    const twice = await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, { key: caller.key, body: { ...base, inventory_item_id: item.id } })
    assert.equal(twice.statusCode, 400)
    assert.equal(json(twice).error.details.parameter, 'pos_item_id')
  })

  test('a pos:read key lists mappings but cannot write them', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const reader = await ctx.keyFor(caller, ['pos:read'])
    assert.equal((await ctx.request('GET', `/v1/pos/connections/${connection.id}/mappings`, { key: reader })).statusCode, 200)
    const write = await ctx.request('POST', `/v1/pos/connections/${connection.id}/auto-map`, { key: reader, body: {} })
    assert.equal(write.statusCode, 403)
    const imported = await ctx.request('POST', '/v1/sales', { key: reader, body: { connection_id: connection.id, sales: [sale()] } })
    assert.equal(imported.statusCode, 403)
  })
})
