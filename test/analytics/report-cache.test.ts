import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { refitForecasts } from '../../src/analytics/forecast/forecast-refit.js'
import { type Caller, createTestContext, json, type TestContext } from '../helpers/context.js'
import { createItem, createLocations } from '../helpers/inventory.js'
import { scrape } from '../helpers/prometheus.js'
import { createDistributor, createOrder, ok, shipOrder } from '../ordering/fixtures.js'
import { createPosTestContext } from '../pos/pos-helpers.js'
import { count, dateOf, daysAgo, refitClock, salesChannel, sellDaily } from './analytics-helpers.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

/** The report cache (docs/decisions.md "Report cache"): same bytes on a hit, a new answer after every write a report reads. */

const TOKEN = 'report-cache-scrape-token-5d1e'
const LOOKUPS = 'barstock_report_cache_lookups_total'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext({ env: { BARSTOCK_METRICS_TOKEN: TOKEN } })
})
after(() => ctx.close())

async function lookups(context: TestContext) {
  const exposition = await scrape(context, TOKEN)
  return { hits: exposition.value(LOOKUPS, { outcome: 'hit' }), misses: exposition.value(LOOKUPS, { outcome: 'miss' }) }
}

const VARIANCE = '/v1/analytics/variance'
const FORECAST = '/v1/analytics/forecast'

function ask(context: TestContext, caller: Caller, url: string): Promise<LightMyRequestResponse> {
  const query = url === VARIANCE ? { date_from: dateOf(daysAgo(10)), date_to: dateOf(daysAgo(3)) } : undefined
  return context.request('GET', url, { key: caller.key, ...(query && { query }) })
}

/** Headers whose values are the request's own: its id, its time, what is left of its key's rate limit. */
const OWN_HEADERS = new Set(['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-reset-after'])

/** The body without its meta (the request's own id and time), and the headers with the request's own values left out. */
function withoutMeta(response: LightMyRequestResponse) {
  assert.equal(response.statusCode, 200, response.body)
  const headers = Object.entries(response.headers).map(([name, value]) => [name, OWN_HEADERS.has(name) ? 'own' : value])
  return { body: response.body.replace(/,"meta":\{"request_id":"req_[0-9a-z]+","timestamp":"[^"]+"\}\}$/, ''), headers }
}

/**
 * Asks for the report twice, checking that the second answer is a hit with the first's bytes: the write
 * that follows is then the only thing between a cached answer and the next request.
 */
async function cachedAnswer(caller: Caller, url: string) {
  const first = await ask(ctx, caller, url)
  const before = await lookups(ctx)
  const second = await ask(ctx, caller, url)
  assert.deepEqual(await lookups(ctx), { hits: before.hits + 1, misses: before.misses }, 'the second request is a hit')
  assert.deepEqual(withoutMeta(second), withoutMeta(first))
  return json(first).data
}

/** The report computed whole, for comparing bytes: asked with the cache emptied, a miss. */
async function computedWhole(askReport: () => Promise<LightMyRequestResponse>) {
  ctx.app.reportCache?.clear()
  const before = await lookups(ctx)
  const response = await askReport()
  assert.deepEqual(await lookups(ctx), { hits: before.hits, misses: before.misses + 1 }, 'computed whole')
  return withoutMeta(response)
}

const GIN = { name: 'Tanqueray 750ml', size_ml: 750, cost_per_unit: 21, quantity: 10 }

/** Gin at the bar: counted 10 ten days ago, 3 sold by the bottle, counted 6 three days ago (a bottle lost). */
async function barWeek(caller: Caller) {
  const gin = await createItem(ctx, caller, GIN)
  const pos = await salesChannel(ctx, caller)
  await pos.map('TANQ-BTL', { inventory_item_id: gin.id, conversion_factor: 1, conversion_unit: 'bottle' })
  await count(ctx, caller, [{ item_id: gin.id, quantity: 10 }], daysAgo(10))
  await pos.sell([{ pos_item_id: 'TANQ-BTL', name: 'Tanqueray bottle', quantity: 3, unit_price: 90, sold_at: daysAgo(6, 21) }])
  await count(ctx, caller, [{ item_id: gin.id, quantity: 6 }], daysAgo(3))
  return { gin, pos }
}

type BarWeek = Awaited<ReturnType<typeof barWeek>>

describe('a hit', () => {
  test('answers the bytes and headers of the miss before it, with its own meta, and counts a hit', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { gin } = await barWeek(caller)
    await sellDaily(ctx, caller, gin.id, 28, 2)
    for (const url of [VARIANCE, FORECAST]) {
      const before = await lookups(ctx)
      const miss = await ask(ctx, caller, url)
      const hit = await ask(ctx, caller, url)
      assert.deepEqual(await lookups(ctx), { hits: before.hits + 1, misses: before.misses + 1 }, url)
      assert.deepEqual(withoutMeta(hit), withoutMeta(miss), url)
      assert.notEqual(json(hit).meta.request_id, json(miss).meta.request_id)
      assert.match(hit.headers['x-request-id'] as string, /^req_/)
      assert.equal(json(hit).meta.request_id, hit.headers['x-request-id'])
    }
  })

  test('is per tenant and per query: another account, period or threshold is a miss', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const other = await ctx.newCaller({ environment: 'sandbox' })
    await barWeek(caller)
    await barWeek(other)
    await cachedAnswer(caller, VARIANCE)
    const before = await lookups(ctx)
    assert.equal((await ask(ctx, other, VARIANCE)).statusCode, 200)
    const threshold = await ctx.request('GET', VARIANCE, { key: caller.key, query: { date_from: dateOf(daysAgo(10)), date_to: dateOf(daysAgo(3)), threshold: '50' } })
    assert.equal(json(threshold).data.threshold, 50)
    const period = await ctx.request('GET', VARIANCE, { key: caller.key, query: { date_from: dateOf(daysAgo(9)), date_to: dateOf(daysAgo(3)) } })
    assert.equal(period.statusCode, 200)
    assert.deepEqual(await lookups(ctx), { hits: before.hits, misses: before.misses + 3 })
  })
})

