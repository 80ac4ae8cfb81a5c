import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setTimeout } from 'node:timers/promises'
import { json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createConnection, createPosTestContext } from '../pos/pos-helpers.js'
import { type DemandModel, REFIT_CHUNK_SIZE, refitForecasts, RETRY_DELAY_MS, runDueRefit } from '../../src/analytics/forecast/forecast-refit.js'
import { forecastDemand } from '../../src/analytics/forecast/index.js'
import { scrape } from '../helpers/prometheus.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

const METRICS_TOKEN = 'forecast-refit-metrics-token'
let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext({ env: { BARSTOCK_METRICS_TOKEN: METRICS_TOKEN } })
})
after(() => ctx.close())

const MINUTE_MS = 60_000
/** The workers' clock: Saturday 20 Dec 2025, noon UTC. main_bar (UTC, cut-off 04:00) last closed 19 Dec; forecasts start 20 Dec. */
const NOW = new Date('2025-12-20T12:00:00.000Z')

function dateOf(daysBefore: number, clock = NOW): string {
  return new Date(clock.getTime() - daysBefore * DAY_MS).toISOString().slice(0, 10)
}

/** A sandbox POS connection of the caller, mapping items one POS unit to one item unit, and selling through POST /v1/sales. */
async function posFor(caller: Caller) {
  const connection = await createConnection(ctx, caller)
  let line = 0
  return {
    async map(item: { id: string; unit?: unknown }) {
      const response = await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
        key: caller.key,
        body: { pos_item_id: `PLU-${item.id}`, inventory_item_id: item.id, conversion_factor: 1, conversion_unit: item.unit ?? 'bottle' },
      })
      assert.equal(response.statusCode, 201, response.body)
    },
    /** Sells `quantity` of the item at 11:00 UTC on each `YYYY-MM-DD` day (that business day at main_bar). */
    async sell(item: { id: string }, days: Array<{ day: string; quantity: number; location?: string }>) {
      const sales = days
        .filter(({ quantity }) => quantity > 0)
        .map(({ day, quantity, location }) => ({
          location: location ?? 'main_bar',
          pos_item_id: `PLU-${item.id}`,
          name: 'Drink',
          quantity,
          unit_price: 8,
          sold_at: `${day}T11:00:00.000Z`,
          line_id: `line-${++line}`,
        }))
      const response = await ctx.request('POST', '/v1/sales', { key: caller.key, body: { connection_id: connection.id, sales } })
      assert.equal(response.statusCode, 201, response.body)
    },
  }
}

/** `usage[d]` sold d days before NOW (d = 0 is the open business day: not history yet). */
function history(usage: number[]) {
  return usage.map((quantity, daysBefore) => ({ day: dateOf(daysBefore), quantity }))
}

/** Fri and Sat sell 12, the other days 3: a strong weekly pattern. */
function weekly(days: number) {
  return Array.from({ length: days + 1 }, (_, daysBefore) => {
    if (daysBefore === 0) return 0
    const weekday = new Date(`${dateOf(daysBefore)}T00:00:00Z`).getUTCDay()
    return weekday === 5 || weekday === 6 ? 12 : 3
  })
}

async function forecast(caller: Caller, query = '') {
  return ctx.request('GET', `/v1/analytics/forecast${query}`, { key: caller.key })
}

async function forecastData(caller: Caller, query = '') {
  const response = await forecast(caller, query)
  assert.equal(response.statusCode, 200, response.body)
  return json(response).data
}

function assertError(response: Awaited<ReturnType<TestContext['request']>>, status: number, code: string) {
  assert.equal(response.statusCode, status, response.body)
  assert.equal(json(response).error.code, code)
}

async function storedDaily(itemId: string): Promise<number[]> {
  const row = await ctx.database.db.selectFrom('demand_forecasts').select('daily').where('item_id', '=', itemId).executeTakeFirstOrThrow()
  return (row.daily as unknown[]).map(Number)
}

