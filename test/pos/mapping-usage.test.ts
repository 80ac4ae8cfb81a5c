import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { assertRollupsMatchRaw, count, dateOf, daysAgo, salesChannel } from '../analytics/analytics-helpers.js'
import { createConnection, createPosTestContext, itemQuantity } from './pos-helpers.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

interface Mapping {
  inventory_item_id: string | null
  usage_per_sale: { inventory_item_id: string; inventory_name: string; units: number; unit: string }[]
  warnings: { code: string; message: string }[]
}

async function createMapping(caller: Caller, connectionId: string, body: Record<string, unknown>) {
  return ctx.request('POST', `/v1/pos/connections/${connectionId}/mappings`, { key: caller.key, body: { pos_item_id: 'BEER', ...body } })
}

async function getMapping(caller: Caller, connectionId: string, posItemId: string): Promise<Mapping> {
  const response = await ctx.request('GET', `/v1/pos/connections/${connectionId}/mappings/${posItemId}`, { key: caller.key })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).data
}

async function varianceReport(caller: Caller, query: Record<string, string>) {
  const response = await ctx.request('GET', '/v1/analytics/variance', { key: caller.key, query })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).data
}

/** The expected usage the report gives an item; an item without one in the report expected nothing. */
function expectedOf(report: { items: { inventory_item_id: string; expected_consumption: number }[] }, itemId: string): number {
  return report.items.find((item) => item.inventory_item_id === itemId)?.expected_consumption ?? 0
}

describe('what a mapping says it does', () => {
  test('a bottled beer mapped with factor 1 and no unit takes 1 oz per sale: usage_per_sale says so, with a warning', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const beer = await createItem(ctx, caller, { name: 'Bud Light 12oz Bottle', unit: 'bottle', size_ml: 355, category: 'beer', quantity: 24 })
    const created = await createMapping(caller, connection.id, { inventory_item_id: beer.id, conversion_factor: 1 })
    assert.equal(created.statusCode, 201, created.body)
    const mapping: Mapping = json(created).data
    // 1 oz = 29.5735 ml of a 355 ml bottle.
    assert.deepEqual(mapping.usage_per_sale, [{ inventory_item_id: beer.id, inventory_name: 'Bud Light 12oz Bottle', units: 0.083306, unit: 'bottle' }])
    assert.deepEqual(
      mapping.warnings.map((warning) => warning.code),
      ['implausible_usage'],
    )
    assert.match(mapping.warnings[0]?.message ?? '', /conversion_unit bottle with a factor of 1/)
    assert.deepEqual(await getMapping(caller, connection.id, 'BEER'), mapping)
    const list = json(await ctx.request('GET', `/v1/pos/connections/${connection.id}/mappings`, { key: caller.key })).data
    assert.deepEqual(list, [mapping])
  })

  test('a beer mapped by the bottle takes one bottle per sale, without a warning', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const beer = await createItem(ctx, caller, { name: 'Bud Light 12oz Bottle', unit: 'bottle', size_ml: 355, category: 'beer', quantity: 24 })
    const mapping: Mapping = json(await createMapping(caller, connection.id, { inventory_item_id: beer.id, conversion_factor: 1, conversion_unit: 'bottle' })).data
    assert.deepEqual(
      mapping.usage_per_sale.map((usage) => [usage.units, usage.unit]),
      [[1, 'bottle']],
    )
    assert.deepEqual(mapping.warnings, [])
  })

  test('a keg without size_ml mapped in oz is refused with what to send instead, and nothing is created', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const keg = await createItem(ctx, caller, { name: 'House Lager Keg', unit: 'keg', size_ml: undefined, category: 'beer', quantity: 2 })
    const refused = await createMapping(caller, connection.id, { inventory_item_id: keg.id, conversion_factor: 16, conversion_unit: 'oz' })
    assert.equal(refused.statusCode, 400)
    const { error } = json(refused)
    assert.equal(error.code, 'invalid_unit')
    assert.match(error.message, /give the item a size_ml, or use conversion_unit keg with a factor of 1\/\(oz per keg\)/)
    const list = json(await ctx.request('GET', `/v1/pos/connections/${connection.id}/mappings`, { key: caller.key }))
    assert.equal(list.pagination.total, 0)
  })

  test('three bottles per sale work, with a warning', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const connection = await createConnection(ctx, caller)
    const vodka = await createItem(ctx, caller, { name: 'Well Vodka 750ml', quantity: 10 })
    const created = await createMapping(caller, connection.id, { pos_item_id: 'BUCKET', inventory_item_id: vodka.id, conversion_factor: 3, conversion_unit: 'bottle' })
    assert.equal(created.statusCode, 201, created.body)
    const mapping: Mapping = json(created).data
    assert.deepEqual(
      mapping.usage_per_sale.map((usage) => usage.units),
      [3],
    )
    assert.deepEqual(
      mapping.warnings.map((warning) => warning.code),
      ['implausible_usage'],
    )
    assert.match(mapping.warnings[0]?.message ?? '', /more than one bottle per sale/)
  })
})

/**
 * Two vodkas counted 10 and 3 days ago, and 40 shots of POS item VODKA sold between (history) mapped to
 * the well vodka at 1.5 oz; 10 more sold now, after the items' starting stock, which took stock.
 */