describe('the answer written item by item', () => {
  test('is byte for byte the route serializer’s answer, on a miss and on a refresh', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { gin } = await barWeek(caller)
    // A name the serializer escapes, and a second item: the list's items are joined.
    const rum = await createItem(ctx, caller, { name: 'Añejo "Reserva" ’24 \\ 700ml', size_ml: 700, cost_per_unit: 30, quantity: 8 })
    await count(ctx, caller, [{ item_id: rum.id, quantity: 8 }], daysAgo(10))
    await count(ctx, caller, [{ item_id: rum.id, quantity: 5 }], daysAgo(3))
    await sellDaily(ctx, caller, gin.id, 28, 2)
    await sellDaily(ctx, caller, rum.id, 28, 1)
    const serializedWhole = async (url: string) => {
      const cache = ctx.app.reportCache
      ctx.app.reportCache = undefined
      try {
        return withoutMeta(await ask(ctx, caller, url))
      } finally {
        ctx.app.reportCache = cache
      }
    }
    for (const url of [VARIANCE, FORECAST]) {
      const miss = withoutMeta(await ask(ctx, caller, url))
      assert.equal(json(await ask(ctx, caller, url)).data[url === VARIANCE ? 'items' : 'forecasts'].length, 2, url)
      assert.deepEqual(miss, await serializedWhole(url), url)
      await count(ctx, caller, [{ item_id: rum.id, quantity: 5 }], daysAgo(3, 18))
      const refreshed = withoutMeta(await ask(ctx, caller, url))
      assert.deepEqual(refreshed, await serializedWhole(url), url)
    }
  })
})

/** The transfer of a bottle of the gin to the storeroom, five days ago. */
const transferGin = (caller: Caller, { gin }: BarWeek) =>
  ok(ctx, caller, 'POST', '/v1/inventory/transfers', {
    from_location: 'main_bar',
    to_location: 'storeroom',
    transferred_by: 'sam',
    transferred_at: daysAgo(5),
    items: [{ item_id: gin.id, quantity: 1 }],
  })

/**
 * Each kind of write a variance report reads, what it changes in the report, and what it reaches of a
 * cached report (tenant_changes.item_ids, reaches_history): `items`, only the gin's part, made again
 * beside the kept others; `context`, the report's context read again and the items whose row changed made
 * again, the causes of the others read again; `whole`, the whole report computed again.
 */
