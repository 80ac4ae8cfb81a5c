import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem, createLocations } from '../helpers/inventory.js'
import { createPosTestContext } from '../pos/pos-helpers.js'
import { count, dateOf, daysAgo, salesChannel } from './analytics-helpers.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

async function causesOf(caller: Caller, itemId: string, query: Record<string, string>) {
  const response = await ctx.request('GET', '/v1/analytics/variance', { key: caller.key, query: { date_from: dateOf(daysAgo(10)), date_to: dateOf(daysAgo(3)), ...query } })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).data.items.find((item: { inventory_item_id: string }) => item.inventory_item_id === itemId).potential_causes
}

test('an item’s causes do not depend on which other locations are in the report', async () => {
  const caller = await ctx.newCaller({ environment: 'sandbox' })
  await createLocations(ctx, caller, ['restaurant'])
  const product = { name: "Tito's Handmade Vodka 750ml", sku: 'TITO-750', size_ml: 750, cost_per_unit: 20 }
  const atBar = await createItem(ctx, caller, { ...product, quantity: 10 })
  const atRestaurant = await createItem(ctx, caller, { ...product, location: 'restaurant', quantity: 10 })
  const pos = await salesChannel(ctx, caller)
  await pos.map('TITO-15', { inventory_item_id: atRestaurant.id, conversion_factor: 1.5 })
  await count(ctx, caller, [{ item_id: atBar.id, quantity: 12 }], daysAgo(10))
  await count(ctx, caller, [{ item_id: atRestaurant.id, quantity: 12 }], daysAgo(10), 'restaurant')
  // The restaurant sold 40 mapped pours and 14 doubles on a button nobody mapped.
  await pos.sell([
    { location: 'restaurant', pos_item_id: 'TITO-15', name: "Tito's Vodka 1.5oz", quantity: 40, unit_price: 8, sold_at: daysAgo(6, 21) },
    { location: 'restaurant', pos_item_id: 'TITO-DBL', name: "Tito's Vodka Dbl", quantity: 14, unit_price: 14, sold_at: daysAgo(5, 22) },
  ])
  await count(ctx, caller, [{ item_id: atBar.id, quantity: 12 }], daysAgo(3))
  await count(ctx, caller, [{ item_id: atRestaurant.id, quantity: 8 }], daysAgo(3), 'restaurant')
  const alone = await causesOf(caller, atRestaurant.id, { location: 'restaurant' })
  assert.equal(alone[0], 'unmapped_sales')
  assert.deepEqual(await causesOf(caller, atRestaurant.id, {}), alone, 'the bar’s item of the same name is no match for the restaurant’s sales')
  assert.deepEqual(await causesOf(caller, atRestaurant.id, { category: 'spirits' }), alone)
})

test('an item’s causes do not depend on which categories are in the report: unmapped names are matched among its whole location', async () => {
  const caller = await ctx.newCaller({ environment: 'sandbox' })
  const gin = await createItem(ctx, caller, { name: 'Tanqueray Gin 750ml', category: 'spirits', size_ml: 750, quantity: 10, cost_per_unit: 22 })
  const sevilla = await createItem(ctx, caller, { name: 'Tanqueray Sevilla Orange 700ml', category: 'liqueur', size_ml: 700, quantity: 10, cost_per_unit: 24 })
  const pos = await salesChannel(ctx, caller)
  const countBoth = (quantity: number, at: string) =>
    count(
      ctx,
      caller,
      [gin, sevilla].map((item) => ({ item_id: item.id, quantity })),
      at,
    )
  await countBoth(12, daysAgo(10))
  // Nobody mapped the Sevilla's double: it resembles the Sevilla most, and the gin only in a list without the Sevilla.
  await pos.sell([{ pos_item_id: 'SEVILLA-DBL', name: 'Tanqueray Sevilla Dbl', quantity: 47, unit_price: 16, sold_at: daysAgo(5, 22) }])
  await countBoth(8, daysAgo(3))
  const atLocation = await causesOf(caller, gin.id, { location: 'main_bar' })
  assert.ok(!atLocation.includes('unmapped_sales'), `the Sevilla's double is no look-alike of the gin: ${atLocation}`)
  assert.ok((await causesOf(caller, sevilla.id, { location: 'main_bar' })).includes('unmapped_sales'), 'the double is the Sevilla’s look-alike')
  assert.deepEqual(await causesOf(caller, gin.id, { location: 'main_bar', category: 'spirits' }), atLocation)
})
