import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { listEvents } from '../../src/platform/outbox.js'
import { type Caller, createTestContext, json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext({ env: { BARSTOCK_WEBHOOK_ALLOW_PRIVATE: '1' } })
})
after(() => ctx.close())

async function quantityOf(caller: Caller, itemId: string): Promise<number> {
  return json(await ctx.request('GET', `/v1/inventory/items/${itemId}`, { key: caller.key })).data.quantity
}

function recordWaste(caller: Caller, body: Record<string, unknown>) {
  return ctx.request('POST', '/v1/inventory/waste', { key: caller.key, body: { location: 'main_bar', recorded_by: 'maria', ...body } })
}

/** Every item, waste entry and event of the account: a refused request leaves all three as they were. */
async function accountState(caller: Caller) {
  const items = json(await ctx.request('GET', '/v1/inventory/items', { key: caller.key })).data
  const waste = json(await ctx.request('GET', '/v1/inventory/waste', { key: caller.key })).data
  return { items, waste, events: (await listEvents(ctx.database.db, caller.tenant)).length }
}

describe('POST /v1/inventory/waste', () => {
  test('takes a spill in oz and a broken bottle from stock, in the item’s unit, with costs, ledger rows and events', async () => {
    const caller = await ctx.newCaller()
    const vodka = await createItem(ctx, caller, { quantity: 10, cost_per_unit: 18.5, size_ml: 750, reorder_point: 9.5 })
    const response = await recordWaste(caller, {
      items: [
        { item_id: vodka.id, quantity: 1.5, unit: 'oz', reason: 'spill', notes: 'knocked over' },
        { item_id: vodka.id, quantity: 1, reason: 'breakage' },
      ],
    })
    assert.equal(response.statusCode, 201, response.body)
    const entry = json(response).data
    assert.match(entry.id, /^wst_/)
    // 1.5 oz × 29.5735 ml ÷ 750 ml = 0.059147 bottle, stored to 4 decimals.
    assert.deepEqual(entry.items, [
      { item_id: vodka.id, name: vodka.name, quantity: 1.5, unit: 'oz', quantity_in_item_unit: 0.0591, reason: 'spill', notes: 'knocked over', cost: 1.09 },
      { item_id: vodka.id, name: vodka.name, quantity: 1, unit: 'bottle', quantity_in_item_unit: 1, reason: 'breakage', notes: null, cost: 18.5 },
    ])
    assert.equal(entry.total_cost, 19.59)
    assert.equal(await quantityOf(caller, vodka.id), 8.9409)
    const moves = json(await ctx.request('GET', `/v1/inventory/items/${vodka.id}/movements`, { key: caller.key })).data
    assert.deepEqual(
      moves.slice(0, 2).map((move: { kind: string; change: number; reference_id: string }) => [move.kind, move.change, move.reference_id]),
      [
        ['waste', -1],
        ['waste', -0.0591],
      ].map(([kind, change]) => [kind, change, entry.id]),
    )
    const [recorded] = await listEvents(ctx.database.db, caller.tenant, 'inventory.waste_recorded')
    assert.deepEqual(recorded!.data, {
      waste_id: entry.id,
      location: 'main_bar',
      recorded_by: 'maria',
      items: [
        { item_id: vodka.id, name: vodka.name, quantity: 0.0591, reason: 'spill', cost: 1.09 },
        { item_id: vodka.id, name: vodka.name, quantity: 1, reason: 'breakage', cost: 18.5 },
      ],
      total_cost: 19.59,
    })
    const updated = await listEvents(ctx.database.db, caller.tenant, 'inventory.updated')
    const last = updated.at(-1)!.data as { change: number; updated_by: string }
    assert.deepEqual([last.change, last.updated_by], [-1.0591, 'maria'])
    assert.equal((await listEvents(ctx.database.db, caller.tenant, 'inventory.low_stock')).length, 1, 'it crossed below its reorder point')
  })

  test('refuses bad waste with the documented code, and changes nothing', async () => {
    const caller = await ctx.newCaller()
    const vodka = await createItem(ctx, caller, { quantity: 10 })
    const lime = await createItem(ctx, caller, { name: 'Limes', unit: 'each', size_ml: undefined, category: 'food' })
    await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'bar_b', name: 'Bar B' } })
    const elsewhere = await createItem(ctx, caller, { location: 'bar_b' })
    const before = await accountState(caller)
    const line = (fields: Record<string, unknown>) => ({ items: [{ item_id: vodka.id, quantity: 1, reason: 'spill', ...fields }] })
    const cases: [Record<string, unknown>, number, string, string?][] = [
      [line({ reason: 'evaporated' }), 400, 'invalid_parameter', 'items[0].reason'],
      [line({ quantity: 0 }), 400, 'invalid_quantity', 'items[0].quantity'],
      [line({ quantity: 0.001, unit: 'ml' }), 400, 'invalid_quantity', 'items[0].quantity'],
      [line({ unit: 'furlong' }), 400, 'invalid_unit', 'items[0].unit'],
      [line({ unit: 'kg' }), 400, 'invalid_unit', 'items[0].unit'],
      [{ items: [{ item_id: lime.id, quantity: 1, unit: 'oz', reason: 'spoilage' }] }, 400, 'invalid_unit', 'items[0].unit'],
      [line({ item_id: 'item_missing' }), 404, 'item_not_found'],
      [line({ item_id: elsewhere.id }), 400, 'invalid_parameter', 'items[0].item_id'],
      [{ location: 'nowhere', ...line({}) }, 404, 'location_not_found'],
      [{ occurred_at: new Date(Date.now() + DAY_MS).toISOString(), ...line({}) }, 400, 'invalid_parameter', 'occurred_at'],
    ]
    for (const [body, status, code, parameter] of cases) {
      const response = await recordWaste(caller, body)
      assert.equal(response.statusCode, status, `${JSON.stringify(body)}: ${response.body}`)
      const error = json(response).error
      assert.equal(error.code, code, response.body)
      if (parameter) assert.equal(error.details?.parameter, parameter, response.body)
    }
    const unknownReason = json(await recordWaste(caller, line({ reason: 'evaporated' }))).error
    assert.match(unknownReason.message, /spill, breakage, comp, staff_drink, spoilage, returned, other/)
    assert.deepEqual(await accountState(caller), before)
    assert.equal(json(await ctx.request('GET', '/v1/inventory/waste/wst_missing', { key: caller.key })).error.code, 'waste_not_found')
  })
})

