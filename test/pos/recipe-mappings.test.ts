import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createConnection, createPosTestContext, itemQuantity } from './pos-helpers.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

/**
 * A bar with a House Kamikaze: 2 oz of a 750 ml vodka bottle, 1 oz of a 1 L triple sec bottle and 0.75 oz
 * of lime juice kept in liters. 1 oz = 29.5735 ml, so a serving takes 0.0788626667 vodka bottle,
 * 0.0295735 triple sec bottle and 0.022180125 liter of juice.
 */
async function kamikazeBar() {
  const caller = await ctx.newCaller({ environment: 'sandbox' })
  const connection = await createConnection(ctx, caller)
  const vodka = await createItem(ctx, caller, { name: 'Absolut Vodka 750ml', quantity: 10 })
  const tripleSec = await createItem(ctx, caller, { name: 'Cointreau 1L', category: 'liqueur', size_ml: 1000, quantity: 5 })
  const lime = await createItem(ctx, caller, { name: 'Fresh lime juice', category: 'mixer', unit: 'liter', size_ml: undefined, quantity: 2 })
  const response = await ctx.request('POST', '/v1/recipes', {
    key: caller.key,
    body: {
      name: 'House Kamikaze',
      category: 'cocktail',
      selling_price: 11,
      ingredients: [
        { inventory_item_id: vodka.id, quantity: 2, unit: 'oz' },
        { inventory_item_id: tripleSec.id, quantity: 1, unit: 'oz' },
        { inventory_item_id: lime.id, quantity: 0.75, unit: 'oz' },
      ],
    },
  })
  assert.equal(response.statusCode, 201, response.body)
  const recipe = json(response).data as { id: string }
  return { caller, connection, vodka, tripleSec, lime, recipe, itemIds: [vodka.id, tripleSec.id, lime.id] }
}

function sale(fields: Record<string, unknown> = {}) {
  return { location: 'main_bar', pos_item_id: 'K-1', name: 'Kamikaze', quantity: 1, unit_price: 11, sold_at: new Date().toISOString(), ...fields }
}

async function importSales(caller: Caller, connectionId: string, sales: unknown[]) {
  const response = await ctx.request('POST', '/v1/sales', { key: caller.key, body: { connection_id: connectionId, sales } })
  assert.equal(response.statusCode, 201, response.body)
  return json(response).data
}

function mapPosItem(caller: Caller, connectionId: string, body: Record<string, unknown>) {
  return ctx.request('POST', `/v1/pos/connections/${connectionId}/mappings`, { key: caller.key, body })
}

async function quantities(caller: Caller, itemIds: string[]) {
  return Promise.all(itemIds.map((id) => itemQuantity(ctx, caller, id)))
}

/** Each item's usage rows as [units, recipe_id, applied], oldest sale first. */
async function usageOf(itemId: string) {
  const rows = await ctx.database.db
    .selectFrom('stock_sale_usage')
    .select(['units', 'recipe_id', 'applied'])
    .where('item_id', '=', itemId)
    .orderBy('sold_at')
    .orderBy('sequence')
    .execute()
  return rows.map((row) => [row.units, row.recipe_id, row.applied])
}

async function mappingRows(connectionId: string) {
  return ctx.database.db.selectFrom('pos_mappings').selectAll().where('connection_id', '=', connectionId).execute()
}