async function vodkaHistory(caller: Caller) {
  const well = await createItem(ctx, caller, { name: 'Well Vodka 750ml', quantity: 10 })
  const titos = await createItem(ctx, caller, { name: "Tito's Handmade Vodka 750ml", quantity: 10 })
  const pos = await salesChannel(ctx, caller)
  await pos.map('VODKA', { inventory_item_id: well.id, conversion_factor: 1.5 })
  await count(
    ctx,
    caller,
    [
      { item_id: well.id, quantity: 12 },
      { item_id: titos.id, quantity: 12 },
    ],
    daysAgo(10),
  )
  await pos.sell([{ pos_item_id: 'VODKA', name: 'Vodka 1.5oz', quantity: 40, unit_price: 8, sold_at: daysAgo(6, 21) }])
  await count(
    ctx,
    caller,
    [
      { item_id: well.id, quantity: 8 },
      { item_id: titos.id, quantity: 8 },
    ],
    daysAgo(3),
  )
  await pos.sell([{ pos_item_id: 'VODKA', name: 'Vodka 1.5oz', quantity: 10, unit_price: 8, sold_at: new Date().toISOString() }])
  return { well, titos, pos, period: { date_from: dateOf(daysAgo(10)), date_to: dateOf(daysAgo(3)) } }
}

describe('changing and deleting a mapping restates the history it covers', () => {
  test('PUT re-pointing a mapping to another item moves the expected usage of every stored line, and the stock of those after the anchor', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { well, titos, pos, period } = await vodkaHistory(caller)
    const before = await varianceReport(caller, period)
    // 40 × 1.5 oz × 29.5735 ml / 750 ml = 2.36588 bottles.
    assert.deepEqual([expectedOf(before, well.id), expectedOf(before, titos.id)], [2.3659, 0])
    // 10 × 1.5 oz = 0.59147 bottle taken now.
    assert.deepEqual([await itemQuantity(ctx, caller, well.id), await itemQuantity(ctx, caller, titos.id)], [9.4085, 10])

    const moved = await ctx.request('PUT', `/v1/pos/connections/${pos.connectionId}/mappings/VODKA`, { key: caller.key, body: { inventory_item_id: titos.id } })
    assert.equal(moved.statusCode, 200, moved.body)
    const mapping = json(moved).data
    assert.deepEqual([mapping.inventory_item_id, mapping.conversion_factor, mapping.conversion_unit], [titos.id, 1.5, 'oz'])
    assert.deepEqual(mapping.usage_per_sale, [{ inventory_item_id: titos.id, inventory_name: titos.name, units: 0.059147, unit: 'bottle' }])

    const after = await varianceReport(caller, period)
    assert.deepEqual([expectedOf(after, well.id), expectedOf(after, titos.id)], [0, 2.3659])
    assert.deepEqual([await itemQuantity(ctx, caller, well.id), await itemQuantity(ctx, caller, titos.id)], [10, 9.4085])
    await assertRollupsMatchRaw(ctx, caller)
  })

  test('PUT switching between an item and a recipe needs conversion_factor', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { well, pos } = await vodkaHistory(caller)
    const recipe = await ctx.request('POST', '/v1/recipes', {
      key: caller.key,
      body: { name: 'Vodka soda', category: 'cocktail', selling_price: 9, ingredients: [{ inventory_item_id: well.id, quantity: 2, unit: 'oz' }] },
    })
    assert.equal(recipe.statusCode, 201, recipe.body)
    const path = `/v1/pos/connections/${pos.connectionId}/mappings/VODKA`
    const refused = await ctx.request('PUT', path, { key: caller.key, body: { recipe_id: json(recipe).data.id } })
    assert.equal(refused.statusCode, 400)
    assert.deepEqual([json(refused).error.code, json(refused).error.details.parameter], ['invalid_parameter', 'conversion_factor'])
    const switched = await ctx.request('PUT', path, { key: caller.key, body: { recipe_id: json(recipe).data.id, conversion_factor: 1 } })
    assert.equal(switched.statusCode, 200, switched.body)
    // 2 oz per serving: the 10 sold now take 0.788627 bottle instead of 0.59147, from the stored 9.4085.
    assert.deepEqual(
      json(switched).data.usage_per_sale.map((usage: { units: number }) => usage.units),
      [0.078863],
    )
    assert.equal(await itemQuantity(ctx, caller, well.id), 9.2113)
  })

  test('DELETE turns the stored lines into unmapped sales in reports and gives back the stock they took', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { well, pos, period } = await vodkaHistory(caller)
    assert.deepEqual((await varianceReport(caller, period)).data_quality.unmapped_pos_items, [])

    const deleted = await ctx.request('DELETE', `/v1/pos/connections/${pos.connectionId}/mappings/VODKA`, { key: caller.key })
    assert.equal(deleted.statusCode, 200, deleted.body)
    const after = await varianceReport(caller, period)
    assert.deepEqual(after.data_quality.unmapped_pos_items, [{ connection_id: pos.connectionId, pos_item_id: 'VODKA', name: 'Vodka 1.5oz', revenue: 320 }])
    assert.equal(expectedOf(after, well.id), 0)
    assert.equal(await itemQuantity(ctx, caller, well.id), 10)
    const unmapped = await getMapping(caller, pos.connectionId, 'VODKA')
    assert.deepEqual([unmapped.inventory_item_id, unmapped.usage_per_sale, unmapped.warnings], [null, [], []])
    await assertRollupsMatchRaw(ctx, caller)

    // Mapped again, the lines take what they took before: deleting and re-creating is the same as never deleting.
    await pos.map('VODKA', { inventory_item_id: well.id, conversion_factor: 1.5 })
    assert.equal(expectedOf(await varianceReport(caller, period), well.id), 2.3659)
    assert.equal(await itemQuantity(ctx, caller, well.id), 9.4085)
  })
})