/** Σ of stored values as the API rounds it (4 decimals), summed in integer millionths to stay exact. */
function sumOf(values: number[]): number {
  const millionths = values.reduce((total, value) => total + Math.round(value * 1e6), 0)
  return Number((millionths / 1e6).toFixed(4))
}

/**
 * Runs every due refit at `now`, as the worker would; the runs of `caller`'s tenant. A history change is
 * due `refitDelayMs` after it (database time): 0 refits it at once.
 */
/** The refits of `callers`' tenants among those the worker runs at `now`, one after another until none is due. */
async function refitsDue(callers: Caller[], now: Date, model?: DemandModel, refitDelayMs = 0) {
  const runs = []
  const ours = (tenant: Caller['tenant']) => callers.some((caller) => caller.tenant.accountId === tenant.accountId && caller.tenant.environment === tenant.environment)
  // Every tenant of this file's database is refitted once at most per clock: a bound, not a loop forever.
  for (let attempt = 0; attempt < 100; attempt++) {
    const { run } = await runDueRefit(ctx.database.db, now, { model, metrics: ctx.metrics, refitDelayMs })
    if (!run) return runs
    if (ours(run.tenant)) runs.push(run)
  }
  throw new Error('refits still due after 100 runs: a refit does not settle')
}

async function refitDue(caller: Caller, now: Date, model?: DemandModel, refitDelayMs = 0) {
  return refitsDue([caller], now, model, refitDelayMs)
}