describe('recipe mappings', () => {
  test('a POS item mapped to a recipe depletes every ingredient exactly, and its usage rows carry the recipe', async () => {
    const bar = await kamikazeBar()
    const created = await mapPosItem(bar.caller, bar.connection.id, { pos_item_id: 'K-1', pos_name: 'Kamikaze', recipe_id: bar.recipe.id })
    assert.equal(created.statusCode, 201, created.body)
    const mapping = json(created).data
    assert.equal(mapping.recipe_id, bar.recipe.id)
    assert.equal(mapping.inventory_item_id, null)
    assert.equal(mapping.inventory_name, 'House Kamikaze')
    assert.equal(mapping.conversion_factor, 1)
    assert.equal(mapping.conversion_unit, null)
    assert.equal(mapping.mapped, true)

    const result = await importSales(bar.caller, bar.connection.id, [sale({ quantity: 3 })])
    assert.equal(result.unmapped, 0)
    // 3 servings: 0.236588 vodka bottle, 0.0887205 triple sec bottle, 0.066540375 l of juice (ledger keeps 4 decimals).
    assert.deepEqual(await quantities(bar.caller, bar.itemIds), [9.7634, 4.9113, 1.9335])
    assert.deepEqual(await usageOf(bar.vodka.id), [['0.23658800', bar.recipe.id, true]])
    assert.deepEqual(await usageOf(bar.tripleSec.id), [['0.08872050', bar.recipe.id, true]])
    assert.deepEqual(await usageOf(bar.lime.id), [['0.06654038', bar.recipe.id, true]])

    const listed = json(await ctx.request('GET', `/v1/pos/connections/${bar.connection.id}/mappings`, { key: bar.caller.key })).data
    assert.deepEqual(
      listed.map((entry: any) => [entry.pos_item_id, entry.mapped, entry.recipe_id, entry.inventory_item_id, entry.inventory_name, entry.conversion_unit]),
      [['K-1', true, bar.recipe.id, null, 'House Kamikaze', null]],
    )
  })

  test('a recipe mapping added after the sales applies those sold after the items’ starting stock, once; its factor counts servings', async () => {
    const bar = await kamikazeBar()
    const imported = await importSales(bar.caller, bar.connection.id, [
      sale({ pos_item_id: 'K-2', name: 'Kamikaze double', sold_at: '2026-11-01T21:00:00.000Z' }),
      sale({ pos_item_id: 'K-2', name: 'Kamikaze double', quantity: 1 }),
      sale({ pos_item_id: 'K-2', name: 'Kamikaze double', quantity: 2 }),
    ])
    assert.equal(imported.unmapped, 3)
    assert.deepEqual(await quantities(bar.caller, bar.itemIds), [10, 5, 2])

    const map = () => mapPosItem(bar.caller, bar.connection.id, { pos_item_id: 'K-2', recipe_id: bar.recipe.id, conversion_factor: 2 })
    const created = await map()
    assert.equal(created.statusCode, 201, created.body)
    assert.equal(json(created).data.conversion_factor, 2)
    // 3 POS units sold after the items were stocked × 2 servings = 6 servings; the one sold on Nov 1 is history.
    assert.deepEqual(await quantities(bar.caller, bar.itemIds), [9.5268, 4.8226, 1.8669])
    assert.deepEqual(await usageOf(bar.vodka.id), [
      ['0.15772533', bar.recipe.id, false],
      ['0.15772533', bar.recipe.id, true],
      ['0.31545067', bar.recipe.id, true],
    ])

    assert.equal((await ctx.request('DELETE', `/v1/pos/connections/${bar.connection.id}/mappings/K-2`, { key: bar.caller.key })).statusCode, 200)
    assert.equal((await map()).statusCode, 201)
    assert.deepEqual(await quantities(bar.caller, bar.itemIds), [9.5268, 4.8226, 1.8669])
    assert.equal((await usageOf(bar.lime.id)).length, 3)
  })

  test('PUT changes a recipe mapping’s servings and refuses a conversion_unit', async () => {
    const bar = await kamikazeBar()
    await mapPosItem(bar.caller, bar.connection.id, { pos_item_id: 'K-1', recipe_id: bar.recipe.id })
    const url = `/v1/pos/connections/${bar.connection.id}/mappings/K-1`
    const updated = await ctx.request('PUT', url, { key: bar.caller.key, body: { conversion_factor: 1.5 } })
    assert.equal(updated.statusCode, 200, updated.body)
    const { pos_item_id, inventory_item_id, recipe_id, conversion_factor, conversion_unit, usage_per_sale, warnings } = json(updated).data
    assert.deepEqual(
      { pos_item_id, inventory_item_id, recipe_id, conversion_factor, conversion_unit, warnings },
      {
        pos_item_id: 'K-1',
        inventory_item_id: null,
        recipe_id: bar.recipe.id,
        conversion_factor: 1.5,
        conversion_unit: null,
        warnings: [],
      },
    )
    // 1.5 servings per POS unit, per ingredient in its item's unit: 3 oz of a 750 ml bottle, 1.5 oz of a 1 L bottle, 1.125 oz in liters.
    assert.deepEqual(
      usage_per_sale.map((usage: { inventory_item_id: string; units: number; unit: string }) => [usage.inventory_item_id, usage.units, usage.unit]),
      [
        [bar.vodka.id, 0.118294, 'bottle'],
        [bar.tripleSec.id, 0.04436, 'bottle'],
        [bar.lime.id, 0.03327, 'liter'],
      ],
    )
    const refused = await ctx.request('PUT', url, { key: bar.caller.key, body: { conversion_factor: 2, conversion_unit: 'oz' } })
    assert.equal(refused.statusCode, 400)
    assert.equal(json(refused).error.code, 'invalid_parameter')
    assert.equal(json(refused).error.details.parameter, 'conversion_unit')
    assert.equal((await mappingRows(bar.connection.id))[0]?.conversion_factor, '1.5000')
  })

  test('an item mapping still answers recipe_id null and needs its conversion_factor', async () => {
    const bar = await kamikazeBar()
    const missing = await mapPosItem(bar.caller, bar.connection.id, { pos_item_id: 'V-1', inventory_item_id: bar.vodka.id })
    assert.equal(missing.statusCode, 400)
    assert.equal(json(missing).error.code, 'invalid_parameter')
    assert.equal(json(missing).error.details.parameter, 'conversion_factor')
    const created = await mapPosItem(bar.caller, bar.connection.id, { pos_item_id: 'V-1', inventory_item_id: bar.vodka.id, conversion_factor: 1.5 })
    assert.equal(created.statusCode, 201)
    assert.equal(json(created).data.recipe_id, null)
    assert.equal(json(created).data.inventory_name, 'Absolut Vodka 750ml')
    const updated = json(await ctx.request('PUT', `/v1/pos/connections/${bar.connection.id}/mappings/V-1`, { key: bar.caller.key, body: { conversion_factor: 2 } })).data
    assert.equal(updated.recipe_id, null)
    assert.equal(updated.conversion_unit, 'oz')
  })

  describe('refuses and changes nothing', () => {
    async function assertNothingChanged(bar: Awaited<ReturnType<typeof kamikazeBar>>) {
      assert.equal((await mappingRows(bar.connection.id)).length, 0)
      const listed = json(await ctx.request('GET', `/v1/pos/connections/${bar.connection.id}/mappings`, { key: bar.caller.key })).data
      assert.deepEqual(
        listed.map((entry: any) => [entry.pos_item_id, entry.mapped]),
        [['K-1', false]],
      )
      assert.deepEqual(await quantities(bar.caller, bar.itemIds), [10, 5, 2])
      assert.deepEqual(await usageOf(bar.vodka.id), [])
    }

    async function barWithSales() {
      const bar = await kamikazeBar()
      await importSales(bar.caller, bar.connection.id, [sale({ quantity: 2 })])
      return bar
    }

    test('both inventory_item_id and recipe_id: invalid_parameter naming both', async () => {
      const bar = await barWithSales()
      const response = await mapPosItem(bar.caller, bar.connection.id, { pos_item_id: 'K-1', recipe_id: bar.recipe.id, inventory_item_id: bar.vodka.id, conversion_factor: 1 })
      assert.equal(response.statusCode, 400)
      const error = json(response).error
      assert.equal(error.code, 'invalid_parameter')
      assert.equal(error.details.parameter, 'recipe_id')
      assert.deepEqual(error.details.fields, ['inventory_item_id', 'recipe_id'])
      assert.match(error.message, /exactly one of inventory_item_id and recipe_id; got both/)
      await assertNothingChanged(bar)
    })

    test('neither: invalid_parameter naming both', async () => {
      const bar = await barWithSales()
      const response = await mapPosItem(bar.caller, bar.connection.id, { pos_item_id: 'K-1', conversion_factor: 1 })
      assert.equal(response.statusCode, 400)
      const error = json(response).error
      assert.equal(error.code, 'invalid_parameter')
      assert.equal(error.details.parameter, 'inventory_item_id')
      assert.deepEqual(error.details.fields, ['inventory_item_id', 'recipe_id'])
      await assertNothingChanged(bar)
    })

    test('an unknown, deleted or other account’s recipe: 404 recipe_not_found', async () => {
      const bar = await barWithSales()
      const unknown = await mapPosItem(bar.caller, bar.connection.id, { pos_item_id: 'K-1', recipe_id: 'rcp_missing' })
      assert.equal(unknown.statusCode, 404)
      assert.equal(json(unknown).error.code, 'recipe_not_found')
      const other = await kamikazeBar()
      const foreign = await mapPosItem(bar.caller, bar.connection.id, { pos_item_id: 'K-1', recipe_id: other.recipe.id })
      assert.equal(foreign.statusCode, 404)
      assert.equal(json(foreign).error.code, 'recipe_not_found')
      await ctx.request('DELETE', `/v1/recipes/${bar.recipe.id}`, { key: bar.caller.key })
      const deleted = await mapPosItem(bar.caller, bar.connection.id, { pos_item_id: 'K-1', recipe_id: bar.recipe.id })
      assert.equal(deleted.statusCode, 404)
      assert.equal(json(deleted).error.code, 'recipe_not_found')
      await assertNothingChanged(bar)
    })

    test('a conversion_unit on a recipe mapping: invalid_parameter', async () => {
      const bar = await barWithSales()
      const response = await mapPosItem(bar.caller, bar.connection.id, { pos_item_id: 'K-1', recipe_id: bar.recipe.id, conversion_unit: 'oz' })
      assert.equal(response.statusCode, 400)
      assert.equal(json(response).error.details.parameter, 'conversion_unit')
      await assertNothingChanged(bar)
    })
  })

  test('a deleted recipe keeps its name on the mapping and depletes nothing more; its lines stay for a new mapping', async () => {
    const bar = await kamikazeBar()
    await mapPosItem(bar.caller, bar.connection.id, { pos_item_id: 'K-1', recipe_id: bar.recipe.id })
    await ctx.request('DELETE', `/v1/recipes/${bar.recipe.id}`, { key: bar.caller.key })
    const result = await importSales(bar.caller, bar.connection.id, [sale({ quantity: 2 })])
    assert.equal(result.unmapped, 1)
    assert.deepEqual(await quantities(bar.caller, bar.itemIds), [10, 5, 2])
    const listed = json(await ctx.request('GET', `/v1/pos/connections/${bar.connection.id}/mappings`, { key: bar.caller.key })).data
    assert.equal(listed[0].inventory_name, 'House Kamikaze')
    await ctx.request('DELETE', `/v1/pos/connections/${bar.connection.id}/mappings/K-1`, { key: bar.caller.key })
    await mapPosItem(bar.caller, bar.connection.id, { pos_item_id: 'K-1', inventory_item_id: bar.vodka.id, conversion_factor: 2 })
    // 2 × 2 oz of a 750 ml bottle = 0.1577 bottle.
    assert.deepEqual(await quantities(bar.caller, bar.itemIds), [9.8423, 5, 2])
  })
})