describe('GET and DELETE /v1/inventory/waste', () => {
  test('lists by location, reason and date, and a void gives the stock back and keeps the entry', async () => {
    const caller = await ctx.newCaller()
    const vodka = await createItem(ctx, caller, { quantity: 10 })
    const spill = json(await recordWaste(caller, { items: [{ item_id: vodka.id, quantity: 30, unit: 'ml', reason: 'spill' }] })).data
    const comp = json(await recordWaste(caller, { occurred_at: '2026-01-05T22:00:00Z', items: [{ item_id: vodka.id, quantity: 1, reason: 'comp' }] })).data
    const list = (query: Record<string, string>) => ctx.request('GET', '/v1/inventory/waste', { key: caller.key, query }).then((response) => json(response))
    assert.deepEqual(
      (await list({})).data.map((entry: { id: string }) => entry.id),
      [spill.id, comp.id],
    )
    assert.deepEqual(
      (await list({ reason: 'comp' })).data.map((entry: { id: string }) => entry.id),
      [comp.id],
    )
    assert.deepEqual(
      (await list({ date_to: '2026-01-31' })).data.map((entry: { id: string }) => entry.id),
      [comp.id],
    )
    assert.equal((await list({ location: 'main_bar' })).pagination.total, 2)
    assert.equal((await list({ location: 'nowhere' })).error.code, 'location_not_found')
    assert.equal((await list({ reason: 'evaporated' })).error.code, 'invalid_parameter')
    assert.deepEqual(json(await ctx.request('GET', `/v1/inventory/waste/${comp.id}`, { key: caller.key })).data, comp)

    assert.equal(await quantityOf(caller, vodka.id), 9.96, 'the January comp is history; the spill took 0.04 bottle')
    const voided = json(await ctx.request('DELETE', `/v1/inventory/waste/${spill.id}`, { key: caller.key })).data
    assert.ok(voided.voided_at)
    assert.equal(await quantityOf(caller, vodka.id), 10)
    assert.ok((await list({})).data.find((entry: { id: string }) => entry.id === spill.id).voided_at)
  })

  test('a webhook can subscribe to inventory.waste_recorded', async () => {
    const caller = await ctx.newCaller()
    const response = await ctx.request('POST', '/v1/webhooks', { key: caller.key, body: { url: 'http://127.0.0.1:9/hooks', events: ['inventory.waste_recorded'] } })
    assert.equal(response.statusCode, 201, response.body)
  })
})