const VARIANCE_WRITES: {
  write: string
  reach: 'items' | 'context' | 'whole'
  prepare?: (caller: Caller, week: BarWeek) => Promise<unknown>
  change: (caller: Caller, week: BarWeek) => Promise<unknown>
}[] = [
  { write: 'a count', reach: 'items', change: (caller, { gin }) => count(ctx, caller, [{ item_id: gin.id, quantity: 5 }], daysAgo(3, 18)) },
  {
    write: 'a sales import of a line sold inside the windows',
    reach: 'items',
    change: (_caller, { pos }) => pos.sell([{ pos_item_id: 'TANQ-BTL', name: 'Tanqueray bottle', quantity: 1, unit_price: 90, sold_at: daysAgo(5, 21) }]),
  },
  // The storeroom does not stock the gin yet: the transfer adds the item there, and a new item can be in any report's scope.
  { write: 'a first transfer to a location', reach: 'context', prepare: (caller) => createLocations(ctx, caller, ['storeroom']), change: transferGin },
  {
    write: 'a transfer',
    reach: 'items',
    prepare: async (caller, week) => {
      await createLocations(ctx, caller, ['storeroom'])
      await transferGin(caller, week)
    },
    change: transferGin,
  },
  {
    write: 'recorded waste',
    reach: 'items',
    change: (caller, { gin }) =>
      ok(ctx, caller, 'POST', '/v1/inventory/waste', {
        location: 'main_bar',
        recorded_by: 'maria',
        occurred_at: daysAgo(5, 23),
        items: [{ item_id: gin.id, quantity: 1, reason: 'breakage' }],
      }),
  },
  {
    write: 'a delivery received',
    reach: 'items',
    prepare: async (caller, { gin }) => {
      const distributor = await createDistributor(ctx, caller)
      await ok(ctx, caller, 'PUT', `/v1/distributors/${distributor.id}/catalog`, [{ inventory_item_id: gin.id, unit: 'bottle', unit_price: 21 }])
      const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: gin.id, quantity: 2, unit: 'bottle' }])
      await shipOrder(ctx, caller, order.id)
      return order
    },
    change: async (caller, { gin }) => {
      const orders = json(await ctx.request('GET', '/v1/orders', { key: caller.key })).data as { id: string }[]
      await ok(ctx, caller, 'POST', `/v1/orders/${orders[0]!.id}/receive`, {
        received_by: 'Sam',
        received_at: daysAgo(5),
        items: [{ inventory_item_id: gin.id, quantity_received: 2 }],
      })
    },
  },
  { write: 'an item update', reach: 'context', change: (caller, { gin }) => ok(ctx, caller, 'PUT', `/v1/inventory/items/${gin.id}`, { name: 'Tanqueray No. Ten 750ml' }) },
  {
    write: 'a mapping change',
    reach: 'context',
    change: (caller, { pos }) => ok(ctx, caller, 'PUT', `/v1/pos/connections/${pos.connectionId}/mappings/TANQ-BTL`, { conversion_factor: 2 }),
  },
  { write: 'a settings change (threshold)', reach: 'whole', change: (caller) => ok(ctx, caller, 'PUT', '/v1/settings', { variance_threshold: 50 }) },
  { write: 'a settings change (currency)', reach: 'context', change: (caller) => ok(ctx, caller, 'PUT', '/v1/settings', { currency: 'EUR' }) },
  {
    write: 'a new item',
    reach: 'context',
    change: (caller) => createItem(ctx, caller, { name: 'Hendrick’s 700ml', size_ml: 700, cost_per_unit: 30, quantity: 4 }),
  },
  {
    // Unmapped, so no stock usage and no stored window changes: the gin's causes match it among the bar's items.
    write: 'an unmapped sale recorded late inside the windows',
    reach: 'context',
    prepare: (_caller, { pos }) => pos.sell([{ pos_item_id: 'TANQ-DBL', name: 'Tanqueray double', quantity: 2, unit_price: 14, sold_at: daysAgo(6, 21) }]),
    change: (_caller, { pos }) => pos.sell([{ pos_item_id: 'TANQ-DBL', name: 'Tanqueray double', quantity: 2, unit_price: 14, sold_at: daysAgo(5, 21) }]),
  },
]

const refreshes = async () => (await scrape(ctx, TOKEN)).value(LOOKUPS, { outcome: 'refresh' })

async function outcomes() {
  return { ...(await lookups(ctx)), refreshes: await refreshes() }
}

