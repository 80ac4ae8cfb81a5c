import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { ingredientsPerServing, getRecipe, listRecipesForCosting } from '../../src/recipes/recipes.service.js'
import { createTestContext, json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

/** A caller with a 750 ml vodka bottle, a lime counted each, and a syrup bottle without size_ml. */
async function bar() {
  const caller = await ctx.newCaller()
  const vodka = await createItem(ctx, caller, { name: 'Vodka 750ml' })
  const lime = await createItem(ctx, caller, { name: 'Lime', category: 'food', unit: 'each', size_ml: undefined, cost_per_unit: 0.3 })
  const syrup = await createItem(ctx, caller, { name: 'Simple syrup', category: 'mixer', size_ml: undefined })
  return { caller, vodka, lime, syrup }
}

function recipeBody(vodkaId: string, limeId: string, fields: Record<string, unknown> = {}) {
  return {
    name: 'Vodka gimlet',
    category: 'cocktail',
    selling_price: 12.5,
    ingredients: [
      { inventory_item_id: vodkaId, quantity: 1.5, unit: 'oz' },
      { inventory_item_id: limeId, quantity: 2, unit: 'each' },
    ],
    ...fields,
  }
}

async function createRecipe(caller: Caller, body: object) {
  const response = await ctx.request('POST', '/v1/recipes', { key: caller.key, body })
  assert.equal(response.statusCode, 201, response.body)
  return json(response).data
}

async function listAll(caller: Caller) {
  return json(await ctx.request('GET', '/v1/recipes', { key: caller.key }))
}

describe('/v1/recipes', () => {
  test('a recipe is created, read, updated, listed and deleted', async () => {
    const { caller, vodka, lime } = await bar()
    const created = await createRecipe(caller, recipeBody(vodka.id, lime.id))
    assert.match(created.id, /^rcp_[0-9a-z]{26}$/)
    assert.equal(created.name, 'Vodka gimlet')
    assert.equal(created.category, 'cocktail')
    assert.equal(created.selling_price, 12.5)
    assert.deepEqual(created.ingredients, [
      { inventory_item_id: vodka.id, name: 'Vodka 750ml', quantity: 1.5, unit: 'oz' },
      { inventory_item_id: lime.id, name: 'Lime', quantity: 2, unit: 'each' },
    ])
    assert.ok(!Number.isNaN(Date.parse(created.created_at)) && !Number.isNaN(Date.parse(created.updated_at)))
    assert.deepEqual(json(await ctx.request('GET', `/v1/recipes/${created.id}`, { key: caller.key })).data, created)

    const renamed = await ctx.request('PUT', `/v1/recipes/${created.id}`, {
      key: caller.key,
      body: { name: 'Gimlet', selling_price: 13 },
    })
    assert.equal(renamed.statusCode, 200)
    assert.equal(json(renamed).data.name, 'Gimlet')
    assert.equal(json(renamed).data.selling_price, 13)
    assert.deepEqual(json(renamed).data.ingredients, created.ingredients, 'ingredients stay when not given')

    const replaced = json(
      await ctx.request('PUT', `/v1/recipes/${created.id}`, {
        key: caller.key,
        body: { category: 'shot', ingredients: [{ inventory_item_id: vodka.id, quantity: 44.3601, unit: 'ml' }] },
      }),
    ).data
    assert.equal(replaced.category, 'shot')
    assert.deepEqual(replaced.ingredients, [{ inventory_item_id: vodka.id, name: 'Vodka 750ml', quantity: 44.3601, unit: 'ml' }])
    assert.equal(replaced.created_at, created.created_at)
    assert.ok(replaced.updated_at >= created.updated_at)
    assert.deepEqual(json(await ctx.request('GET', `/v1/recipes/${created.id}`, { key: caller.key })).data, replaced)

    const deleted = await ctx.request('DELETE', `/v1/recipes/${created.id}`, { key: caller.key })
    assert.equal(deleted.statusCode, 200)
    assert.deepEqual(json(deleted).data, { id: created.id, deleted: true })
    assert.equal((await listAll(caller)).pagination.total, 0)
  })

  test('lists by name with page/per_page and a category filter', async () => {
    const { caller, vodka, lime } = await bar()
    for (const [name, category] of [
      ['Cosmopolitan', 'cocktail'],
      ['Vodka shot', 'shot'],
      ['Apple martini', 'cocktail'],
      ['Vodka soda', 'highball'],
      ['Bloody Mary', 'cocktail'],
    ]) {
      await createRecipe(caller, recipeBody(vodka.id, lime.id, { name, category }))
    }
    const first = json(await ctx.request('GET', '/v1/recipes', { key: caller.key, query: { per_page: '2' } }))
    assert.deepEqual(
      first.data.map((recipe: { name: string }) => recipe.name),
      ['Apple martini', 'Bloody Mary'],
    )
    assert.equal(first.pagination.total, 5)
    assert.equal(first.pagination.total_pages, 3)
    assert.equal(first.pagination.next_page_url, '/v1/recipes?per_page=2&page=2')
    const third = json(await ctx.request('GET', '/v1/recipes', { key: caller.key, query: { per_page: '2', page: '3' } }))
    assert.deepEqual(
      third.data.map((recipe: { name: string }) => recipe.name),
      ['Vodka soda'],
    )
    assert.equal(third.data[0].ingredients.length, 2)

    const cocktails = json(await ctx.request('GET', '/v1/recipes', { key: caller.key, query: { category: 'cocktail', per_page: '2', page: '2' } }))
    assert.deepEqual(
      cocktails.data.map((recipe: { name: string }) => recipe.name),
      ['Cosmopolitan'],
    )
    assert.equal(cocktails.pagination.total, 3)
    assert.equal(cocktails.pagination.prev_page_url, '/v1/recipes?category=cocktail&per_page=2&page=1')

    for (const query of [{ per_page: '101' }, { page: '0' }, { category: 'Cocktail' }] as Record<string, string>[]) {
      const response = await ctx.request('GET', '/v1/recipes', { key: caller.key, query })
      assert.equal(response.statusCode, 400, JSON.stringify(query))
      assert.equal(json(response).error.code, 'invalid_parameter')
    }

    const forCosting = await listRecipesForCosting(ctx.database.db, caller.tenant, { category: 'cocktail' })
    assert.deepEqual(
      forCosting.map((recipe) => recipe.name),
      ['Apple martini', 'Bloody Mary', 'Cosmopolitan'],
    )
    const one = await listRecipesForCosting(ctx.database.db, caller.tenant, { recipeId: forCosting[1]!.id })
    assert.deepEqual(
      one.map((recipe) => recipe.name),
      ['Bloody Mary'],
    )
    assert.equal((await listRecipesForCosting(ctx.database.db, caller.tenant, {})).length, 5)
  })

  test('ingredientsPerServing converts each ingredient to its item’s unit', async () => {
    const { caller, vodka, lime } = await bar()
    const gimlet = await createRecipe(caller, recipeBody(vodka.id, lime.id))
    const shot = await createRecipe(caller, {
      name: 'Shot',
      category: 'shot',
      selling_price: 6,
      ingredients: [{ inventory_item_id: vodka.id, quantity: 1, unit: 'bottle' }],
    })
    const gone = await createRecipe(caller, recipeBody(vodka.id, lime.id, { name: 'Gone' }))
    await ctx.request('DELETE', `/v1/recipes/${gone.id}`, { key: caller.key })

    const perServing = await ingredientsPerServing(ctx.database.db, caller.tenant, [gimlet.id, shot.id, gone.id, 'rcp_unknown'])
    assert.deepEqual([...perServing.keys()].sort(), [gimlet.id, shot.id].sort())
    const [vodkaUse, limeUse] = perServing.get(gimlet.id)!
    assert.equal(vodkaUse!.itemId, vodka.id)
    assert.equal(vodkaUse!.unitsPerServing.toFixed(6), '0.059147')
    assert.equal(vodkaUse!.unitsPerServing.toString(), '0.059147')
    assert.equal(limeUse!.itemId, lime.id)
    assert.equal(limeUse!.unitsPerServing.toFixed(), '2')
    assert.equal(perServing.get(shot.id)![0]!.unitsPerServing.toFixed(), '1')
    assert.equal((await ingredientsPerServing(ctx.database.db, caller.tenant, [])).size, 0)

    // A change of the item's size applies to the recipe at once.
    await ctx.request('PUT', `/v1/inventory/items/${vodka.id}`, { key: caller.key, body: { size_ml: 1000 } })
    const resized = await ingredientsPerServing(ctx.database.db, caller.tenant, [gimlet.id])
    assert.equal(resized.get(gimlet.id)![0]!.unitsPerServing.toFixed(6), '0.044360')
  })

  test('rejects invalid recipes with the code that names the problem, and creates nothing', async () => {
    const { caller, vodka, lime, syrup } = await bar()
    const stranger = await ctx.newCaller()
    const foreignItem = await createItem(ctx, stranger)
    const ingredient = (fields: Record<string, unknown> = {}) => ({ inventory_item_id: vodka.id, quantity: 1.5, unit: 'oz', ...fields })
    const cases: [Record<string, unknown>, string, string][] = [
      [{ ingredients: [ingredient(), { inventory_item_id: syrup.id, quantity: 0.75, unit: 'oz' }] }, 'invalid_unit', 'ingredients[1].unit'],
      [{ ingredients: [ingredient({ unit: 'shot' })] }, 'invalid_unit', 'ingredients[0].unit'],
      [{ ingredients: [ingredient({ unit: 'g' })] }, 'invalid_unit', 'ingredients[0].unit'],
      [{ ingredients: [{ inventory_item_id: lime.id, quantity: 1, unit: 'ml' }] }, 'invalid_unit', 'ingredients[0].unit'],
      [{ ingredients: [ingredient(), ingredient({ inventory_item_id: 'item_nope' })] }, 'item_not_found', 'ingredients[1].inventory_item_id'],
      [{ ingredients: [ingredient({ inventory_item_id: foreignItem.id })] }, 'item_not_found', 'ingredients[0].inventory_item_id'],
      [{ ingredients: [ingredient(), ingredient({ quantity: 2 })] }, 'invalid_parameter', 'ingredients[1].inventory_item_id'],
      [{ ingredients: [ingredient({ quantity: 0 })] }, 'invalid_quantity', 'ingredients[0].quantity'],
      [{ ingredients: [ingredient({ quantity: -1 })] }, 'invalid_quantity', 'ingredients[0].quantity'],
      [{ ingredients: [ingredient({ quantity: 1.00001 })] }, 'invalid_quantity', 'ingredients[0].quantity'],
      [{ ingredients: [] }, 'invalid_parameter', 'ingredients'],
      [{ ingredients: Array.from({ length: 51 }, () => ingredient()) }, 'invalid_parameter', 'ingredients'],
      [{ ingredients: [ingredient({ extra: 1 })] }, 'invalid_parameter', 'ingredients[0].extra'],
      [{ selling_price: -1 }, 'invalid_parameter', 'selling_price'],
      [{ selling_price: 9.999 }, 'invalid_parameter', 'selling_price'],
      [{ category: 'Cocktail' }, 'invalid_parameter', 'category'],
      [{ category: '1st' }, 'invalid_parameter', 'category'],
      [{ category: 'a'.repeat(33) }, 'invalid_parameter', 'category'],
      [{ name: '' }, 'invalid_parameter', 'name'],
      [{ name: undefined }, 'invalid_parameter', 'name'],
    ]
    for (const [fields, code, parameter] of cases) {
      const body = recipeBody(vodka.id, lime.id, fields)
      const response = await ctx.request('POST', '/v1/recipes', { key: caller.key, body })
      const label = JSON.stringify(fields).slice(0, 200)
      assert.equal(json(response).error?.code, code, label)
      assert.equal(response.statusCode, code === 'item_not_found' ? 404 : 400, label)
      assert.equal(json(response).error.details.parameter, parameter, label)
    }
    assert.equal((await listAll(caller)).pagination.total, 0)

    // oz of a bottle without size_ml: the error says which ingredient, and what would convert.
    const noSize = await ctx.request('POST', '/v1/recipes', {
      key: caller.key,
      body: recipeBody(vodka.id, lime.id, { ingredients: [{ inventory_item_id: syrup.id, quantity: 0.75, unit: 'oz' }] }),
    })
    assert.equal(json(noSize).error.details.inventory_item_id, syrup.id)
    assert.deepEqual(json(noSize).error.details.allowed_units, ['bottle'])
  })

  test('a rejected update changes nothing', async () => {
    const { caller, vodka, lime, syrup } = await bar()
    const recipe = await createRecipe(caller, recipeBody(vodka.id, lime.id))
    for (const [body, code] of [
      [{ name: 'New', ingredients: [{ inventory_item_id: syrup.id, quantity: 1, unit: 'oz' }] }, 'invalid_unit'],
      [{ selling_price: 1, ingredients: [{ inventory_item_id: 'item_nope', quantity: 1, unit: 'oz' }] }, 'item_not_found'],
      [{ category: 'Bad Category' }, 'invalid_parameter'],
      [{}, 'invalid_parameter'],
    ] as const) {
      const response = await ctx.request('PUT', `/v1/recipes/${recipe.id}`, { key: caller.key, body })
      assert.equal(json(response).error.code, code, JSON.stringify(body))
    }
    assert.deepEqual(json(await ctx.request('GET', `/v1/recipes/${recipe.id}`, { key: caller.key })).data, recipe)
  })

  test('an unknown, deleted or foreign recipe is recipe_not_found on GET, PUT and DELETE', async () => {
    const { caller, vodka, lime } = await bar()
    const stranger = await ctx.newCaller()
    const deleted = await createRecipe(caller, recipeBody(vodka.id, lime.id))
    await ctx.request('DELETE', `/v1/recipes/${deleted.id}`, { key: caller.key })
    const owned = await createRecipe(caller, recipeBody(vodka.id, lime.id))
    for (const [key, id] of [
      [caller.key, 'rcp_01jd2x3v4w5y6z7a8b9c0d1e2f'],
      [caller.key, deleted.id],
      [stranger.key, owned.id],
    ] as const) {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const response = await ctx.request(method, `/v1/recipes/${id}`, { key, ...(method === 'PUT' ? { body: { name: 'x' } } : {}) })
        assert.equal(response.statusCode, 404, `${method} ${id}`)
        assert.equal(json(response).error.code, 'recipe_not_found')
      }
    }
    assert.equal((await listAll(stranger)).pagination.total, 0)
    await assert.rejects(getRecipe(ctx.database.db, stranger.tenant, owned.id), { code: 'recipe_not_found' })
    assert.equal((await ingredientsPerServing(ctx.database.db, stranger.tenant, [owned.id])).size, 0)
    assert.equal(json(await ctx.request('GET', `/v1/recipes/${owned.id}`, { key: caller.key })).data.name, 'Vodka gimlet')
  })

  test('reading needs inventory:read, writing inventory:write', async () => {
    const { caller, vodka, lime } = await bar()
    const recipe = await createRecipe(caller, recipeBody(vodka.id, lime.id))
    const reader = await ctx.keyFor(caller, ['inventory:read'])
    const writer = await ctx.keyFor(caller, ['inventory:write'])
    assert.equal((await ctx.request('GET', '/v1/recipes', { key: reader })).statusCode, 200)
    assert.equal((await ctx.request('GET', `/v1/recipes/${recipe.id}`, { key: reader })).statusCode, 200)
    for (const [method, url, body] of [
      ['POST', '/v1/recipes', recipeBody(vodka.id, lime.id)],
      ['PUT', `/v1/recipes/${recipe.id}`, { name: 'x' }],
      ['DELETE', `/v1/recipes/${recipe.id}`, undefined],
    ] as const) {
      const response = await ctx.request(method, url, { key: reader, body })
      assert.equal(response.statusCode, 403, method)
      assert.equal(json(response).error.code, 'insufficient_permissions')
    }
    assert.equal((await ctx.request('GET', '/v1/recipes', { key: writer })).statusCode, 403)
    assert.deepEqual(json(await ctx.request('GET', `/v1/recipes/${recipe.id}`, { key: caller.key })).data, recipe)
  })

  test('a recipe keeps naming an ingredient whose item was deleted; depletion leaves it out', async () => {
    const { caller, vodka, lime } = await bar()
    const recipe = await createRecipe(caller, recipeBody(vodka.id, lime.id))
    await ctx.request('DELETE', `/v1/inventory/items/${lime.id}`, { key: caller.key })
    const read = json(await ctx.request('GET', `/v1/recipes/${recipe.id}`, { key: caller.key })).data
    assert.deepEqual(read.ingredients, recipe.ingredients)
    const perServing = await ingredientsPerServing(ctx.database.db, caller.tenant, [recipe.id])
    assert.deepEqual(
      perServing.get(recipe.id)!.map((entry) => entry.itemId),
      [vodka.id],
    )
    const again = await ctx.request('POST', '/v1/recipes', { key: caller.key, body: recipeBody(vodka.id, lime.id) })
    assert.equal(json(again).error.code, 'item_not_found')
  })

  test('a POST with an idempotency key creates one recipe', async () => {
    const { caller, vodka, lime } = await bar()
    const headers = { 'x-idempotency-key': 'recipe-1' }
    const first = await ctx.request('POST', '/v1/recipes', { key: caller.key, headers, body: recipeBody(vodka.id, lime.id) })
    const replay = await ctx.request('POST', '/v1/recipes', { key: caller.key, headers, body: recipeBody(vodka.id, lime.id) })
    assert.equal(replay.statusCode, 201)
    assert.equal(replay.headers['idempotent-replayed'], 'true')
    assert.equal(json(replay).data.id, json(first).data.id)
    assert.equal((await listAll(caller)).pagination.total, 1)
  })
})
