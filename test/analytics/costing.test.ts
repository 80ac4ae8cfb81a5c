import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestContext, json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createDistributor, createOrder, ok, shipOrder } from '../ordering/fixtures.js'

let ctx: TestContext
before(async () => {
  ctx = await createTestContext()
})
after(() => ctx.close())

async function createRecipe(caller: Caller, body: Record<string, unknown>) {
  const response = await ctx.request('POST', '/v1/recipes', { key: caller.key, body })
  assert.equal(response.statusCode, 201, response.body)
  return json(response).data as { id: string }
}

async function costing(caller: Caller, query: Record<string, string> = {}, key = caller.key) {
  return ctx.request('GET', '/v1/analytics/costing', { key, query })
}

async function costingData(caller: Caller, query: Record<string, string> = {}) {
  const response = await costing(caller, query)
  assert.equal(response.statusCode, 200, response.body)
  return json(response)
}

/**
 * A bar whose House Kamikaze (price $11) takes 2 oz of Grey Goose (750 ml, $30), 1 oz of Cointreau (1 L,
 * delivered at $32, now $36) and 0.75 oz of fresh lime juice ($8 a liter). 1 oz = 29.5735 ml.
 */
async function bar() {
  const caller = await ctx.newCaller()
  const greyGoose = await createItem(ctx, caller, { name: 'Grey Goose Vodka 750ml', cost_per_unit: 30 })
  const absolut = await createItem(ctx, caller, { name: 'Absolut Vodka 1L', size_ml: 1000, cost_per_unit: 22 })
  const cointreau = await createItem(ctx, caller, { name: 'Cointreau 1L', category: 'liqueur', size_ml: 1000, cost_per_unit: 32 })
  // Cheaper than Cointreau by 8.33 % only: under the 10 % threshold.
  await createItem(ctx, caller, { name: 'Grand Marnier 1L', category: 'liqueur', size_ml: 1000, cost_per_unit: 33 })
  // Counted each: 1 oz cannot come from it.
  await createItem(ctx, caller, { name: 'Triple sec miniature', category: 'liqueur', unit: 'each', size_ml: undefined, cost_per_unit: 0.5 })
  // No cost known: never suggested.
  await createItem(ctx, caller, { name: 'Well triple sec 1L', category: 'liqueur', size_ml: 1000, cost_per_unit: 0 })
  const lime = await createItem(ctx, caller, { name: 'Fresh lime juice', category: 'mixer', unit: 'liter', size_ml: undefined, cost_per_unit: 8 })
  await createItem(ctx, caller, { name: 'Bottled lime juice', category: 'mixer', unit: 'liter', size_ml: undefined, cost_per_unit: 6 })

  // Cointreau is received at $32 a bottle, then its cost goes up to $36.
  const distributor = await createDistributor(ctx, caller)
  const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: cointreau.id, quantity: 2, unit: 'bottle' }])
  await shipOrder(ctx, caller, order.id)
  await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/receive`, { received_by: 'Sam', items: [{ inventory_item_id: cointreau.id, quantity_received: 2 }] })
  await ok(ctx, caller, 'PUT', `/v1/inventory/items/${cointreau.id}`, { cost_per_unit: 36 })
  const delivery = await ctx.database.db
    .selectFrom('stock_movements')
    .select('occurred_at')
    .where('item_id', '=', cointreau.id)
    .where('kind', '=', 'delivery')
    .executeTakeFirstOrThrow()

  const kamikaze = await createRecipe(caller, {
    name: 'House Kamikaze',
    category: 'cocktail',
    selling_price: 11,
    ingredients: [
      { inventory_item_id: greyGoose.id, quantity: 2, unit: 'oz' },
      { inventory_item_id: cointreau.id, quantity: 1, unit: 'oz' },
      { inventory_item_id: lime.id, quantity: 0.75, unit: 'oz' },
    ],
  })
  const shot = await createRecipe(caller, {
    name: 'Absolut Shot',
    category: 'shot',
    selling_price: 6,
    ingredients: [{ inventory_item_id: absolut.id, quantity: 1.5, unit: 'oz' }],
  })
  const soda = await createRecipe(caller, {
    name: 'Zero-proof lime soda',
    category: 'mocktail',
    selling_price: 0,
    ingredients: [{ inventory_item_id: lime.id, quantity: 1, unit: 'oz' }],
  })
  return {
    caller,
    items: { greyGoose, absolut, cointreau, lime },
    recipes: { kamikaze, shot, soda },
    deliveredOn: delivery.occurred_at.toISOString().slice(0, 10),
  }
}

type Bar = Awaited<ReturnType<typeof bar>>

function kamikazeCosting(b: Bar, money = (amount: string) => `$${amount}`, target = { percent: '20', price: '18.04' }) {
  return {
    recipe_id: b.recipes.kamikaze.id,
    name: 'House Kamikaze',
    category: 'cocktail',
    selling_price: 11,
    // 59.147 ml / 750 ml × $30 = 2.36588; 29.5735 ml / 1000 ml × $36 = 1.064646; 22.180125 ml / 1000 ml × $8 = 0.177441.
    total_cost: 3.61,
    // 3.607967 / 11 × 100 = 32.7997
    pour_cost_percentage: 32.8,
    gross_margin: 7.39,
    ingredients: [
      { inventory_item_id: b.items.greyGoose.id, name: 'Grey Goose Vodka 750ml', quantity: 2, unit: 'oz', cost: 2.37 },
      { inventory_item_id: b.items.cointreau.id, name: 'Cointreau 1L', quantity: 1, unit: 'oz', cost: 1.06 },
      { inventory_item_id: b.items.lime.id, name: 'Fresh lime juice', quantity: 0.75, unit: 'oz', cost: 0.18 },
    ],
    optimization_suggestions: [
      // 3.607967 / 20 % = 18.039835, rounded up to the cent so the target is met.
      `Raise the price to ${money(target.price)} to reach the ${target.percent}% pour-cost target (now 32.8% at ${money('11.00')}).`,
      // 59.147 ml / 1000 ml × $22 = 1.301234: saves 1.064646, 45 % of 2.36588.
      `Replace Grey Goose Vodka 750ml with Absolut Vodka 1L (also spirits): 2 oz would cost ${money('1.30')} instead of ${money('2.37')}, saving ${money('1.06')} a serving (45% of this ingredient's cost).`,
      // (36 − 32) × 0.0295735 bottle = 0.118294.
      `Cointreau 1L now costs ${money('36.00')} a bottle, up 12.5% from ${money('32.00')} at its last delivery on ${b.deliveredOn}: ${money('0.12')} more a serving; check the distributor's price or look for another supplier.`,
      // 0.022180125 l × $6 = 0.13308075: saves 0.04436025, 25 % of 0.177441.
      `Replace Fresh lime juice with Bottled lime juice (also mixer): 0.75 oz would cost ${money('0.13')} instead of ${money('0.18')}, saving ${money('0.04')} a serving (25% of this ingredient's cost).`,
    ],
  }
}