/**
 * A cached answer, then `write`, then the answer asked for again: checked to be made again in part
 * (`items`, `context`) or computed whole, as `reach` says; both answers' data and the second response.
 */
async function answersAround(caller: Caller, url: string, reach: 'items' | 'context' | 'whole', write: () => Promise<unknown>) {
  const before = await cachedAnswer(caller, url)
  await write()
  const counted = await outcomes()
  const response = await ask(ctx, caller, url)
  const outcome = reach === 'whole' ? { ...counted, misses: counted.misses + 1 } : { ...counted, refreshes: counted.refreshes + 1 }
  assert.deepEqual(await outcomes(), outcome)
  return { before, response, after: json(response).data }
}

/**
 * The vodka beside the gin, counted with it and untouched by every write: its part of a report made again
 * in part is kept, with a spill recorded in its window (the report's waste by reason sums kept items' too).
 */
async function vodkaBeside(caller: Caller) {
  const vodka = await createItem(ctx, caller, { name: 'Absolut 750ml', cost_per_unit: 15, quantity: 8 })
  await count(ctx, caller, [{ item_id: vodka.id, quantity: 8 }], daysAgo(10))
  await ok(ctx, caller, 'POST', '/v1/inventory/waste', {
    location: 'main_bar',
    recorded_by: 'maria',
    occurred_at: daysAgo(6, 23),
    items: [{ item_id: vodka.id, quantity: 0.5, reason: 'spill' }],
  })
  await count(ctx, caller, [{ item_id: vodka.id, quantity: 7 }], daysAgo(3))
  return vodka
}

describe('the variance report after a write it reads', () => {
  for (const { write, reach, prepare, change } of VARIANCE_WRITES) {
    const made = { items: 'made again for the gin alone', context: 'made again in its context', whole: 'computed whole' }[reach]
    test(`${write}: the next report shows it, ${made}, with the bytes of the report computed whole`, async () => {
      const caller = await ctx.newCaller({ environment: 'sandbox' })
      const week = await barWeek(caller)
      const vodka = await vodkaBeside(caller)
      await prepare?.(caller, week)
      const { before, response, after } = await answersAround(caller, VARIANCE, reach, () => change(caller, week))
      assert.notDeepEqual(after, before)
      const vodkaIn = (report: { items: { inventory_item_id: string }[] }) => report.items.find((entry) => entry.inventory_item_id === vodka.id)
      if (reach !== 'whole') assert.deepEqual(vodkaIn(after), vodkaIn(before), 'the vodka is as it was')
      assert.deepEqual(await computedWhole(() => ask(ctx, caller, VARIANCE)), withoutMeta(response))
    })
  }
})

test('an item leaving the report’s scope takes its weighed closing count with it: made again in its context, data quality counts the others', async () => {
  const caller = await ctx.newCaller({ environment: 'sandbox' })
  const gin = await createItem(ctx, caller, { ...GIN, full_weight_g: 1250, empty_weight_g: 450 })
  await count(ctx, caller, [{ item_id: gin.id, quantity: 10 }], daysAgo(10))
  await count(ctx, caller, [{ item_id: gin.id, quantity: 6, weight_g: 850 }], daysAgo(3))
  await vodkaBeside(caller)
  const askSpirits = () => ctx.request('GET', VARIANCE, { key: caller.key, query: { date_from: dateOf(daysAgo(10)), date_to: dateOf(daysAgo(3)), category: 'spirits' } })
  assert.equal(json(await askSpirits()).data.data_quality.items_counted_by_weight, 1)
  await ok(ctx, caller, 'PUT', `/v1/inventory/items/${gin.id}`, { category: 'liqueur' })
  const before = await outcomes()
  const response = await askSpirits()
  assert.deepEqual(await outcomes(), { ...before, refreshes: before.refreshes + 1 })
  assert.equal(json(response).data.data_quality.items_counted_by_weight, 0)
  assert.deepEqual(await computedWhole(askSpirits), withoutMeta(response))
})

test('a location’s business-day cut-off moves the moments of its windows: the variance report is computed whole', async () => {
  const caller = await ctx.newCaller({ environment: 'sandbox' })
  await barWeek(caller)
  await cachedAnswer(caller, VARIANCE)
  await ok(ctx, caller, 'PUT', '/v1/locations/main_bar', { business_day_cutoff: '06:00' })
  const before = await outcomes()
  const response = await ask(ctx, caller, VARIANCE)
  assert.deepEqual(await outcomes(), { ...before, misses: before.misses + 1 })
  assert.deepEqual(await computedWhole(() => ask(ctx, caller, VARIANCE)), withoutMeta(response))
})

