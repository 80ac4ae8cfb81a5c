import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem, createLocations } from '../helpers/inventory.js'
import { createDistributor, createOrder, eventsOf, ok, shipOrder } from '../ordering/fixtures.js'
import { createPosTestContext } from '../pos/pos-helpers.js'
import { assertRollupsMatchRaw, count, dateOf, daysAgo, salesChannel } from './analytics-helpers.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

interface ReportedItem {
  inventory_item_id: string
  actual_consumption: number
  window: { opening_count_id: string; closing_count_id: string }
  cause_evidence: { cause: string; evidence: Record<string, number> }[]
}

async function report(caller: Caller, query: Record<string, string> = {}) {
  const response = await ctx.request('GET', '/v1/analytics/variance', { key: caller.key, query })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).data
}

/** The caller's stored count windows. */
function storedWindows(caller: Caller) {
  return {
    update: (values: Record<string, unknown>) =>
      ctx.database.db.updateTable('analytics_count_windows').set(values).where('account_id', '=', caller.tenant.accountId).where('environment', '=', caller.tenant.environment),
    delete: () => ctx.database.db.deleteFrom('analytics_count_windows').where('account_id', '=', caller.tenant.accountId).where('environment', '=', caller.tenant.environment),
  }
}

/**
 * The report as read from the stored windows (which the counts and earlier reports stored, and changes
 * since forgot), asserted equal to the same report measured afresh after emptying the store; the store
 * holds every window again afterwards.
 */
async function storedEqualsFresh(caller: Caller, query: Record<string, string> = {}) {
  const stored = await report(caller, query)
  const kept = await ctx.database.db
    .selectFrom('analytics_count_windows')
    .select((eb) => eb.fn.countAll<string>().as('windows'))
    .where('account_id', '=', caller.tenant.accountId)
    .where('environment', '=', caller.tenant.environment)
    .executeTakeFirstOrThrow()
  assert.ok(Number(kept.windows) > 0, 'windows are stored')
  await storedWindows(caller).delete().execute()
  assert.deepEqual(await report(caller, query), stored)
  return stored
}

/**
 * A bar entering its history: Tito's counted 12 ten days ago and 8 three days ago (both before its
 * starting stock, so history), 40 mapped 1.5 oz pours sold between, and 14 doubles rung up on an
 * unmapped POS button.
 */
async function historyWithUnmappedDoubles(caller: Caller) {
  const titos = await createItem(ctx, caller, { name: "Tito's Handmade Vodka 750ml", size_ml: 750, quantity: 10, cost_per_unit: 20 })
  const jameson = await createItem(ctx, caller, { name: 'Jameson Irish Whiskey 750ml', size_ml: 750, quantity: 6, cost_per_unit: 25 })
  const pos = await salesChannel(ctx, caller)
  await pos.map('TITO-15', { inventory_item_id: titos.id, conversion_factor: 1.5 })
  const opening = await count(ctx, caller, [{ item_id: titos.id, quantity: 12 }], daysAgo(10))
  await pos.sell([
    { pos_item_id: 'TITO-15', name: "Tito's Vodka 1.5oz", quantity: 40, unit_price: 8, sold_at: daysAgo(6, 21) },
    { pos_item_id: 'TITO-DBL', name: "Tito's Vodka Dbl", quantity: 14, unit_price: 14, sold_at: daysAgo(5, 22) },
  ])
  const closing = await count(ctx, caller, [{ item_id: titos.id, quantity: 8 }], daysAgo(3))
  return { titos, jameson, pos, opening, closing }
}