describe('GET /v1/analytics/forecast', () => {
  test('answers forecast_unavailable without sales history, and with 13 days of it; 14 days give a forecast', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const pos = await posFor(caller)
    const item = await createItem(ctx, caller, { name: 'Gin' })
    await refitForecasts(ctx.database.db, caller.tenant, NOW)
    assertError(await forecast(caller), 400, 'forecast_unavailable')

    await pos.map(item)
    // 13 closed days (19 Dec back to 7 Dec) plus a sale in the open day, which is not history yet.
    await pos.sell(item, history(Array(14).fill(2)))
    const thirteen = await refitForecasts(ctx.database.db, caller.tenant, NOW)
    assert.deepEqual([thirteen.fitted, thirteen.tooShort], [0, 1])
    assertError(await forecast(caller), 400, 'forecast_unavailable')

    await pos.sell(item, [{ day: dateOf(14), quantity: 2 }])
    const fourteen = await refitForecasts(ctx.database.db, caller.tenant, NOW)
    assert.equal(fourteen.fitted, 1)
    const data = await forecastData(caller)
    assert.equal(data.forecasts.length, 1)
    assert.equal(data.forecasts[0].forecasted_demand, 14)
    // No back-test under 28 days: 0.5 × 14 / 28.
    assert.equal(data.forecasts[0].confidence, 0.25)
  })

  test('forecasts a weekly seller from its stored days, with the holidays of the location’s country and a sentence to act on', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const updated = await ctx.request('PUT', '/v1/locations/main_bar', { key: caller.key, body: { country: 'US' } })
    assert.equal(updated.statusCode, 200, updated.body)
    const pos = await posFor(caller)
    const item = await createItem(ctx, caller, { name: 'Lager', unit: 'can', size_ml: 355, category: 'beer', quantity: 30, reorder_point: 12 })
    await pos.map(item)
    await pos.sell(item, history(weekly(70)))
    await refitForecasts(ctx.database.db, caller.tenant, NOW)

    const daily = await storedDaily(item.id)
    assert.equal(daily.length, 30)
    const week = await forecastData(caller)
    assert.equal(week.forecast_period, '2025-12-20/2025-12-26')
    assert.equal(week.location, 'all')
    assert.equal(week.generated_at, NOW.toISOString())
    const [line] = week.forecasts
    assert.equal(line.inventory_item_id, item.id)
    assert.equal(line.current_stock, 30)
    assert.equal(line.forecasted_demand, sumOf(daily.slice(0, 7)))
    assert.equal(line.factors.seasonality, 'weekly')
    assert.equal(line.factors.trend, 'stable')
    assert.ok(line.factors.events.includes('Christmas Day'), line.factors.events.join(', '))
    assert.ok(line.confidence >= 0.8 && line.confidence <= 1, String(line.confidence))

    const fortnight = await forecastData(caller, '?days_ahead=14')
    assert.equal(fortnight.forecast_period, '2025-12-20/2026-01-02')
    assert.equal(fortnight.forecasts[0].forecasted_demand, sumOf(daily.slice(0, 14)))
    assert.ok(fortnight.forecasts[0].factors.events.includes("New Year's Day"), fortnight.forecasts[0].factors.events.join(', '))

    // Saturday 20 sells 12, Sunday to Thursday 3 each: 30 cans cover 27 through Thu 25 Dec, not Friday's 12
    // more; the close falls below 12 cans on Tue 23 Dec (30 − 12 − 3 − 3 − 3 = 9).
    assert.equal(
      line.recommendation,
      'Stock covers 6 days at the forecast rate (through Thu 25 Dec); order by Tue 23 Dec, when it is forecast to fall below the reorder point of 12 can.',
    )
  })

  test('answers what a later refit stored: the forecasts a server keeps parsed are read again once their row changes', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const pos = await posFor(caller)
    const item = await createItem(ctx, caller, { name: 'Cider', unit: 'can', quantity: 500 })
    await pos.map(item)
    await pos.sell(item, history(weekly(70)))
    await refitForecasts(ctx.database.db, caller.tenant, NOW)
    const first = (await forecastData(caller)).forecasts[0]
    assert.equal(first.forecasted_demand, sumOf((await storedDaily(item.id)).slice(0, 7)))

    // Late sales of the last fortnight, then a refit at the same clock: the stored days change, the item does not.
    await pos.sell(item, history(Array.from({ length: 15 }, (_, daysBefore) => (daysBefore === 0 ? 0 : 20))))
    await refitForecasts(ctx.database.db, caller.tenant, NOW)
    const refitted = await storedDaily(item.id)
    const second = (await forecastData(caller)).forecasts[0]
    assert.equal(second.forecasted_demand, sumOf(refitted.slice(0, 7)))
    assert.notEqual(second.forecasted_demand, first.forecasted_demand)
  })

  test('a line answered before follows its item: a new name, unit, reorder point or location country shows in the next answer', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const pos = await posFor(caller)
    const item = await createItem(ctx, caller, { name: 'Stout', unit: 'can', quantity: 40, reorder_point: 5 })
    await pos.map(item)
    await pos.sell(item, history(weekly(70)))
    await refitForecasts(ctx.database.db, caller.tenant, NOW)
    const first = (await forecastData(caller)).forecasts[0]
    assert.match(first.recommendation, /reorder point of 5 can\b/)
    assert.deepEqual(first.factors.events, [])

    const updated = await ctx.request('PUT', `/v1/inventory/items/${item.id}`, { key: caller.key, body: { name: 'Dry Stout', reorder_point: 8, unit: 'bottle' } })
    assert.equal(updated.statusCode, 200, updated.body)
    const located = await ctx.request('PUT', '/v1/locations/main_bar', { key: caller.key, body: { country: 'US' } })
    assert.equal(located.statusCode, 200, located.body)
    const second = (await forecastData(caller)).forecasts[0]
    assert.equal(second.name, 'Dry Stout')
    assert.match(second.recommendation, /reorder point of 8 bottle\b/)
    assert.ok(second.factors.events.includes('Christmas Day'), second.factors.events.join(', '))
  })

  test('filters by location and category, and answers its codes for a bad days_ahead, an unknown location and a missing permission', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const created = await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'rooftop', name: 'Rooftop' } })
    assert.equal(created.statusCode, 201, created.body)
    const pos = await posFor(caller)
    const vodka = await createItem(ctx, caller, { name: 'Vodka' })
    const cider = await createItem(ctx, caller, { name: 'Cider', category: 'cider', location: 'rooftop' })
    await pos.map(vodka)
    await pos.map(cider)
    await pos.sell(vodka, history(Array(30).fill(1)))
    await pos.sell(
      cider,
      history(Array(30).fill(4)).map((sale) => ({ ...sale, location: 'rooftop' })),
    )
    await refitForecasts(ctx.database.db, caller.tenant, NOW)

    const names = (data: any) => data.forecasts.map((line: any) => line.name)
    assert.deepEqual(names(await forecastData(caller)), ['Cider', 'Vodka'])
    const rooftop = await forecastData(caller, '?location=rooftop')
    assert.deepEqual([rooftop.location, names(rooftop)], ['rooftop', ['Cider']])
    assert.deepEqual(rooftop.forecasts[0].factors.events, [], 'no country, no holidays')
    assert.deepEqual(names(await forecastData(caller, '?category=spirits')), ['Vodka'])
    assertError(await forecast(caller, '?category=wine'), 400, 'forecast_unavailable')
    assertError(await forecast(caller, '?location=cellar'), 404, 'location_not_found')
    for (const days of ['0', '31', 'seven']) assertError(await forecast(caller, `?days_ahead=${days}`), 400, 'invalid_parameter')
    assertError(await forecast(caller, '?category=cocktails'), 400, 'invalid_parameter')

    const ordering = await ctx.keyFor(caller, ['ordering:read', 'inventory:read'])
    const denied = await ctx.request('GET', '/v1/analytics/forecast', { key: ordering })
    assertError(denied, 403, 'insufficient_permissions')
    const reader = await ctx.keyFor(caller, ['analytics:read'])
    assert.equal((await ctx.request('GET', '/v1/analytics/forecast', { key: reader })).statusCode, 200)
  })

  test('forecast_unavailable tells when the refit of new history is due: by default 60 s after the first change not yet reflected, which later imports do not move', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const pos = await posFor(caller)
    const item = await createItem(ctx, caller, { name: 'Amaro' })
    await pos.map(item)
    const importStarted = Date.now()
    await pos.sell(item, history(Array(29).fill(2)))
    const importEnded = Date.now()

    const refused = await forecast(caller)
    assertError(refused, 400, 'forecast_unavailable')
    const { details, message } = json(refused).error
    const nextRefitAt = Date.parse(details.next_refit_at)
    assert.equal(new Date(nextRefitAt).toISOString(), details.next_refit_at)
    assert.ok(nextRefitAt >= importStarted + 60_000 && nextRefitAt <= importEnded + 60_000, `${details.next_refit_at}: 60 s after the import`)
    assert.match(message, /at most 60 s after sales history changes; the next refit is due at /)

    // A second import of the burst joins the same refit.
    await pos.sell(item, [{ day: dateOf(30), quantity: 2 }])
    assert.equal(json(await forecast(caller)).error.details.next_refit_at, details.next_refit_at)
    const series = await ctx.request('GET', `/v1/analytics/forecast/items/${item.id}`, { key: caller.key })
    assertError(series, 400, 'forecast_unavailable')
    assert.equal(json(series).error.details.next_refit_at, details.next_refit_at)
  })
})