test('an order sent to its distributor makes the variance report again for its items alone, as it was', async () => {
  const caller = await ctx.newCaller({ environment: 'sandbox' })
  const { gin } = await barWeek(caller)
  const distributor = await createDistributor(ctx, caller)
  await ok(ctx, caller, 'PUT', `/v1/distributors/${distributor.id}/catalog`, [{ inventory_item_id: gin.id, unit: 'bottle', unit_price: 21 }])
  const order = await createOrder(ctx, caller, distributor.id, [{ inventory_item_id: gin.id, quantity: 2, unit: 'bottle' }])
  const cached = withoutMeta(await ask(ctx, caller, VARIANCE))
  // The order's status and its dispatch: no answer about a period reads either.
  await ok(ctx, caller, 'POST', `/v1/orders/${order.id}/submit`)
  const before = await outcomes()
  assert.deepEqual(withoutMeta(await ask(ctx, caller, VARIANCE)), cached)
  assert.deepEqual(await outcomes(), { ...before, refreshes: before.refreshes + 1 })
})

describe('the variance report of a period that has ended, after sales made since', () => {
  /** A sale of the gin two days after the period (its last business day is three days ago). */
  const sellAfterPeriod = ({ pos }: BarWeek) => pos.sell([{ pos_item_id: 'TANQ-BTL', name: 'Tanqueray bottle', quantity: 2, unit_price: 90, sold_at: daysAgo(1, 21) }])

  test('is a hit, with the bytes the report computed again answers', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const week = await barWeek(caller)
    await cachedAnswer(caller, VARIANCE)
    const cached = withoutMeta(await ask(ctx, caller, VARIANCE))
    // The sale writes its line, its usage, a stock movement, the item's stock on hand, the POS item's last
    // sync and the day's rollups: none of it can reach the period.
    await sellAfterPeriod(week)
    const before = await lookups(ctx)
    const hit = await ask(ctx, caller, VARIANCE)
    assert.deepEqual(await lookups(ctx), { hits: before.hits + 1, misses: before.misses }, 'the sale after the period leaves the answer cached')
    assert.deepEqual(withoutMeta(hit), cached)
    assert.deepEqual(await computedWhole(() => ask(ctx, caller, VARIANCE)), cached)
  })

  test('a refit of the demand forecasts leaves it cached: no answer about a period reads them', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const week = await barWeek(caller)
    await sellDaily(ctx, caller, week.gin.id, 28, 2)
    const cached = withoutMeta(await ask(ctx, caller, VARIANCE))
    await refitForecasts(ctx.database.db, caller.tenant, refitClock())
    assert.equal((await ask(ctx, caller, FORECAST)).statusCode, 200, 'the refit stored a forecast')
    const before = await lookups(ctx)
    assert.deepEqual(withoutMeta(await ask(ctx, caller, VARIANCE)), cached)
    assert.deepEqual(await lookups(ctx), { hits: before.hits + 1, misses: before.misses })
  })

  test('the same sale makes the next forecast again for the gin: it reads stock on hand, which a sale may move', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const week = await barWeek(caller)
    await sellDaily(ctx, caller, week.gin.id, 28, 2)
    await cachedAnswer(caller, FORECAST)
    await sellAfterPeriod(week)
    const counted = await outcomes()
    const response = await ask(ctx, caller, FORECAST)
    assert.deepEqual(await outcomes(), { ...counted, refreshes: counted.refreshes + 1 })
    assert.deepEqual(await computedWhole(() => ask(ctx, caller, FORECAST)), withoutMeta(response))
  })
})

