import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type Caller, json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { count, dateOf, daysAgo } from '../analytics/analytics-helpers.js'
import { createConnection, createPosTestContext, itemQuantity } from './pos-helpers.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

const TITO = { name: "Tito's Handmade Vodka 750ml", sku: 'TITO-750', unit: 'bottle', size_ml: 750, quantity: 10, cost_per_unit: 20 }

/** A sandbox caller whose account has bar_b (which will stock the SKU) and bar_c (which will not) beside main_bar. */
async function groupCaller(): Promise<Caller> {
  const caller = await ctx.newCaller({ environment: 'sandbox' })
  for (const id of ['bar_b', 'bar_c']) {
    const response = await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id, name: id } })
    assert.equal(response.statusCode, 201, response.body)
  }
  return caller
}

async function map(caller: Caller, connectionId: string, body: Record<string, unknown>) {
  const response = await ctx.request('POST', `/v1/pos/connections/${connectionId}/mappings`, { key: caller.key, body })
  assert.equal(response.statusCode, 201, response.body)
}

let lineNumber = 0

/** Imports lines of one POS item sold now (after every count and starting stock the test made), each at its own location. */
async function sell(caller: Caller, connectionId: string, posItemId: string, lines: { location: string; quantity: number }[]) {
  // Sold after the counts the test just made, never in the same millisecond.
  await new Promise((resolve) => setTimeout(resolve, 5))
  const sales = lines.map((line) => ({ ...line, pos_item_id: posItemId, name: posItemId, unit_price: 9, sold_at: new Date().toISOString(), line_id: `L${++lineNumber}` }))
  const response = await ctx.request('POST', '/v1/sales', { key: caller.key, body: { connection_id: connectionId, sales } })
  assert.equal(response.statusCode, 201, response.body)
  assert.equal(json(response).data.unmapped, 0)
}

/** Two counts of an item at its location (an hour ago and now, at its current stock), so the variance report measures it. */
async function countTwice(caller: Caller, item: { id: string; quantity: number }, location: string) {
  await count(ctx, caller, [{ item_id: item.id, quantity: item.quantity }], new Date(Date.now() - 3_600_000).toISOString(), location)
  await count(ctx, caller, [{ item_id: item.id, quantity: item.quantity }], undefined, location)
}

async function crossLocationLines(caller: Caller, query: Record<string, string> = {}): Promise<number> {
  const response = await ctx.request('GET', '/v1/analytics/variance', {
    key: caller.key,
    query: { date_from: dateOf(daysAgo(2)), date_to: dateOf(new Date().toISOString()), ...query },
  })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).data.data_quality.cross_location_lines
}

async function latestMovement(caller: Caller, itemId: string) {
  const response = await ctx.request('GET', `/v1/inventory/items/${itemId}/movements`, { key: caller.key, query: { per_page: '1' } })
  return json(response).data[0] as { kind: string; change: number; location: string }
}

