import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem, createLocations } from '../helpers/inventory.js'
import { createPosTestContext } from '../pos/pos-helpers.js'
import { count, dateOf, daysAgo, salesChannel } from './analytics-helpers.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

/** Five weekly counts, 29, 22, 15, 8 and 1 days ago at 10:00: four count windows inside the period. */
const COUNT_DAYS = [29, 22, 15, 8, 1]
const PERIOD = { date_from: dateOf(daysAgo(29)), date_to: dateOf(daysAgo(1)) }
/** A 30 ml pour of a 750 ml bottle. */
const POUR = 0.04
/** 15 % more on 60 % of the pours. */
const OVER_POURED = 1 + 0.15 * 0.6

interface Member {
  staff_id: string
  metrics: { variance_rate: number; drinks_served: number }
  comparison: {
    performance_rating: string
    rating_evidence: {
      items: number
      windows: number
      windows_explained: number
      by_item: {
        item_id: string
        name: string
        windows_counted: number
        sales_share_percentage: number
        variance_cost: number
        expected_cost: number
        variance_rate: number
        others_variance_rate: number | null
        windows: { sales_share_percentage: number; variance_cost: number; explained: boolean }[]
      }[]
    }
  }
}

async function staffReport(caller: Caller): Promise<Member[]> {
  const response = await ctx.request('GET', '/v1/analytics/staff', { key: caller.key, query: { ...PERIOD, per_page: '100' } })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).data
}

async function transfer(caller: Caller, to: string, itemId: string, quantity: number, at: string) {
  const response = await ctx.request('POST', '/v1/inventory/transfers', {
    key: caller.key,
    body: { from_location: 'storeroom', to_location: to, transferred_by: 'Sam (bar back)', transferred_at: at, items: [{ item_id: itemId, quantity }] },
  })
  assert.equal(response.statusCode, 201, response.body)
  return json(response).data as { items: { to_item_id: string }[] }
}

/**
 * The month of issue 21, in four weekly count windows, every bottle stocked from a storeroom by weekly
 * transfers of 12:
 *   main_bar, vodka (750 ml, $20, 30 ml pours): Alex pours 240, 160, 240, 160 a week and over-pours 15 % on
 *     60 % of them (9 % more vodka than sold); Blair 10, 40, 10, 40 and Casey 5, 20, 5, 20 pour honestly.
 *     Everyone also sells lager cans (honest): the over-pour is a small part of Alex's sales.
 *   cocktail_bar, gin (750 ml, $25): Drew pours 100, 20, 100, 20 and Emery 20, 100, 20, 100, honestly, but
 *     week 2's transfer reached the bar before the count 15 days ago and was entered after it: week 2 shows
 *     a gain of 12 bottles and week 3 a loss of 12, which transfers explain.
 * Each count is exactly what was left.
 */
async function month(caller: Caller) {
  await createLocations(ctx, caller, ['storeroom', 'cocktail_bar'])
  const vodka = await createItem(ctx, caller, { name: 'Vodka 750ml', sku: 'VODKA-750', cost_per_unit: 20, quantity: 0 })
  const lager = await createItem(ctx, caller, { name: 'Lager Can', sku: 'LAGER-355', unit: 'can', size_ml: 355, category: 'beer', cost_per_unit: 1.25, quantity: 0 })
  const gin = await createItem(ctx, caller, { name: 'Gin 750ml', sku: 'GIN-750', location: 'cocktail_bar', cost_per_unit: 25, quantity: 0 })
  const storeVodka = await createItem(ctx, caller, { name: 'Vodka 750ml', sku: 'VODKA-750', location: 'storeroom', cost_per_unit: 20, quantity: 200 })
  const storeGin = await createItem(ctx, caller, { name: 'Gin 750ml', sku: 'GIN-750', location: 'storeroom', cost_per_unit: 25, quantity: 200 })
  const pos = await salesChannel(ctx, caller)
  await pos.map('VODKA-30', { inventory_item_id: vodka.id, conversion_factor: 30, conversion_unit: 'ml' })
  await pos.map('GIN-30', { inventory_item_id: gin.id, conversion_factor: 30, conversion_unit: 'ml' })
  await pos.map('LAGER', { inventory_item_id: lager.id, conversion_factor: 1, conversion_unit: 'can' })

  const vodkaPours = { 'S-ALEX': [240, 160, 240, 160], 'S-BLAIR': [10, 40, 10, 40], 'S-CASEY': [5, 20, 5, 20] }
  const ginPours = { 'S-DREW': [100, 20, 100, 20], 'S-EMERY': [20, 100, 20, 100] }
  const lagerCans = 48
  let vodkaLeft = 10
  let ginLeft = 10
  let lagerLeft = 600
  await count(
    ctx,
    caller,
    [
      { item_id: vodka.id, quantity: vodkaLeft },
      { item_id: lager.id, quantity: lagerLeft },
    ],
    daysAgo(COUNT_DAYS[0] as number, 10),
  )
  await count(ctx, caller, [{ item_id: gin.id, quantity: ginLeft }], daysAgo(COUNT_DAYS[0] as number, 10), 'cocktail_bar')
  for (let week = 0; week < 4; week++) {
    const opened = COUNT_DAYS[week] as number
    const closed = COUNT_DAYS[week + 1] as number
    const sold = daysAgo(opened - 3, 20)
    const lines = [
      ...Object.entries(vodkaPours).map(([staff_id, pours]) => ({ pos_item_id: 'VODKA-30', name: 'Vodka 30ml', quantity: pours[week] as number, staff_id })),
      ...Object.keys(vodkaPours).map((staff_id) => ({ pos_item_id: 'LAGER', name: 'Lager', quantity: lagerCans, staff_id })),
      ...Object.entries(ginPours).map(([staff_id, pours]) => ({ pos_item_id: 'GIN-30', name: 'Gin 30ml', quantity: pours[week] as number, staff_id, location: 'cocktail_bar' })),
    ]
    await pos.sell(lines.map((line) => ({ ...line, unit_price: 8, sold_at: sold })))
    await transfer(caller, 'main_bar', storeVodka.id, 12, daysAgo(opened - 1, 14))
    // Week 2's gin arrived before the count that closes it, and was entered as moved an hour after that count.
    await transfer(caller, 'cocktail_bar', storeGin.id, 12, week === 1 ? daysAgo(closed, 11) : daysAgo(opened - 1, 14))
    const { 'S-ALEX': alex, 'S-BLAIR': blair, 'S-CASEY': casey } = vodkaPours
    vodkaLeft += 12 - POUR * ((alex[week] as number) * OVER_POURED + (blair[week] as number) + (casey[week] as number))
    lagerLeft -= lagerCans * Object.keys(vodkaPours).length
    ginLeft += 12 - POUR * ((ginPours['S-DREW'][week] as number) + (ginPours['S-EMERY'][week] as number))
    const round = (quantity: number) => Math.round(quantity * 1000) / 1000
    await count(
      ctx,
      caller,
      [
        { item_id: vodka.id, quantity: round(vodkaLeft) },
        { item_id: lager.id, quantity: lagerLeft },
      ],
      daysAgo(closed, 10),
    )
    await count(ctx, caller, [{ item_id: gin.id, quantity: round(ginLeft) }], daysAgo(closed, 10), 'cocktail_bar')
  }
  return { vodka, gin }
}