describe('the variance report of a period that includes today, after sales made since its counts', () => {
  /** The bar week's report from its first count to today: its windows close at the count three days ago. */
  const askToday = (caller: Caller) => ctx.request('GET', VARIANCE, { key: caller.key, query: { date_from: dateOf(daysAgo(10)), date_to: dateOf(new Date().toISOString()) } })
  const justNow = () => new Date(Date.now() - 60_000).toISOString()

  test('makes only its data quality again, with the bytes of the whole report computed again', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { pos } = await barWeek(caller)
    // A POS item nobody mapped, sold since the closing count: data quality names it with its revenue.
    const negroni = { pos_item_id: 'NEGRONI', name: 'Negroni', quantity: 1, unit_price: 12 }
    await pos.sell([{ ...negroni, sold_at: new Date(Date.now() - 7_200_000).toISOString() }])
    const first = await askToday(caller)
    const unmapped = (response: LightMyRequestResponse) =>
      json(response).data.data_quality.unmapped_pos_items.map((entry: { name: string; revenue: number }) => [entry.name, entry.revenue])
    assert.deepEqual(unmapped(first), [['Negroni', 12]])
    // Sold again now, as the next sync during service brings it.
    await pos.sell([{ ...negroni, sold_at: justNow() }])
    const before = { ...(await lookups(ctx)), refreshes: await refreshes() }
    const refreshed = await askToday(caller)
    assert.deepEqual({ ...(await lookups(ctx)), refreshes: await refreshes() }, { ...before, refreshes: before.refreshes + 1 }, 'a refresh, neither a hit nor a miss')
    assert.deepEqual(json(refreshed).data.items, json(first).data.items)
    assert.deepEqual(unmapped(refreshed), [['Negroni', 24]])
    assert.deepEqual(await computedWhole(() => askToday(caller)), withoutMeta(refreshed))
  })

  /**
   * The report to today after `write`: made again in its data quality alone (a refresh), its items as they
   * were, its bytes those of the whole report computed again. Answers its data.
   */
  async function dataQualityAgainAfter(caller: Caller, write: () => Promise<unknown>) {
    const first = await askToday(caller)
    await write()
    const before = await outcomes()
    const refreshed = await askToday(caller)
    assert.deepEqual(await outcomes(), { ...before, refreshes: before.refreshes + 1 }, 'a refresh, neither a hit nor a miss')
    assert.deepEqual(json(refreshed).data.items, json(first).data.items)
    assert.deepEqual(await computedWhole(() => askToday(caller)), withoutMeta(refreshed))
    return json(refreshed).data
  }

  test('the first sale of a POS item never sold before, made since its counts, makes only its data quality again', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { pos } = await barWeek(caller)
    // A drink new on the menu: its POS item is added to the catalogue with its first line.
    const sellNew = () => pos.sell([{ pos_item_id: 'GIMLET', name: 'Gimlet', quantity: 2, unit_price: 11, sold_at: justNow() }])
    const refreshed = await dataQualityAgainAfter(caller, sellNew)
    const unmapped = refreshed.data_quality.unmapped_pos_items.map((entry: { name: string; revenue: number }) => [entry.name, entry.revenue])
    assert.deepEqual(unmapped, [['Gimlet', 22]])
  })

  test('after a count earlier today, a sale since makes only its data quality again: the windows read no rollup of the count’s business day', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { gin, pos } = await barWeek(caller)
    await count(ctx, caller, [{ item_id: gin.id, quantity: 6 }], new Date(Date.now() - 2 * 3_600_000).toISOString())
    // The sale's rollups are of today's business day, as the count's may be: that day's part of the window is read raw.
    await dataQualityAgainAfter(caller, () => pos.sell([{ pos_item_id: 'TANQ-BTL', name: 'Tanqueray bottle', quantity: 1, unit_price: 90, sold_at: justNow() }]))
  })

  test('a sale recorded late inside its windows makes it again in its context, and shows in its items', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { pos } = await barWeek(caller)
    // Unmapped, so no stock usage and no stored window changes, and sold before, so no new POS item: only
    // the late sale's time tells that it reaches the windows (an unmapped sale like the item is a cause).
    const double = { pos_item_id: 'TANQ-DBL', name: 'Tanqueray double', quantity: 2, unit_price: 14 }
    await pos.sell([{ ...double, sold_at: daysAgo(6, 21) }])
    const first = json(await askToday(caller)).data
    await pos.sell([{ ...double, sold_at: daysAgo(5, 21) }])
    const before = { ...(await lookups(ctx)), refreshes: await refreshes() }
    const response = await askToday(caller)
    assert.deepEqual({ ...(await lookups(ctx)), refreshes: await refreshes() }, { ...before, refreshes: before.refreshes + 1 })
    assert.notDeepEqual(json(response).data.items, first.items)
    assert.deepEqual(await computedWhole(() => askToday(caller)), withoutMeta(response))
  })
})