describe('sales deplete the venue that sold', () => {
  test('a line sold where the SKU is stocked takes that item; one sold where it is not takes the mapped item, and the report counts it', async () => {
    const caller = await groupCaller()
    const main = await createItem(ctx, caller, TITO)
    const barB = await createItem(ctx, caller, { ...TITO, location: 'bar_b' })
    const connection = await createConnection(ctx, caller)
    await map(caller, connection.id, { pos_item_id: 'TITO-BTL', inventory_item_id: main.id, conversion_factor: 1, conversion_unit: 'bottle' })
    await countTwice(caller, main, 'main_bar')
    await countTwice(caller, barB, 'bar_b')

    await sell(caller, connection.id, 'TITO-BTL', [{ location: 'bar_b', quantity: 2 }])
    assert.equal(await itemQuantity(ctx, caller, barB.id), 8)
    assert.equal(await itemQuantity(ctx, caller, main.id), 10)
    const movement = await latestMovement(caller, barB.id)
    assert.deepEqual([movement.kind, movement.change, movement.location], ['sale', -2, 'bar_b'])
    assert.equal(await crossLocationLines(caller), 0)

    await sell(caller, connection.id, 'TITO-BTL', [{ location: 'bar_c', quantity: 1 }])
    assert.equal(await itemQuantity(ctx, caller, main.id), 9)
    assert.equal(await itemQuantity(ctx, caller, barB.id), 8)
    assert.equal(await crossLocationLines(caller), 1)
    // The line took main_bar's stock: main_bar's report counts it, bar_b's does not.
    assert.equal(await crossLocationLines(caller, { location: 'main_bar' }), 1)
    assert.equal(await crossLocationLines(caller, { location: 'bar_b' }), 0)
  })

  test('a recipe naming one location’s item, sold at another that stocks the SKU, takes the item there', async () => {
    const caller = await groupCaller()
    const main = await createItem(ctx, caller, TITO)
    const barB = await createItem(ctx, caller, { ...TITO, location: 'bar_b' })
    const recipe = await ctx.request('POST', '/v1/recipes', {
      key: caller.key,
      body: { name: 'Vodka carafe', category: 'cocktail', selling_price: 30, ingredients: [{ inventory_item_id: main.id, quantity: 0.5, unit: 'bottle' }] },
    })
    assert.equal(recipe.statusCode, 201, recipe.body)
    const connection = await createConnection(ctx, caller)
    await map(caller, connection.id, { pos_item_id: 'CARAFE', recipe_id: json(recipe).data.id })
    await sell(caller, connection.id, 'CARAFE', [{ location: 'bar_b', quantity: 2 }])
    assert.equal(await itemQuantity(ctx, caller, barB.id), 9)
    assert.equal(await itemQuantity(ctx, caller, main.id), 10)
  })

  test('a storeroom keeping the SKU by the case is depleted in cases', async () => {
    const caller = await groupCaller()
    const main = await createItem(ctx, caller, TITO)
    const cases = await createItem(ctx, caller, { ...TITO, unit: 'case', case_size: 12, location: 'bar_c', quantity: 2 })
    const connection = await createConnection(ctx, caller)
    await map(caller, connection.id, { pos_item_id: 'TITO-BTL', inventory_item_id: main.id, conversion_factor: 1, conversion_unit: 'bottle' })
    await sell(caller, connection.id, 'TITO-BTL', [{ location: 'bar_c', quantity: 6 }])
    assert.equal(await itemQuantity(ctx, caller, cases.id), 1.5)
    assert.equal(await itemQuantity(ctx, caller, main.id), 10)
  })

  test('a changed mapping restates each line by the same rule: a location that stocks the SKU since takes its lines', async () => {
    const caller = await groupCaller()
    const main = await createItem(ctx, caller, TITO)
    const barB = await createItem(ctx, caller, { ...TITO, location: 'bar_b' })
    const connection = await createConnection(ctx, caller)
    await map(caller, connection.id, { pos_item_id: 'TITO-BTL', inventory_item_id: main.id, conversion_factor: 1, conversion_unit: 'bottle' })
    await sell(caller, connection.id, 'TITO-BTL', [
      { location: 'bar_b', quantity: 1 },
      { location: 'bar_c', quantity: 1 },
    ])
    assert.deepEqual([await itemQuantity(ctx, caller, main.id), await itemQuantity(ctx, caller, barB.id)], [9, 9])
    // bar_c stocks the SKU from now on: its line, sold before, is history there (it never takes that stock).
    const barC = await createItem(ctx, caller, { ...TITO, location: 'bar_c', quantity: 5 })
    const updated = await ctx.request('PUT', `/v1/pos/connections/${connection.id}/mappings/TITO-BTL`, { key: caller.key, body: { conversion_factor: 2 } })
    assert.equal(updated.statusCode, 200, updated.body)
    assert.equal(await itemQuantity(ctx, caller, barB.id), 8)
    assert.equal(await itemQuantity(ctx, caller, main.id), 10)
    assert.equal(await itemQuantity(ctx, caller, barC.id), 5)
  })

  test('auto-map proposes the item at the connection’s location and shows each proposal’s location', async () => {
    const caller = await groupCaller()
    const titos = { name: "Tito's Handmade Vodka 1L", sku: 'TITO-1L', size_ml: 1000 }
    await createItem(ctx, caller, titos)
    const titosAtB = await createItem(ctx, caller, { ...titos, location: 'bar_b' })
    const patron = await createItem(ctx, caller, { name: 'Patron Reposado Tequila 750ml', sku: 'PATRON-REP', size_ml: 750 })
    const connection = await createConnection(ctx, caller, { location: 'bar_b' })
    const imported = await ctx.request('POST', '/v1/sales', {
      key: caller.key,
      body: {
        connection_id: connection.id,
        sales: [
          { location: 'bar_b', pos_item_id: 'TITO-SHOT', name: "Tito's Vodka 1.5oz", quantity: 1, unit_price: 8, sold_at: new Date().toISOString() },
          { location: 'bar_b', pos_item_id: 'PATRON-SILVER', name: 'Patron Silver Tequila 1.5oz', quantity: 1, unit_price: 9, sold_at: new Date().toISOString() },
        ],
      },
    })
    assert.equal(imported.statusCode, 201, imported.body)
    const response = await ctx.request('POST', `/v1/pos/connections/${connection.id}/auto-map`, { key: caller.key, body: {} })
    assert.equal(response.statusCode, 200, response.body)
    const result = json(response).data
    assert.deepEqual(
      result.mapped.map((entry: { pos_item_id: string; inventory_item_id: string; location: string }) => [entry.pos_item_id, entry.inventory_item_id, entry.location]),
      [['TITO-SHOT', titosAtB.id, 'bar_b']],
    )
    assert.deepEqual(
      result.review.map((entry: { pos_item_id: string; inventory_item_id: string; location: string }) => [entry.pos_item_id, entry.inventory_item_id, entry.location]),
      [['PATRON-SILVER', patron.id, 'main_bar']],
    )
    const unmapped = json(await ctx.request('GET', `/v1/pos/connections/${connection.id}/mappings`, { key: caller.key, query: { mapped: 'false' } })).data
    assert.deepEqual(
      unmapped.map((entry: { suggestion: { inventory_item_id: string; location: string; inventory_name: string } }) => entry.suggestion),
      [{ ...unmapped[0].suggestion, inventory_item_id: patron.id, location: 'main_bar', inventory_name: 'Patron Reposado Tequila 750ml' }],
    )
  })
})
