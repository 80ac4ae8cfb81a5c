import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parse } from 'csv-parse/sync'
import { createTestContext, json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

/** A 750 ml bottle weighing 450 g empty and 1250 g full: 800 g of liquid, 40 g of tolerance either side. */
const BOTTLE_WEIGHTS = { full_weight_g: 1250, empty_weight_g: 450 }

async function getItem(caller: Caller, id: string) {
  return json(await ctx.request('GET', `/v1/inventory/items/${id}`, { key: caller.key })).data
}

async function putItem(caller: Caller, id: string, body: object) {
  return ctx.request('PUT', `/v1/inventory/items/${id}`, { key: caller.key, body })
}

async function countLines(caller: Caller, items: object[]) {
  return ctx.request('POST', '/v1/inventory/count', { key: caller.key, body: { location: 'main_bar', counted_by: 'maria', items } })
}

/** What a refused count must leave alone: the item's stock and ledger, and the tenant's counts. */
async function countState(caller: Caller, itemId: string) {
  const item = await getItem(caller, itemId)
  const movements = json(await ctx.request('GET', `/v1/inventory/items/${itemId}/movements`, { key: caller.key })).pagination.total
  const counts = json(await ctx.request('GET', '/v1/inventory/counts', { key: caller.key })).pagination.total
  return { quantity: item.quantity, last_updated: item.last_updated, movements, counts }
}

function assertError(response: Awaited<ReturnType<TestContext['request']>>, status: number, code: string, parameter?: string) {
  assert.equal(response.statusCode, status, response.body)
  const { error } = json(response)
  assert.equal(error.code, code, response.body)
  if (parameter !== undefined) assert.equal(error.details?.parameter, parameter, response.body)
  return error
}

describe('container weights on items', () => {
  test('are kept on create, answered by get, list and CSV, changed one at a time by PUT and cleared by null', async () => {
    const caller = await ctx.newCaller()
    const plain = await createItem(ctx, caller, { name: 'A plain bottle' })
    assert.deepEqual([plain.full_weight_g, plain.empty_weight_g], [null, null])
    const weighed = await createItem(ctx, caller, { name: 'B weighed bottle', ...BOTTLE_WEIGHTS })
    assert.deepEqual([weighed.full_weight_g, weighed.empty_weight_g], [1250, 450])
    assert.deepEqual([(await getItem(caller, weighed.id)).full_weight_g, (await getItem(caller, weighed.id)).empty_weight_g], [1250, 450])
    const listed = json(await ctx.request('GET', '/v1/inventory/items', { key: caller.key })).data
    assert.deepEqual(
      listed.map((item: any) => [item.name, item.full_weight_g, item.empty_weight_g]),
      [
        ['A plain bottle', null, null],
        ['B weighed bottle', 1250, 450],
      ],
    )

    const csv = parse((await ctx.request('GET', '/v1/inventory/items?format=csv', { key: caller.key })).body, { columns: true }) as Record<string, string>[]
    assert.deepEqual(
      csv.map((row) => [row.name, row.full_weight_g, row.empty_weight_g]),
      [
        ['A plain bottle', '', ''],
        ['B weighed bottle', '1250', '450'],
      ],
    )

    const tare = await putItem(caller, weighed.id, { empty_weight_g: 462.5 })
    assert.equal(tare.statusCode, 200, tare.body)
    assert.deepEqual([json(tare).data.full_weight_g, json(tare).data.empty_weight_g], [1250, 462.5])
    const cleared = await putItem(caller, weighed.id, { full_weight_g: null, empty_weight_g: null })
    assert.equal(cleared.statusCode, 200, cleared.body)
    assert.deepEqual([json(cleared).data.full_weight_g, json(cleared).data.empty_weight_g], [null, null])
    const set = await putItem(caller, plain.id, { unit: 'keg', ...BOTTLE_WEIGHTS })
    assert.equal(set.statusCode, 200, set.body)
    assert.deepEqual([json(set).data.unit, json(set).data.full_weight_g], ['keg', 1250])
  })

  test('are both or neither, full above empty, on a bottle, can or keg only: 400 invalid_parameter naming the field, nothing changed', async () => {
    const caller = await ctx.newCaller()
    const creates: [object, string][] = [
      [{ full_weight_g: 1250 }, 'empty_weight_g'],
      [{ empty_weight_g: 450 }, 'full_weight_g'],
      [{ full_weight_g: 450, empty_weight_g: 450 }, 'full_weight_g'],
      [{ full_weight_g: 400, empty_weight_g: 450 }, 'full_weight_g'],
      [{ unit: 'each', ...BOTTLE_WEIGHTS }, 'full_weight_g'],
      [{ full_weight_g: 1250.001, empty_weight_g: 450 }, 'full_weight_g'],
    ]
    for (const [fields, parameter] of creates) {
      const response = await ctx.request('POST', '/v1/inventory/items', {
        key: caller.key,
        body: { name: 'Gin', sku: 'GIN', category: 'spirits', quantity: 3, unit: 'bottle', location: 'main_bar', ...fields },
      })
      assertError(response, 400, 'invalid_parameter', parameter)
    }
    assert.equal(json(await ctx.request('GET', '/v1/inventory/items', { key: caller.key })).pagination.total, 0)

    const weighed = await createItem(ctx, caller, BOTTLE_WEIGHTS)
    const before = await getItem(caller, weighed.id)
    const updates: [object, string][] = [
      // The field left without a value is named: the pair goes together.
      [{ full_weight_g: null }, 'full_weight_g'],
      [{ empty_weight_g: null }, 'empty_weight_g'],
      [{ empty_weight_g: 1300 }, 'empty_weight_g'],
      [{ full_weight_g: 400, quantity: 1 }, 'full_weight_g'],
      [{ unit: 'each' }, 'unit'],
    ]
    for (const [body, parameter] of updates) assertError(await putItem(caller, weighed.id, body), 400, 'invalid_parameter', parameter)
    assert.deepEqual(await getItem(caller, weighed.id), before)
  })
})

describe('POST /v1/inventory/count with weights', () => {
  test('adds an open bottle’s weight to the full units: (weight − empty) / (full − empty), rounded to 3 decimals', async () => {
    const caller = await ctx.newCaller()
    const vodka = await createItem(ctx, caller, { quantity: 10, ...BOTTLE_WEIGHTS })
    const gin = await createItem(ctx, caller, { quantity: 4, ...BOTTLE_WEIGHTS })
    const rum = await createItem(ctx, caller, { quantity: 6 })
    const response = await countLines(caller, [
      // Half full: 2 + 400 / 800.
      { item_id: vodka.id, quantity: 2, weight_g: 850 },
      // 250 / 800 = 0.3125, rounded half up.
      { item_id: gin.id, quantity: 0, weight_g: 700 },
      { item_id: rum.id, quantity: 5.5 },
    ])
    assert.equal(response.statusCode, 201, response.body)
    const result = json(response).data
    assert.deepEqual(
      result.variance_detected.map((line: any) => [line.item_id, line.actual]),
      [
        [vodka.id, 2.5],
        [gin.id, 0.313],
        [rum.id, 5.5],
      ],
    )
    assert.equal((await getItem(caller, vodka.id)).quantity, 2.5)
    assert.equal((await getItem(caller, gin.id)).quantity, 0.313)

    const detail = json(await ctx.request('GET', `/v1/inventory/counts/${result.count_id}`, { key: caller.key })).data
    const lines = new Map(detail.items.map((line: any) => [line.item_id, line]))
    assert.deepEqual((lines.get(vodka.id) as any).weights_g, [850])
    assert.equal((lines.get(vodka.id) as any).actual, 2.5)
    assert.equal((lines.get(rum.id) as any).weights_g, null, 'counted by eye')
  })

  test('adds several open bottles, each clamped to empty and full within the tolerance, and keeps their weights', async () => {
    const caller = await ctx.newCaller()
    const vodka = await createItem(ctx, caller, { quantity: 10, ...BOTTLE_WEIGHTS })
    // 1 full + 0.5 + 0.25 + 1 (above full, within 40 g) + 0 (below empty, within 40 g).
    const response = await countLines(caller, [{ item_id: vodka.id, quantity: 1, weights_g: [850, 650, 1290, 410] }])
    assert.equal(response.statusCode, 201, response.body)
    const result = json(response).data
    assert.equal((await getItem(caller, vodka.id)).quantity, 2.75)
    const detail = json(await ctx.request('GET', `/v1/inventory/counts/${result.count_id}`, { key: caller.key })).data
    assert.deepEqual(detail.items[0].weights_g, [850, 650, 1290, 410])
    const csv = parse((await ctx.request('GET', `/v1/inventory/counts/${result.count_id}?format=csv`, { key: caller.key })).body, { columns: true }) as Record<string, string>[]
    assert.equal(csv[0]!.weights_g, '850 650 1290 410')
    assert.equal(csv[0]!.actual, '2.75')
  })

  test('refuses a weight outside empty − 5 % to full + 5 % of the liquid with invalid_quantity naming the line and the range; nothing saved', async () => {
    const caller = await ctx.newCaller()
    const gin = await createItem(ctx, caller, { quantity: 4 })
    const vodka = await createItem(ctx, caller, { name: 'Vodka', quantity: 10, ...BOTTLE_WEIGHTS })
    const before = await countState(caller, vodka.id)
    const cases: [object, string, number][] = [
      [{ weights_g: [850, 1290.01] }, 'items[1].weights_g[1]', 1290.01],
      [{ weight_g: 409.99 }, 'items[1].weight_g', 409.99],
      [{ weight_g: -5 }, 'items[1].weight_g', -5],
    ]
    for (const [weights, parameter, value] of cases) {
      const response = await countLines(caller, [
        { item_id: gin.id, quantity: 3 },
        { item_id: vodka.id, quantity: 1, ...weights },
      ])
      const error = assertError(response, 400, 'invalid_quantity', parameter)
      assert.deepEqual({ value: error.details.value, min_g: error.details.min_g, max_g: error.details.max_g }, { value, min_g: 410, max_g: 1290 })
      assert.match(error.message, /410–1290 g/)
    }
    assertError(await countLines(caller, [{ item_id: vodka.id, quantity: 1, weight_g: 850.125 }]), 400, 'invalid_quantity', 'items[0].weight_g')
    assert.deepEqual(await countState(caller, vodka.id), before)
    assert.equal((await getItem(caller, gin.id)).quantity, 4)
  })

  test('refuses weights on an item without both weights, and weight_g with weights_g, with invalid_parameter; nothing saved', async () => {
    const caller = await ctx.newCaller()
    const plain = await createItem(ctx, caller, { quantity: 4 })
    const vodka = await createItem(ctx, caller, { quantity: 10, ...BOTTLE_WEIGHTS })
    const before = [await countState(caller, plain.id), await countState(caller, vodka.id)]
    const cases: [object[], string][] = [
      [
        [
          { item_id: vodka.id, quantity: 1, weight_g: 850 },
          { item_id: plain.id, quantity: 1, weight_g: 850 },
        ],
        'items[1].weight_g',
      ],
      [[{ item_id: plain.id, quantity: 1, weights_g: [700, 850] }], 'items[0].weights_g[0]'],
      [[{ item_id: vodka.id, quantity: 1, weight_g: 850, weights_g: [700] }], 'items[0].weights_g'],
    ]
    for (const [items, parameter] of cases) assertError(await countLines(caller, items), 400, 'invalid_parameter', parameter)
    // An empty list, or more open bottles than one line takes, fails the schema.
    assertError(await countLines(caller, [{ item_id: vodka.id, quantity: 1, weights_g: [] }]), 400, 'invalid_parameter')
    assertError(await countLines(caller, [{ item_id: vodka.id, quantity: 1, weights_g: Array(51).fill(850) }]), 400, 'invalid_parameter')
    assert.deepEqual([await countState(caller, plain.id), await countState(caller, vodka.id)], before)
  })
})