/** An hour before the close of each of the 28 business days before the refit clock's, oldest last. */
function lastFourWeeks(): string[] {
  const clock = refitClock()
  return Array.from({ length: 28 }, (_, day) => new Date(clock.getTime() - (day + 1) * DAY_MS - 3_600_000).toISOString())
}

/** A bar's gin and rum, each sold every day for four weeks through one channel and forecast (one refit). */
async function forecastBar(caller: Caller) {
  const gin = await createItem(ctx, caller, GIN)
  const rum = await createItem(ctx, caller, { name: 'Havana Club 700ml', size_ml: 700, cost_per_unit: 18, quantity: 9 })
  const pos = await salesChannel(ctx, caller)
  await pos.map('GIN-NOW', { inventory_item_id: gin.id, conversion_factor: 1, conversion_unit: 'bottle' })
  await pos.map('RUM', { inventory_item_id: rum.id, conversion_factor: 1, conversion_unit: 'bottle' })
  await pos.sell(
    lastFourWeeks().flatMap((sold_at) => [
      { pos_item_id: 'GIN-NOW', name: 'Gin bottle', quantity: 2, unit_price: 20, sold_at },
      { pos_item_id: 'RUM', name: 'Rum bottle', quantity: 1, unit_price: 20, sold_at },
    ]),
  )
  await refitForecasts(ctx.database.db, caller.tenant, refitClock())
  return { gin, rum, pos }
}

type ForecastBar = Awaited<ReturnType<typeof forecastBar>>

/**
 * Each kind of write the forecast reads, and what it reaches of a cached forecast: `items`, the lines of
 * the items it names made again beside the kept others (the rum's); `whole`, computed again. `same`: the
 * answer does not change (the write changes what scopes it, not what it shows).
 */
const FORECAST_WRITES: { write: string; reach: 'items' | 'context'; same?: true; change: (caller: Caller, bar: ForecastBar) => Promise<unknown> }[] = [
  { write: 'a count', reach: 'items', change: (caller, { gin }) => count(ctx, caller, [{ item_id: gin.id, quantity: 3 }]) },
  {
    write: 'recorded waste',
    reach: 'items',
    change: (caller, { gin }) =>
      ok(ctx, caller, 'POST', '/v1/inventory/waste', { location: 'main_bar', recorded_by: 'maria', items: [{ item_id: gin.id, quantity: 1, reason: 'breakage' }] }),
  },
  {
    write: 'a mapped sale',
    reach: 'items',
    change: (_caller, { pos }) => pos.sell([{ pos_item_id: 'GIN-NOW', name: 'Gin bottle', quantity: 1, unit_price: 90, sold_at: new Date().toISOString() }]),
  },
  { write: 'a reorder point', reach: 'items', change: (caller, { gin }) => ok(ctx, caller, 'PUT', `/v1/inventory/items/${gin.id}`, { reorder_point: 40 }) },
  { write: 'a refit a day later', reach: 'items', change: (caller) => refitForecasts(ctx.database.db, caller.tenant, new Date(refitClock().getTime() + DAY_MS)) },
  { write: 'a rename', reach: 'context', change: (caller, { gin }) => ok(ctx, caller, 'PUT', `/v1/inventory/items/${gin.id}`, { name: 'Gordon’s 750ml' }) },
  {
    write: 'an unmapped sale',
    reach: 'context',
    same: true,
    change: (_caller, { pos }) => pos.sell([{ pos_item_id: 'NEW-COCKTAIL', name: 'Negroni', quantity: 1, unit_price: 12, sold_at: new Date().toISOString() }]),
  },
  { write: 'a new item', reach: 'context', same: true, change: (caller) => createItem(ctx, caller, { name: 'Campari 700ml', cost_per_unit: 16, quantity: 4 }) },
  { write: 'a setting', reach: 'context', same: true, change: (caller) => ok(ctx, caller, 'PUT', '/v1/settings', { currency: 'EUR' }) },
  {
    // The lines name no location, and both have no country: as it was.
    write: 'the gin moved to the storeroom',
    reach: 'context',
    same: true,
    change: async (caller, { gin }) => {
      await createLocations(ctx, caller, ['storeroom'])
      return ok(ctx, caller, 'PUT', `/v1/inventory/items/${gin.id}`, { location: 'storeroom' })
    },
  },
]