describe('GET /v1/analytics/costing', () => {
  test('costs every recipe by name with the formulas and suggestion rules', async () => {
    const b = await bar()
    const body = await costingData(b.caller)
    assert.deepEqual(body.pagination, { total: 3, page: 1, per_page: 50, total_pages: 1, next_page_url: null, prev_page_url: null })
    const [shot, kamikaze, soda] = body.data
    assert.deepEqual(
      body.data.map((recipe: { name: string }) => recipe.name),
      ['Absolut Shot', 'House Kamikaze', 'Zero-proof lime soda'],
    )
    assert.deepEqual(kamikaze, kamikazeCosting(b))
    // 44.36025 ml / 1000 ml × $22 = 0.9759255; 16.27 % is under the 20 % target and no spirit is cheaper by the oz.
    assert.deepEqual(shot, {
      recipe_id: b.recipes.shot.id,
      name: 'Absolut Shot',
      category: 'shot',
      selling_price: 6,
      total_cost: 0.98,
      pour_cost_percentage: 16.27,
      gross_margin: 5.02,
      ingredients: [{ inventory_item_id: b.items.absolut.id, name: 'Absolut Vodka 1L', quantity: 1.5, unit: 'oz', cost: 0.98 }],
      optimization_suggestions: [],
    })
    // A free serving: no pour cost (null), a negative margin, and the price that reaches the target (0.236588 / 20 % = 1.18294 → 1.19).
    assert.deepEqual(soda, {
      recipe_id: b.recipes.soda.id,
      name: 'Zero-proof lime soda',
      category: 'mocktail',
      selling_price: 0,
      total_cost: 0.24,
      pour_cost_percentage: null,
      gross_margin: -0.24,
      ingredients: [{ inventory_item_id: b.items.lime.id, name: 'Fresh lime juice', quantity: 1, unit: 'oz', cost: 0.24 }],
      optimization_suggestions: [
        'Set a selling price: a serving costs $0.24, and $1.19 reaches the 20% pour-cost target.',
        "Replace Fresh lime juice with Bottled lime juice (also mixer): 1 oz would cost $0.18 instead of $0.24, saving $0.06 a serving (25% of this ingredient's cost).",
      ],
    })
  })

  test('writes money in the account’s currency and uses its pour-cost target', async () => {
    const b = await bar()
    await ok(ctx, b.caller, 'PUT', '/v1/settings', { currency: 'EUR', targets: { pour_cost: 25 } })
    const body = await costingData(b.caller, { recipe_id: b.recipes.kamikaze.id })
    // 3.607967 / 25 % = 14.431868 → €14.44.
    assert.deepEqual(body.data, [kamikazeCosting(b, (amount) => `€${amount}`, { percent: '25', price: '14.44' })])
  })

  test('no price suggestion at or under the target; none for a cost back at its delivered level', async () => {
    const b = await bar()
    await ok(ctx, b.caller, 'PUT', `/v1/recipes/${b.recipes.kamikaze.id}`, { selling_price: 18.04 })
    await ok(ctx, b.caller, 'PUT', `/v1/inventory/items/${b.items.cointreau.id}`, { cost_per_unit: 32 })
    const [kamikaze] = (await costingData(b.caller, { recipe_id: b.recipes.kamikaze.id })).data
    // 2.36588 + 0.946352 + 0.177441 = 3.489673 over 18.04.
    assert.equal(kamikaze.total_cost, 3.49)
    assert.equal(kamikaze.pour_cost_percentage, 19.34)
    assert.equal(kamikaze.gross_margin, 14.55)
    assert.equal(kamikaze.optimization_suggestions.length, 2)
    assert.match(kamikaze.optimization_suggestions[0], /^Replace Grey Goose/)
    assert.match(kamikaze.optimization_suggestions[1], /^Replace Fresh lime juice/)
  })

  test('filters by recipe_id and by drink category, and pages', async () => {
    const b = await bar()
    const cocktails = await costingData(b.caller, { category: 'cocktail' })
    assert.deepEqual(
      cocktails.data.map((recipe: { name: string }) => recipe.name),
      ['House Kamikaze'],
    )
    const one = await costingData(b.caller, { recipe_id: b.recipes.shot.id })
    assert.deepEqual(
      one.data.map((recipe: { recipe_id: string }) => recipe.recipe_id),
      [b.recipes.shot.id],
    )
    assert.deepEqual((await costingData(b.caller, { recipe_id: b.recipes.shot.id, category: 'cocktail' })).data, [])
    assert.deepEqual((await costingData(b.caller, { category: 'tiki' })).data, [])
    const second = await costingData(b.caller, { per_page: '1', page: '2' })
    assert.deepEqual(
      second.data.map((recipe: { name: string }) => recipe.name),
      ['House Kamikaze'],
    )
    assert.equal(second.pagination.total, 3)
    assert.equal(second.pagination.next_page_url, '/v1/analytics/costing?per_page=1&page=3')
    const badCategory = await costing(b.caller, { category: 'Cocktail' })
    assert.equal(badCategory.statusCode, 400)
    assert.equal(json(badCategory).error.code, 'invalid_parameter')
    assert.equal(json(badCategory).error.details.parameter, 'category')
  })

  test('an unknown, deleted or other account’s recipe_id is 404 recipe_not_found', async () => {
    const b = await bar()
    const unknown = await costing(b.caller, { recipe_id: 'rcp_missing' })
    assert.equal(unknown.statusCode, 404)
    assert.equal(json(unknown).error.code, 'recipe_not_found')
    const other = await bar()
    const foreign = await costing(b.caller, { recipe_id: other.recipes.shot.id })
    assert.equal(foreign.statusCode, 404)
    assert.equal(json(foreign).error.code, 'recipe_not_found')
    await ok(ctx, b.caller, 'DELETE', `/v1/recipes/${b.recipes.shot.id}`)
    const deleted = await costing(b.caller, { recipe_id: b.recipes.shot.id })
    assert.equal(deleted.statusCode, 404)
    assert.equal(json(deleted).error.code, 'recipe_not_found')
    assert.deepEqual(
      (await costingData(b.caller)).data.map((recipe: { name: string }) => recipe.name),
      ['House Kamikaze', 'Zero-proof lime soda'],
    )
  })

  test('needs analytics:read', async () => {
    const caller = await ctx.newCaller({ permissions: ['inventory:read', 'inventory:write', 'pos:read'] })
    const refused = await costing(caller)
    assert.equal(refused.statusCode, 403)
    assert.equal(json(refused).error.code, 'insufficient_permissions')
    assert.equal(json(refused).error.details.required, 'analytics:read')
    const reader = await ctx.keyFor(caller, ['analytics:read'])
    const allowed = await costing(caller, {}, reader)
    assert.equal(allowed.statusCode, 200)
    assert.deepEqual(json(allowed).data, [])
  })

  test('an ingredient whose item was deleted is still costed at its last cost and flagged', async () => {
    const caller = await ctx.newCaller()
    const bourbon = await createItem(ctx, caller, { name: 'Bulleit Bourbon 750ml', cost_per_unit: 25 })
    const recipe = await createRecipe(caller, {
      name: 'Bourbon neat',
      category: 'neat',
      selling_price: 12,
      ingredients: [{ inventory_item_id: bourbon.id, quantity: 2, unit: 'oz' }],
    })
    await ok(ctx, caller, 'DELETE', `/v1/inventory/items/${bourbon.id}`)
    const body = await costingData(caller)
    // 59.147 ml / 750 ml × $25 = 1.97156667; 16.43 % of $12.
    assert.deepEqual(body.data, [
      {
        recipe_id: recipe.id,
        name: 'Bourbon neat',
        category: 'neat',
        selling_price: 12,
        total_cost: 1.97,
        pour_cost_percentage: 16.43,
        gross_margin: 10.03,
        ingredients: [{ inventory_item_id: bourbon.id, name: 'Bulleit Bourbon 750ml', quantity: 2, unit: 'oz', cost: 1.97 }],
        optimization_suggestions: [
          'Bulleit Bourbon 750ml was deleted from inventory: it is costed at its last cost of $25.00 a bottle and POS sales of this recipe no longer deplete it; replace it in the recipe.',
        ],
      },
    ])
  })
})