describe('forecast refits', () => {
  test('refit when a business day closes or history changes: a late sale changes the next refit, a sale today does not', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const pos = await posFor(caller)
    const item = await createItem(ctx, caller, { name: 'Rum' })
    await pos.map(item)
    await pos.sell(item, history(Array(29).fill(2)))
    const [first] = await refitDue(caller, NOW)
    assert.equal(first?.reason, 'scheduled')
    const before = await forecastData(caller)
    assert.equal(before.forecasts[0].forecasted_demand, 14)

    // Nothing changed: not due again before main_bar's day closes (21 Dec 04:00).
    const later = new Date(NOW.getTime() + 10 * MINUTE_MS)
    assert.deepEqual(await refitDue(caller, later), [])
    // A sale in the open business day is not history yet.
    await pos.sell(item, [{ day: dateOf(0), quantity: 5 }])
    assert.deepEqual(await refitDue(caller, later), [])

    // Sold yesterday (19 Dec), imported now: history changed.
    await pos.sell(item, [{ day: dateOf(1), quantity: 30 }])
    const [late] = await refitDue(caller, later)
    assert.equal(late?.reason, 'history_changed')
    const after = await forecastData(caller)
    assert.notEqual(after.forecasts[0].forecasted_demand, before.forecasts[0].forecasted_demand)
    assert.equal(after.generated_at, later.toISOString())

    // The business day closes: due again, and the forecast moves on a day.
    const nextDay = new Date('2025-12-21T04:00:00.000Z')
    assert.deepEqual(await refitDue(caller, new Date(nextDay.getTime() - 1)), [])
    const [closed] = await refitDue(caller, nextDay)
    assert.equal(closed?.reason, 'scheduled')
    assert.equal((await forecastData(caller)).forecast_period, '2025-12-21/2025-12-27')
  })

  test("one pass reads every tenant's history changes at once: a late sale refits its own tenant and no other", async () => {
    const bars = []
    for (let index = 0; index < 3; index++) {
      const caller = await ctx.newCaller({ environment: 'sandbox' })
      const pos = await posFor(caller)
      const item = await createItem(ctx, caller, { name: 'Rum' })
      await pos.map(item)
      await pos.sell(item, history(Array(29).fill(2)))
      bars.push({ caller, pos, item })
    }
    const callers = bars.map((bar) => bar.caller)
    assert.equal((await refitsDue(callers, NOW)).length, 3)
    const later = new Date(NOW.getTime() + 10 * MINUTE_MS)
    assert.deepEqual(await refitsDue(callers, later), [])

    // The middle one of the three sells late: its refit runs, its neighbours' do not.
    const middle = bars[1]!
    await middle.pos.sell(middle.item, [{ day: dateOf(1), quantity: 30 }])
    const runs = await refitsDue(callers, later)
    assert.deepEqual(
      runs.map((run) => [run.tenant.accountId, run.reason]),
      [[middle.caller.tenant.accountId, 'history_changed']],
    )
  })

  test('a history change is refitted the delay after the first change not yet reflected: later changes of the burst join that refit, never pushing it out', async () => {
    // Long enough that a loaded machine (two sales imports and two checks before it runs out) keeps to it.
    const delayMs = 5000
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const pos = await posFor(caller)
    const item = await createItem(ctx, caller, { name: 'Mezcal' })
    await pos.map(item)
    await pos.sell(item, history(Array(29).fill(2)))
    assert.equal((await refitDue(caller, NOW, undefined, delayMs))[0]?.reason, 'scheduled')
    const before = await storedDaily(item.id)
    const later = new Date(NOW.getTime() + MINUTE_MS)

    const firstImportStarted = Date.now()
    await pos.sell(item, [{ day: dateOf(4), quantity: 10 }])
    assert.deepEqual(await refitDue(caller, later, undefined, delayMs), [], 'not due before the delay')
    await setTimeout(delayMs / 2)
    const secondImportStarted = Date.now()
    await pos.sell(item, [{ day: dateOf(3), quantity: 10 }])
    assert.deepEqual(await refitDue(caller, later, undefined, delayMs), [])

    // Due delayMs after the first import, not after the second: one refit sees both.
    let runs: Awaited<ReturnType<typeof refitDue>> = []
    while (runs.length === 0) {
      runs = await refitDue(caller, later, undefined, delayMs)
      if (runs.length === 0) await setTimeout(25)
    }
    const refittedAt = Date.now()
    assert.deepEqual(
      runs.map((run) => run.reason),
      ['history_changed'],
    )
    assert.ok(refittedAt >= firstImportStarted + delayMs, `refitted ${refittedAt - firstImportStarted} ms after the first import`)
    assert.ok(refittedAt < secondImportStarted + delayMs, `refitted ${refittedAt - secondImportStarted} ms after the second import: the delay runs from the first`)
    const coalesced = await storedDaily(item.id)
    assert.notDeepEqual(coalesced, before)
    await refitForecasts(ctx.database.db, caller.tenant, later)
    assert.deepEqual(await storedDaily(item.id), coalesced, 'the refit saw both imports')
    await setTimeout(delayMs)
    assert.deepEqual(await refitDue(caller, later, undefined, delayMs), [], 'nothing changed since')
  })

  test('a refit whose fit throws keeps the previous forecast and is retried later', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const pos = await posFor(caller)
    const items = []
    // More items than a chunk, so the failure and the successes land in different transactions.
    for (let index = 0; index < REFIT_CHUNK_SIZE + 2; index++) {
      const item = await createItem(ctx, caller, { name: `Wine ${String(index).padStart(2, '0')}`, category: 'wine' })
      await pos.map(item)
      items.push(item)
    }
    for (const item of items) await pos.sell(item, history(Array(20).fill(1)))
    await refitDue(caller, NOW)
    const before = await forecastData(caller)
    assert.equal(before.forecasts.length, items.length)

    const failing = items[REFIT_CHUNK_SIZE]!.id
    const flaky: DemandModel = (series, itemId) => {
      if (itemId === failing) throw new Error('the model fell over')
      return forecastDemand(series)
    }
    for (const item of items) await pos.sell(item, [{ day: dateOf(1), quantity: 9 }])
    const soon = new Date(NOW.getTime() + MINUTE_MS)
    const refits = 'barstock_forecast_refits_total'
    const metricsBefore = await scrape(ctx, METRICS_TOKEN)
    const [failed] = await refitDue(caller, soon, flaky)
    const metricsAfter = await scrape(ctx, METRICS_TOKEN)
    assert.equal(metricsAfter.value(refits, { outcome: 'partial' }) - metricsBefore.value(refits, { outcome: 'partial' }), 1, 'counted as a partial refit')
    assert.deepEqual(
      failed?.result?.failed.map((failure) => failure.itemId),
      [failing],
    )
    assert.equal(failed?.result?.fitted, items.length - 1)
    const partial = await forecastData(caller)
    const demandOf = (data: any, id: string) => data.forecasts.find((line: any) => line.inventory_item_id === id).forecasted_demand
    assert.equal(demandOf(partial, failing), demandOf(before, failing), 'the failed item keeps its forecast')
    assert.notEqual(demandOf(partial, items[0]!.id), demandOf(before, items[0]!.id))
    assert.equal(partial.generated_at, NOW.toISOString(), 'the oldest forecast shown is the kept one')

    // Retried after the delay (not before), on the model that works now.
    assert.deepEqual(await refitDue(caller, new Date(soon.getTime() + RETRY_DELAY_MS - 1)), [])
    const retryAt = new Date(soon.getTime() + RETRY_DELAY_MS)
    const [retried] = await refitDue(caller, retryAt)
    assert.deepEqual(retried?.result?.failed, [])
    const healed = await forecastData(caller)
    assert.equal(demandOf(healed, failing), demandOf(healed, items[0]!.id))
    assert.equal(healed.generated_at, retryAt.toISOString())
  })

  test('a refit another worker holds is not run twice', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { claimRefit } = await import('../../src/analytics/forecast/forecast.repository.js')
    await refitDue(caller, NOW)
    const dayLater = new Date(NOW.getTime() + DAY_MS)
    assert.ok(await claimRefit(ctx.database.db, caller.tenant, 60_000), 'the first worker holds it')
    assert.equal(await claimRefit(ctx.database.db, caller.tenant, 60_000), undefined, 'the second cannot claim it')
    assert.deepEqual(await refitDue(caller, dayLater), [], 'held by the other worker')
  })
})