describe('the forecast after a write it reads', () => {
  for (const { write, reach, same, change } of FORECAST_WRITES) {
    const made = reach === 'items' ? 'made again for the gin alone' : 'made again in its context'
    test(`${write}: the next forecast ${same ? 'is as it was' : 'shows it'}, ${made}, with the bytes of the forecast computed whole`, async () => {
      const caller = await ctx.newCaller({ environment: 'sandbox' })
      const bar = await forecastBar(caller)
      const { before, response, after } = await answersAround(caller, FORECAST, reach, () => change(caller, bar))
      if (same) assert.deepEqual(after, before)
      else assert.notDeepEqual(after, before)
      const rumIn = (answer: { forecasts: { inventory_item_id: string }[] }) => answer.forecasts.find((line) => line.inventory_item_id === bar.rum.id)
      if (write !== 'a refit a day later') assert.deepEqual(rumIn(after), rumIn(before), 'the rum is as it was')
      assert.deepEqual(await computedWhole(() => ask(ctx, caller, FORECAST)), withoutMeta(response))
    })
  }

  test('a refit and a rename before the next forecast: made again in its context, the refitted forecasts read again', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { rum } = await forecastBar(caller)
    const { before, response, after } = await answersAround(caller, FORECAST, 'context', async () => {
      await refitForecasts(ctx.database.db, caller.tenant, new Date(refitClock().getTime() + DAY_MS))
      await ok(ctx, caller, 'PUT', `/v1/inventory/items/${rum.id}`, { name: 'Havana Club Añejo 3 700ml' })
    })
    assert.notEqual(after.forecast_period, before.forecast_period, 'the refit a day later moved the forecasts')
    assert.deepEqual(await computedWhole(() => ask(ctx, caller, FORECAST)), withoutMeta(response))
  })

  test('a count of an item without a forecast makes it again as it was; a first forecast of an item computes it whole', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    await forecastBar(caller)
    const tonic = await createItem(ctx, caller, { name: 'Tonic 200ml', cost_per_unit: 1, quantity: 24 })
    const pos = await salesChannel(ctx, caller)
    await pos.map('TONIC', { inventory_item_id: tonic.id, conversion_factor: 1, conversion_unit: 'bottle' })
    const cached = withoutMeta(await ask(ctx, caller, FORECAST))
    await count(ctx, caller, [{ item_id: tonic.id, quantity: 20 }])
    const counted = await outcomes()
    assert.deepEqual(withoutMeta(await ask(ctx, caller, FORECAST)), cached)
    assert.deepEqual(await outcomes(), { ...counted, refreshes: counted.refreshes + 1 })
    // Sold through the mapping made before: the sales and the refit name the tonic alone.
    await pos.sell(lastFourWeeks().map((sold_at) => ({ pos_item_id: 'TONIC', name: 'Tonic', quantity: 4, unit_price: 3, sold_at })))
    await refitForecasts(ctx.database.db, caller.tenant, refitClock())
    const sold = await outcomes()
    const response = await ask(ctx, caller, FORECAST)
    assert.deepEqual(await outcomes(), { ...sold, misses: sold.misses + 1 })
    assert.ok(json(response).data.forecasts.some((line: { inventory_item_id: string }) => line.inventory_item_id === tonic.id))
    assert.deepEqual(await computedWhole(() => ask(ctx, caller, FORECAST)), withoutMeta(response))
  })
})

test('BARSTOCK_REPORT_CACHE_MB=0 caches nothing: every report is computed, no lookup is counted', async (t) => {
  const off = await createTestContext({ env: { BARSTOCK_METRICS_TOKEN: TOKEN, BARSTOCK_REPORT_CACHE_MB: '0' } })
  t.after(() => off.close())
  const caller = await off.newCaller({ environment: 'sandbox' })
  const gin = await createItem(off, caller, GIN)
  await count(off, caller, [{ item_id: gin.id, quantity: 10 }], daysAgo(10))
  await count(off, caller, [{ item_id: gin.id, quantity: 6 }], daysAgo(3))
  const answers = [withoutMeta(await ask(off, caller, VARIANCE)), withoutMeta(await ask(off, caller, VARIANCE))]
  assert.deepEqual(answers[1], answers[0])
  assert.deepEqual(await lookups(off), { hits: 0, misses: 0 })
})