describe('staff variance by item window (issue 21)', () => {
  let caller: Caller
  let staff: Map<string, Member>
  let items: { vodka: { id: string }; gin: { id: string } }
  before(async () => {
    caller = await ctx.newCaller({ environment: 'sandbox' })
    items = await month(caller)
    staff = new Map((await staffReport(caller)).map((member) => [member.staff_id, member]))
  })

  test('the bartender who over-pours one product on 60 % of their pours needs attention; the colleagues who sold it honestly do not', () => {
    const alex = staff.get('S-ALEX') as Member
    assert.equal(alex.comparison.performance_rating, 'needs_attention', JSON.stringify(alex))
    for (const id of ['S-BLAIR', 'S-CASEY']) {
      assert.notEqual(staff.get(id)?.comparison.performance_rating, 'needs_attention', JSON.stringify(staff.get(id)))
    }
    // The evidence: the vodka's four windows, Alex's share of its sales in them, and the rate that follows Alex.
    const evidence = alex.comparison.rating_evidence
    // The over-poured vodka first: the item behind the rating, its four windows and Alex's share of each.
    const vodka = evidence.by_item[0]
    assert.equal(vodka?.item_id, items.vodka.id, JSON.stringify(evidence))
    // 800 of the 950 pours; each week's share: 240 of 255, 160 of 220.
    assert.equal(vodka.sales_share_percentage, 84.21)
    assert.deepEqual(
      vodka.windows.map((window) => [window.sales_share_percentage, window.explained]),
      [
        [94.12, false],
        [72.73, false],
        [94.12, false],
        [72.73, false],
      ],
    )
    // Alex's share of each week's over-pour, 0.09 × 0.04 × Alex's pours × $20: $49.28 on $640 sold, 7.7 %:
    // above 2 × the target (3) and above the 6.93 % everyone else's sales of the vodka carry.
    assert.deepEqual([vodka.windows_counted, vodka.variance_cost, vodka.expected_cost, vodka.variance_rate, vodka.others_variance_rate], [4, 49.28, 640, 7.7, 6.93])
    // Over everything Alex sold (lager too) the rate stays under 2 × the target: the vodka alone rates Alex.
    assert.equal(alex.metrics.variance_rate, 5.6)
    assert.equal(evidence.windows_explained, 0)
    // Blair's share of the same weeks is above 2 × the target too, but below what the others carry: the loss
    // does not follow Blair.
    const blair = (staff.get('S-BLAIR') as Member).comparison.rating_evidence.by_item.find((entry) => entry.item_id === items.vodka.id)
    assert.deepEqual([blair?.variance_rate, blair?.others_variance_rate], [6.93, 7.66])
  })

  test('a transfer entered on the wrong side of a count makes no one at the venue need attention: the two windows it explains carry no variance', () => {
    for (const id of ['S-DREW', 'S-EMERY']) {
      const member = staff.get(id) as Member
      assert.notEqual(member.comparison.performance_rating, 'needs_attention', JSON.stringify(member))
      assert.equal(member.metrics.variance_rate, 0, JSON.stringify(member))
      const gin = member.comparison.rating_evidence.by_item.find((entry) => entry.item_id === items.gin.id)
      // Weeks 1 and 4 carry the gin's (zero) variance; weeks 2 and 3 are explained by the transfer.
      assert.deepEqual(
        gin?.windows.map((window) => [window.variance_cost, window.explained]),
        [
          [0, false],
          [0, true],
          [0, true],
          [0, false],
        ],
        JSON.stringify(gin),
      )
      assert.equal(member.comparison.rating_evidence.windows_explained, 2)
    }
  })
})