describe('GET /v1/analytics/variance', () => {
  test('measures the window between two counts, explains the loss by unmapped look-alike sales, and reports data quality', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { titos, opening, closing } = await historyWithUnmappedDoubles(caller)
    const data = await report(caller, { date_from: dateOf(daysAgo(10)), date_to: dateOf(daysAgo(3)) })
    assert.equal(data.period, `${dateOf(daysAgo(10))}/${dateOf(daysAgo(3))}`)
    assert.equal(data.items.length, 1)
    const [item] = data.items
    // 40 × 1.5 oz × 29.5735 ml / 750 ml = 2.36588 bottles sold; 12 − 8 = 4 used.
    assert.deepEqual(
      { ...item, potential_causes: undefined, cause_evidence: undefined },
      {
        inventory_item_id: titos.id,
        name: "Tito's Handmade Vodka 750ml",
        location: 'main_bar',
        unit: 'bottle',
        expected_consumption: 2.3659,
        actual_consumption: 4,
        variance: 1.6341,
        variance_percentage: 69.07,
        estimated_loss: 32.68,
        potential_causes: undefined,
        cause_evidence: undefined,
        window: {
          opening_count_id: opening.count_id,
          opening_counted_at: daysAgo(10),
          opening: 12,
          deliveries: 0,
          closing: 8,
          closing_count_id: closing.count_id,
          closing_counted_at: daysAgo(3),
          sales_units: 2.3659,
          sale_lines: 1,
          transfers_in: 0,
          transfers_out: 0,
          recorded_waste: 0,
          recorded_waste_cost: 0,
        },
        recorded_waste_cost: 0,
      },
    )
    assert.equal(item.potential_causes[0], 'unmapped_sales')
    const unmappedEvidence = item.cause_evidence.find((entry: { cause: string }) => entry.cause === 'unmapped_sales').evidence
    assert.equal(unmappedEvidence.unmapped_quantity, 14)
    assert.deepEqual(
      item.potential_causes,
      item.cause_evidence.map((entry: { cause: string }) => entry.cause),
    )
    assert.equal(data.total_variance, 32.68)
    assert.equal(data.variance_percentage, 69.07)
    assert.deepEqual(data.summary, {
      total_items_analyzed: 1,
      items_above_threshold: 1,
      high_variance_items: 1,
      gross_loss: 32.68,
      gross_gain: 0,
      gross_loss_percentage: 69.07,
      recorded_waste_cost: 0,
      waste_by_reason: {},
    })
    assert.equal(data.threshold, 5)
    assert.equal(data.currency, 'USD')
    assert.deepEqual(data.data_quality, {
      // 40 × $8 mapped of 40 × $8 + 14 × $14.
      mapped_revenue_share: 0.6202,
      items_counted_share: 0.5,
      items_without_counts: 1,
      stale_count_items: 0,
      items_counted_by_weight: 0,
      items_counted_by_eye: 1,
      unmapped_pos_items: [{ connection_id: data.data_quality.unmapped_pos_items[0].connection_id, pos_item_id: 'TITO-DBL', name: "Tito's Vodka Dbl", revenue: 196 }],
      cross_location_lines: 0,
    })
  })

  test('data quality counts the items whose closing count weighed open bottles apart from those counted by eye', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const weights = { full_weight_g: 1250, empty_weight_g: 450 }
    const weighedLast = await createItem(ctx, caller, { name: 'Weighed at closing', ...weights })
    const weighedFirst = await createItem(ctx, caller, { name: 'Weighed at opening', ...weights })
    const byEye = await createItem(ctx, caller, { name: 'By eye' })
    const once = await createItem(ctx, caller, { name: 'Counted once', ...weights })
    await count(
      ctx,
      caller,
      [
        { item_id: weighedLast.id, quantity: 10 },
        { item_id: weighedFirst.id, quantity: 9, weights_g: [850, 650] },
        { item_id: byEye.id, quantity: 6 },
      ],
      daysAgo(10),
    )
    await count(
      ctx,
      caller,
      [
        // 7 full and one half-full bottle.
        { item_id: weighedLast.id, quantity: 7, weight_g: 850 },
        { item_id: weighedFirst.id, quantity: 8.5 },
        { item_id: byEye.id, quantity: 5.5 },
        { item_id: once.id, quantity: 1, weight_g: 850 },
      ],
      daysAgo(3),
    )
    const data = await report(caller, { date_from: dateOf(daysAgo(10)), date_to: dateOf(daysAgo(3)) })
    const used = new Map(data.items.map((item: ReportedItem) => [item.inventory_item_id, item.actual_consumption]))
    assert.deepEqual([used.get(weighedLast.id), used.get(weighedFirst.id), used.get(byEye.id)], [2.5, 1.25, 0.5])
    assert.equal(data.summary.total_items_analyzed, 3)
    assert.deepEqual([data.data_quality.items_counted_by_weight, data.data_quality.items_counted_by_eye], [1, 2])
  })

  test('reads data quality from the sales of the period at its items’ locations alone', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { pos } = await historyWithUnmappedDoubles(caller)
    await createLocations(ctx, caller, ['storeroom'])
    const double = { pos_item_id: 'TITO-DBL', name: "Tito's Vodka Dbl", quantity: 5, unit_price: 14 }
    const pour = { pos_item_id: 'TITO-15', name: "Tito's Vodka 1.5oz", quantity: 5, unit_price: 8 }
    // Before the period, after it, and inside it at a location without items.
    await pos.sell([
      { ...double, sold_at: daysAgo(12, 21) },
      { ...pour, sold_at: daysAgo(12, 21) },
      { ...double, sold_at: daysAgo(1, 21) },
      { ...pour, sold_at: daysAgo(1, 21) },
      { ...double, location: 'storeroom', sold_at: daysAgo(5, 21) },
    ])
    const { data_quality: quality } = await report(caller, { date_from: dateOf(daysAgo(10)), date_to: dateOf(daysAgo(3)) })
    assert.equal(quality.mapped_revenue_share, 0.6202)
    assert.deepEqual(
      quality.unmapped_pos_items.map((entry: { pos_item_id: string; revenue: number }) => [entry.pos_item_id, entry.revenue]),
      [['TITO-DBL', 196]],
    )
  })

  test('reads unmapped look-alikes sold after the opening count and up to the closing one, matched against the catalogue as it stands', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { titos, pos } = await historyWithUnmappedDoubles(caller)
    // At the opening count's moment, an hour after it (the window's first business day, read raw), and at the closing count's.
    await pos.sell([
      { pos_item_id: 'TITO-DBL', name: "Tito's Vodka Dbl", quantity: 3, unit_price: 14, sold_at: daysAgo(10) },
      { pos_item_id: 'TITO-DBL', name: "Tito's Vodka Dbl", quantity: 4, unit_price: 14, sold_at: daysAgo(10, 13) },
      { pos_item_id: 'TITO-DBL', name: "Tito's Vodka Dbl", quantity: 2, unit_price: 14, sold_at: daysAgo(3) },
    ])
    const query = { date_from: dateOf(daysAgo(10)), date_to: dateOf(daysAgo(3)) }
    const unmappedQuantity = async () => {
      const [item] = (await report(caller, query)).items
      return item.cause_evidence.find((entry: { cause: string }) => entry.cause === 'unmapped_sales')?.evidence.unmapped_quantity
    }
    // The 3 sold at the opening count's moment belong to the window before it; the 4 after it and the 2 at the closing count's, to this one.
    assert.equal(await unmappedQuantity(), 20)
    const renamed = await ctx.request('PUT', `/v1/inventory/items/${titos.id}`, { key: caller.key, body: { name: 'Old Forester Bourbon 750ml' } })
    assert.equal(renamed.statusCode, 200, renamed.body)
    assert.equal(await unmappedQuantity(), undefined)
  })

  test('reads unmapped look-alikes on a first and a last business day that windows share from each window’s own counts', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { jameson, pos } = await historyWithUnmappedDoubles(caller)
    // The whiskey's window opens four hours after the vodka's (12:00) on the same day and closes eight hours after it.
    await pos.map('JAMO-15', { inventory_item_id: jameson.id, conversion_factor: 1.5 })
    await count(ctx, caller, [{ item_id: jameson.id, quantity: 6 }], daysAgo(10, 16))
    const double = { pos_item_id: 'JAMO-DBL', name: 'Jameson Irish Whiskey Dbl', unit_price: 15 }
    await pos.sell([
      { pos_item_id: 'JAMO-15', name: 'Jameson 1.5oz', quantity: 20, unit_price: 9, sold_at: daysAgo(6, 21) },
      // Between the two openings: the vodka's window only. Before both closings, and between them: the whiskey's.
      { ...double, quantity: 30, sold_at: daysAgo(10, 14) },
      { ...double, quantity: 4, sold_at: daysAgo(3, 10) },
      { ...double, quantity: 20, sold_at: daysAgo(3, 18) },
    ])
    // 20 pours and 24 doubles: about 4 bottles.
    await count(ctx, caller, [{ item_id: jameson.id, quantity: 2 }], daysAgo(3, 20))
    const data = await report(caller, { date_from: dateOf(daysAgo(10)), date_to: dateOf(daysAgo(3)) })
    const whiskey = data.items.find((entry: ReportedItem) => entry.inventory_item_id === jameson.id)
    const unmapped = whiskey.cause_evidence.find((entry: { cause: string }) => entry.cause === 'unmapped_sales')
    assert.equal(unmapped?.evidence.unmapped_quantity, 24)
  })

  test('reads each unmapped sale once when several flagged items share the location and period', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    await historyWithUnmappedDoubles(caller)
    // Nine more items lose stock over the same window: ten flagged windows overlap the unmapped doubles.
    for (let index = 0; index < 9; index++) {
      const other = await createItem(ctx, caller, { name: `Well Gin ${index} 1L`, size_ml: 1000, quantity: 5 })
      await count(ctx, caller, [{ item_id: other.id, quantity: 5 }], daysAgo(10))
      await count(ctx, caller, [{ item_id: other.id, quantity: 4 }], daysAgo(3))
    }
    const data = await report(caller, { date_from: dateOf(daysAgo(10)), date_to: dateOf(daysAgo(3)) })
    assert.equal(data.summary.items_above_threshold, 10)
    const titos = data.items.find((entry: { name: string }) => entry.name.startsWith("Tito's"))
    const unmappedEvidence = titos.cause_evidence.find((entry: { cause: string }) => entry.cause === 'unmapped_sales').evidence
    assert.equal(unmappedEvidence.unmapped_quantity, 14)
  })

  test('counts deliveries received inside the window; filters by location, category and threshold', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const lager = await createItem(ctx, caller, { name: 'Lager 12oz Can', unit: 'can', size_ml: 355, category: 'beer', quantity: 24, cost_per_unit: 1.25, case_size: 24 })
    const pos = await salesChannel(ctx, caller)
    await pos.map('LAGER', { inventory_item_id: lager.id, conversion_factor: 1, conversion_unit: 'can' })
    await count(ctx, caller, [{ item_id: lager.id, quantity: 24 }])
    const distributor = await createDistributor(ctx, caller)
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: lager.id, quantity: 2, unit: 'case' }])
    await shipOrder(ctx, caller, order.id)
    await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/receive`, { received_by: 'sam', items: [{ inventory_item_id: lager.id, quantity_received: 2 }] })
    await pos.sell([{ pos_item_id: 'LAGER', name: 'Lager Can', quantity: 30, unit_price: 5, sold_at: new Date().toISOString() }])
    await count(ctx, caller, [{ item_id: lager.id, quantity: 41 }])
    await assertRollupsMatchRaw(ctx, caller)
    const [item] = (await report(caller)).items
    // 24 + 48 received − 41 = 31 used against 30 sold.
    assert.deepEqual([item.window.deliveries, item.actual_consumption, item.expected_consumption, item.variance, item.variance_percentage], [48, 31, 30, 1, 3.33])
    assert.deepEqual(item.potential_causes, [], 'within the 5% threshold')
    const strict = await report(caller, { threshold: '3' })
    assert.equal(strict.summary.items_above_threshold, 1)
    assert.equal(strict.summary.high_variance_items, 0)
    assert.equal((await report(caller, { category: 'beer' })).items.length, 1)
    await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'patio', name: 'Patio' } })
    const patioItem = await createItem(ctx, caller, { location: 'patio' })
    await count(ctx, caller, [{ item_id: patioItem.id, quantity: 3 }], undefined, 'patio')
    await count(ctx, caller, [{ item_id: patioItem.id, quantity: 3 }], undefined, 'patio')
    assert.deepEqual(
      (await report(caller, { location: 'patio' })).items.map((entry: { inventory_item_id: string }) => entry.inventory_item_id),
      [patioItem.id],
    )
    const spirits = await ctx.request('GET', '/v1/analytics/variance', { key: caller.key, query: { category: 'spirits', location: 'main_bar' } })
    assert.equal(json(spirits).error.code, 'insufficient_data')
  })

  test('computes from the data as it stands: a late sale, a new mapping and a back-dated count change the next report', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { titos, pos } = await historyWithUnmappedDoubles(caller)
    const query = { date_from: dateOf(daysAgo(10)), date_to: dateOf(daysAgo(3)) }
    assert.equal((await report(caller, query)).items[0].expected_consumption, 2.3659)
    // A late sale of the same window, imported now.
    await pos.sell([{ pos_item_id: 'TITO-15', name: "Tito's Vodka 1.5oz", quantity: 10, unit_price: 8, sold_at: daysAgo(4, 20) }])
    assert.equal((await report(caller, query)).items[0].expected_consumption, 2.9574)
    // The doubles get their mapping: their stored lines join the expected usage.
    await pos.map('TITO-DBL', { inventory_item_id: titos.id, conversion_factor: 3 })
    const mapped = await report(caller, query)
    // 50 × 1.5 oz + 14 × 3 oz = 117 oz = 4.613466 bottles.
    assert.equal(mapped.items[0].expected_consumption, 4.6135)
    assert.deepEqual(mapped.data_quality.unmapped_pos_items, [])
    // The doubles were 2 oz, not 3: changing the mapping restates their stored usage.
    const changed = await ctx.request('PUT', `/v1/pos/connections/${pos.connectionId}/mappings/TITO-DBL`, { key: caller.key, body: { conversion_factor: 2 } })
    assert.equal(changed.statusCode, 200, changed.body)
    // 50 × 1.5 oz + 14 × 2 oz = 103 oz = 4.061428 bottles.
    assert.equal((await report(caller, query)).items[0].expected_consumption, 4.0614)
    // A count entered after the fact, inside the period, closes the window earlier.
    const late = await count(ctx, caller, [{ item_id: titos.id, quantity: 9 }], daysAgo(5, 23))
    const query5 = { date_from: dateOf(daysAgo(10)), date_to: dateOf(daysAgo(5)) }
    const [windowed] = (await report(caller, query5)).items
    assert.equal(windowed.window.closing_count_id, late.count_id)
    assert.equal(windowed.actual_consumption, 3)
    await assertRollupsMatchRaw(ctx, caller)
  })

  test("a count entered after the fact expects what the counts around it and the sales between leave, as the report's window does", async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    // Starting stock 12 entered now; the bar's history is entered after it.
    const rum = await createItem(ctx, caller, { name: 'Bacardi 750ml', quantity: 12, cost_per_unit: 15 })
    const pos = await salesChannel(ctx, caller)
    await pos.map('RUM', { inventory_item_id: rum.id, conversion_factor: 1, conversion_unit: 'bottle' })
    await pos.sell([{ pos_item_id: 'RUM', name: 'Rum bottle', quantity: 2, unit_price: 30, sold_at: daysAgo(6) }])
    await count(ctx, caller, [{ item_id: rum.id, quantity: 10 }], daysAgo(7))
    // Counted 10, 2 sold: 8 expected, 9 found.
    const later = await count(ctx, caller, [{ item_id: rum.id, quantity: 9 }], daysAgo(5))
    assert.deepEqual(later.variance_detected, [{ item_id: rum.id, expected: 8, actual: 9, variance: 1 }])
    const [windowed] = (await report(caller, { date_from: dateOf(daysAgo(7)), date_to: dateOf(daysAgo(5)) })).items
    assert.equal(windowed.window.closing_count_id, later.count_id)
    assert.equal(windowed.expected_consumption, 2)
    assert.equal(windowed.actual_consumption, 1)
    // A count dated before every other: 10 were counted 7 days ago and 1 sold the night before, so 11 then.
    await pos.sell([{ pos_item_id: 'RUM', name: 'Rum bottle', quantity: 1, unit_price: 30, sold_at: daysAgo(7, 0) }])
    const earlier = await count(ctx, caller, [{ item_id: rum.id, quantity: 10 }], daysAgo(8))
    assert.deepEqual(earlier.variance_detected, [{ item_id: rum.id, expected: 11, actual: 10, variance: -1 }])
    assert.equal(json(await ctx.request('GET', `/v1/inventory/items/${rum.id}`, { key: caller.key })).data.quantity, 12, 'history leaves current stock')
  })

  test('reads measured windows from the store, and a stored window is the window as the data stands after each change', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { titos, pos } = await historyWithUnmappedDoubles(caller)
    const query = { date_from: dateOf(daysAgo(10)), date_to: dateOf(daysAgo(3)) }
    const first = await storedEqualsFresh(caller, query)
    // The report reads what is stored: a stored window altered by hand shows in it.
    await storedWindows(caller).update({ usage_units: sql`usage_units + 1` }).execute()
    const altered = (await report(caller, query)).items[0].expected_consumption
    assert.equal(Number((altered - first.items[0].expected_consumption).toFixed(4)), 1)
    await storedWindows(caller).delete().execute()
    assert.deepEqual(await storedEqualsFresh(caller, query), first)

    // A late sale into the stored (closed) window.
    await pos.sell([{ pos_item_id: 'TITO-15', name: "Tito's Vodka 1.5oz", quantity: 10, unit_price: 8, sold_at: daysAgo(4, 20) }])
    assert.equal((await storedEqualsFresh(caller, query)).items[0].expected_consumption, 2.9574)
    // A new mapping applies stored lines; a changed one restates them.
    await pos.map('TITO-DBL', { inventory_item_id: titos.id, conversion_factor: 3 })
    assert.equal((await storedEqualsFresh(caller, query)).items[0].expected_consumption, 4.6135)
    const changed = await ctx.request('PUT', `/v1/pos/connections/${pos.connectionId}/mappings/TITO-DBL`, { key: caller.key, body: { conversion_factor: 2 } })
    assert.equal(changed.statusCode, 200, changed.body)
    assert.equal((await storedEqualsFresh(caller, query)).items[0].expected_consumption, 4.0614)
    // A count back-dated before the period's start becomes the opening count; the windows around it are new.
    const backDated = await count(ctx, caller, [{ item_id: titos.id, quantity: 11 }], daysAgo(8, 2))
    const split = await ctx.database.db
      .selectFrom('analytics_count_windows')
      .select('closing_count_id')
      .where('item_id', '=', titos.id)
      .where('opening_at', '<', new Date(daysAgo(8, 2)))
      .where('closing_at', '>', new Date(daysAgo(8, 2)))
      .execute()
    assert.deepEqual(split, [], 'the window the count splits is forgotten')
    const reopened = await storedEqualsFresh(caller, { date_from: dateOf(daysAgo(7)), date_to: dateOf(daysAgo(3)) })
    assert.equal(reopened.items[0].window.opening_count_id, backDated.count_id)
    assert.equal(reopened.items[0].actual_consumption, 3)

    // A delivery received inside a window whose closing count is already recorded (a few minutes ahead, as
    // a clock skew allows).
    const lager = await createItem(ctx, caller, { name: 'Lager 12oz Can', unit: 'can', size_ml: 355, category: 'beer', quantity: 24, cost_per_unit: 1.25, case_size: 24 })
    await count(ctx, caller, [{ item_id: lager.id, quantity: 24 }], daysAgo(2))
    await count(ctx, caller, [{ item_id: lager.id, quantity: 70 }], new Date(Date.now() + 2 * 60_000).toISOString())
    const lagerOf = (data: { items: { inventory_item_id: string; window: { deliveries: number } }[] }) => data.items.find((item) => item.inventory_item_id === lager.id)
    assert.equal(lagerOf(await storedEqualsFresh(caller))?.window.deliveries, 0)
    const distributor = await createDistributor(ctx, caller)
    const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: lager.id, quantity: 2, unit: 'case' }])
    await shipOrder(ctx, caller, order.id)
    await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/receive`, { received_by: 'sam', items: [{ inventory_item_id: lager.id, quantity_received: 2 }] })
    assert.equal(lagerOf(await storedEqualsFresh(caller))?.window.deliveries, 48)
  })

  test('a report of 300 items (planned as two statements at once) answers each item’s own window and earlier windows', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const items = []
    for (let i = 0; i < 300; i++) items.push(await createItem(ctx, caller, { name: `Item ${i}`, quantity: 30 }))
    // Each item's loss in the report's window differs, and only odd items lost stock in an earlier window
    // (nothing is sold): a window read for the wrong item, or half of the items lost, shows.
    const lossOf = (i: number) => 1 + (i % 9)
    const earlierLossOf = (i: number) => (i % 2) * 3
    await count(
      ctx,
      caller,
      items.map((item) => ({ item_id: item.id, quantity: 30 })),
      daysAgo(20),
    )
    await count(
      ctx,
      caller,
      items.map((item, i) => ({ item_id: item.id, quantity: 30 - earlierLossOf(i) })),
      daysAgo(12),
    )
    const opening = await count(
      ctx,
      caller,
      items.map((item, i) => ({ item_id: item.id, quantity: 30 - earlierLossOf(i) })),
      daysAgo(10),
    )
    const closing = await count(
      ctx,
      caller,
      items.map((item, i) => ({ item_id: item.id, quantity: 30 - earlierLossOf(i) - lossOf(i) })),
      daysAgo(3),
    )
    const data = await report(caller, { date_from: dateOf(daysAgo(9)), date_to: dateOf(daysAgo(3)) })
    assert.equal(data.items.length, 300)
    const reported = new Map<string, ReportedItem>(data.items.map((item: ReportedItem) => [item.inventory_item_id, item]))
    items.forEach((item, i) => {
      const answered = reported.get(item.id)
      assert.ok(answered, item.name)
      assert.equal(answered.actual_consumption, lossOf(i), item.name)
      assert.deepEqual([answered.window.opening_count_id, answered.window.closing_count_id], [opening.count_id, closing.count_id])
      const waste = answered.cause_evidence.find((cause) => cause.cause === 'unrecorded_waste')
      assert.equal(waste?.evidence.recurring_windows, i % 2, `${item.name}: earlier windows with a loss`)
    })
  })

  test('a count emits variance.detected per item above the threshold and variance.threshold_exceeded, with the report’s figures', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { titos, jameson, pos } = await historyWithUnmappedDoubles(caller)
    // Jameson: counted 6, 2 bottles sold, counted 4: exactly what was sold.
    await pos.map('JAME-BTL', { inventory_item_id: jameson.id, conversion_factor: 1, conversion_unit: 'bottle' })
    await count(ctx, caller, [{ item_id: jameson.id, quantity: 6 }], daysAgo(10))
    await pos.sell([{ pos_item_id: 'JAME-BTL', name: 'Jameson Bottle', quantity: 2, unit_price: 90, sold_at: daysAgo(4) }])
    const before = await eventsOf(ctx, caller, 'variance.detected')
    assert.deepEqual(
      before.map((event) => event.item_id),
      [titos.id],
      'the closing count of Tito’s already emitted its own',
    )
    await count(
      ctx,
      caller,
      [
        { item_id: titos.id, quantity: 7.5 },
        { item_id: jameson.id, quantity: 4 },
      ],
      daysAgo(2),
    )
    const detected = (await eventsOf(ctx, caller, 'variance.detected')).slice(1)
    // Tito’s from 8 to 7.5 with nothing sold: 0.5 bottle used against 0 expected is 100%.
    assert.deepEqual(detected, [
      {
        item_id: titos.id,
        name: "Tito's Handmade Vodka 750ml",
        expected_consumption: 0,
        actual_consumption: 0.5,
        variance: 0.5,
        variance_percentage: 100,
        estimated_loss: 10,
        severity: 'high',
        potential_causes: detected[0].potential_causes,
      },
    ])
    const [exceeded] = (await eventsOf(ctx, caller, 'variance.threshold_exceeded')).slice(1)
    // $10 lost against Jameson’s 2 bottles × $25 expected.
    assert.deepEqual(exceeded, { period: `${dateOf(daysAgo(10))}/${dateOf(daysAgo(2))}`, variance_rate: 20, threshold: 5, total_loss: 10, location: 'main_bar' })
  })

  test('answers insufficient_data without two counts, invalid_date_range, invalid_parameter, location_not_found and 403', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const item = await createItem(ctx, caller)
    await count(ctx, caller, [{ item_id: item.id, quantity: 3 }])
    const cases: [Record<string, string>, number, string][] = [
      [{}, 400, 'insufficient_data'],
      [{ date_from: '2026-11-10', date_to: '2026-11-01' }, 400, 'invalid_date_range'],
      [{ date_from: '2025-01-01', date_to: '2026-01-02' }, 400, 'invalid_date_range'],
      [{ date_from: '2026-02-30' }, 400, 'invalid_parameter'],
      [{ date_to: 'yesterday' }, 400, 'invalid_parameter'],
      [{ threshold: '-1' }, 400, 'invalid_parameter'],
      [{ location: 'attic' }, 404, 'location_not_found'],
      [{ category: 'gin' }, 400, 'invalid_parameter'],
    ]
    for (const [query, status, code] of cases) {
      const response = await ctx.request('GET', '/v1/analytics/variance', { key: caller.key, query })
      assert.equal(response.statusCode, status, JSON.stringify(query))
      assert.equal(json(response).error.code, code, JSON.stringify(query))
    }
    const noAnalytics = await ctx.keyFor(caller, ['inventory:read'])
    const denied = await ctx.request('GET', '/v1/analytics/variance', { key: noAnalytics })
    assert.equal(denied.statusCode, 403)
    assert.equal(json(denied).error.details.required, 'analytics:read')
  })
})
