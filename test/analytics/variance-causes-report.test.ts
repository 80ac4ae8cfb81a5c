import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createPosTestContext } from '../pos/pos-helpers.js'
import { count, dateOf, daysAgo, salesChannel } from './analytics-helpers.js'

/** Causes as the variance report answers them over HTTP (DECISIONS, "Causes rank the truth first"). */

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

interface ReportedItem {
  inventory_item_id: string
  variance_percentage: number
  potential_causes: string[]
  cause_evidence: { cause: string; confidence: number; evidence: Record<string, number> }[]
}

async function reportedItem(caller: Caller, itemId: string, from: string, to: string): Promise<ReportedItem> {
  const response = await ctx.request('GET', '/v1/analytics/variance', { key: caller.key, query: { date_from: dateOf(from), date_to: dateOf(to) } })
  assert.equal(response.statusCode, 200, response.body)
  const item = (json(response).data.items as ReportedItem[]).find((entry) => entry.inventory_item_id === itemId)
  assert.ok(item, 'the item is reported')
  return item
}

/**
 * Weekly counts (noon, `firstDay` days ago, then every 7 days) of an item sold as one POS line a day at
 * 20:00 through `pos`: `units[w][d]` POS units on day d of week w; each count is the one before less the week's usage
 * in item units × `usedPerSold`, read to a tenth. Returns the first and last count's times.
 */
async function weeksOfOneLineADay(
  caller: Caller,
  pos: Awaited<ReturnType<typeof salesChannel>>,
  item: { id: string; quantity: number },
  sale: { posItemId: string; itemUnitsPerPosUnit: number; usedPerSold: number[] },
  units: number[][],
  firstDay: number,
) {
  let stock = item.quantity
  await count(ctx, caller, [{ item_id: item.id, quantity: stock }], daysAgo(firstDay))
  for (const [week, days] of units.entries()) {
    const start = firstDay - 7 * week
    await pos.sell(days.map((quantity, day) => ({ pos_item_id: sale.posItemId, name: sale.posItemId, quantity, unit_price: 8, sold_at: daysAgo(start - day, 20) })))
    const sold = days.reduce((total, quantity) => total + quantity, 0) * sale.itemUnitsPerPosUnit
    stock = Math.round((stock - sold * (sale.usedPerSold[week] as number)) * 10) / 10
    await count(ctx, caller, [{ item_id: item.id, quantity: stock }], daysAgo(start - 7))
  }
  return { from: daysAgo(firstDay), to: daysAgo(firstDay - 7 * units.length) }
}

/** 1.5 oz pours of a 1 L bottle, in bottles. */
const POUR = (1.5 * 29.5735) / 1000
/** A week of one line a day, about 21 pours a day. */
const WEEKS = [
  [20, 22, 19, 25, 30, 28, 14],
  [21, 18, 24, 26, 31, 27, 16],
  [19, 23, 20, 24, 29, 30, 15],
  [22, 20, 21, 27, 28, 26, 17],
]

describe('variance causes through the report', () => {
  test('a 10 % over-pour in each of four weekly windows of one 28-day report is over_pouring first, with four windows of evidence', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const vodka = await createItem(ctx, caller, { name: 'House Vodka 1L', size_ml: 1000, quantity: 40, cost_per_unit: 15 })
    const pos = await salesChannel(ctx, caller)
    await pos.map('VOD-15', { inventory_item_id: vodka.id, conversion_factor: 1.5, conversion_unit: 'oz' })
    const { from, to } = await weeksOfOneLineADay(caller, pos, vodka, { posItemId: 'VOD-15', itemUnitsPerPosUnit: POUR, usedPerSold: [1.1, 1.1, 1.1, 1.1] }, WEEKS, 29)
    const item = await reportedItem(caller, vodka.id, from, to)
    assert.ok(item.variance_percentage > 5, `variance ${item.variance_percentage}`)
    assert.equal(item.potential_causes[0], 'over_pouring', JSON.stringify(item.cause_evidence))
    const evidence = item.cause_evidence[0]?.evidence
    assert.equal(evidence?.windows, 4)
    assert.equal(evidence?.windows_over, 4)
  })

  test('one sale line a day is not "few sales": a single week 10 % over is not unrecorded_waste', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const vodka = await createItem(ctx, caller, { name: 'House Vodka 1L', size_ml: 1000, quantity: 20, cost_per_unit: 15 })
    const pos = await salesChannel(ctx, caller)
    await pos.map('VOD-15', { inventory_item_id: vodka.id, conversion_factor: 1.5, conversion_unit: 'oz' })
    const { from, to } = await weeksOfOneLineADay(caller, pos, vodka, { posItemId: 'VOD-15', itemUnitsPerPosUnit: POUR, usedPerSold: [1.12] }, WEEKS.slice(0, 1), 8)
    const item = await reportedItem(caller, vodka.id, from, to)
    assert.ok(item.variance_percentage > 5, `variance ${item.variance_percentage}`)
    assert.ok(!item.potential_causes.includes('unrecorded_waste'), JSON.stringify(item.cause_evidence))
  })

  test('a beer sold by the bottle never gets over_pouring, however steady its loss', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const beer = await createItem(ctx, caller, { name: 'Corona Extra 355ml', category: 'beer', size_ml: 355, quantity: 1500, cost_per_unit: 1.5 })
    const pos = await salesChannel(ctx, caller)
    await pos.map('CORONA', { inventory_item_id: beer.id, conversion_factor: 1, conversion_unit: 'bottle' })
    const weeks = WEEKS.map((days) => days.map((pours) => pours * 2))
    const { from, to } = await weeksOfOneLineADay(caller, pos, beer, { posItemId: 'CORONA', itemUnitsPerPosUnit: 1, usedPerSold: [1.1, 1.1, 1.1, 1.1] }, weeks, 29)
    const item = await reportedItem(caller, beer.id, from, to)
    assert.ok(item.variance_percentage > 5, `variance ${item.variance_percentage}`)
    assert.ok(!item.potential_causes.includes('over_pouring'), JSON.stringify(item.cause_evidence))
  })
})
