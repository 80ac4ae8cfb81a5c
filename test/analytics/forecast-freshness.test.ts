import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { setTimeout } from 'node:timers/promises'
import { startForecastWorker } from '../../src/analytics/forecast/forecast-refit.js'
import type { BackgroundLoop } from '../../src/platform/background.js'
import { json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createConnection, createPosTestContext } from '../pos/pos-helpers.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

/**
 * Stored forecasts follow new history within BARSTOCK_FORECAST_REFIT_DELAY_SECONDS, with the real
 * forecast worker on the real clock (forecast.test.ts moves an injected one).
 */
const DELAY_SECONDS = 1

let ctx: TestContext
let worker: BackgroundLoop | undefined
before(async () => {
  ctx = await createPosTestContext({ env: { BARSTOCK_FORECAST_REFIT_DELAY_SECONDS: String(DELAY_SECONDS) } })
  worker = await startForecastWorker({ config: ctx.config, database: ctx.database, logger: ctx.app.log, metrics: ctx.metrics })
})
after(async () => {
  await worker?.stop()
  await ctx?.close()
})

/** Polls `check` every 50 ms until it answers something, or fails after `timeoutMs`. */
async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const answer = await check()
    if (answer !== undefined) return answer
    assert.ok(Date.now() < deadline, `${what}: not within ${timeoutMs} ms`)
    await setTimeout(50)
  }
}

test(`a fresh account that imports 28 days of sales has forecasts within ${DELAY_SECONDS} s and a few more; until then forecast_unavailable says when the refit is due`, async () => {
  const caller = await ctx.newCaller({ environment: 'sandbox' })
  const forecast = () => ctx.request('GET', '/v1/analytics/forecast', { key: caller.key })
  const connection = await createConnection(ctx, caller)
  const items = [await createItem(ctx, caller, { name: 'Gin' }), await createItem(ctx, caller, { name: 'Rye' })]
  for (const item of items) {
    const mapped = await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
      key: caller.key,
      body: { pos_item_id: `PLU-${item.id}`, inventory_item_id: item.id, conversion_factor: 1, conversion_unit: 'bottle' },
    })
    assert.equal(mapped.statusCode, 201, mapped.body)
  }
  // The worker's first refit of the new account (nothing to fit yet) is done once the next one is ahead:
  // the one when a business day closes. The import below is then a change of history.
  await eventually(
    async () => {
      const nextRefitAt = json(await forecast()).error.details.next_refit_at
      return nextRefitAt && Date.parse(nextRefitAt) > Date.now() ? nextRefitAt : undefined
    },
    30_000,
    'the first refit of the account',
  )

  const sales = items.flatMap((item, index) =>
    Array.from({ length: 28 }, (_, day) => ({
      location: 'main_bar',
      pos_item_id: `PLU-${item.id}`,
      name: item.name,
      quantity: 2 + index + (day % 7 === 0 ? 3 : 0),
      unit_price: 9,
      sold_at: new Date(Date.now() - (day + 1) * DAY_MS).toISOString(),
      line_id: `line-${item.id}-${day}`,
    })),
  )
  const importStarted = Date.now()
  const imported = await ctx.request('POST', '/v1/sales', { key: caller.key, body: { connection_id: connection.id, sales } })
  assert.equal(imported.statusCode, 201, imported.body)
  const importEnded = Date.now()

  const refused = await forecast()
  assert.equal(refused.statusCode, 400, refused.body)
  assert.equal(json(refused).error.code, 'forecast_unavailable')
  const nextRefitAt = Date.parse(json(refused).error.details.next_refit_at)
  assert.ok(
    nextRefitAt >= importStarted + DELAY_SECONDS * 1000 && nextRefitAt <= importEnded + DELAY_SECONDS * 1000,
    `next_refit_at ${json(refused).error.details.next_refit_at} is ${DELAY_SECONDS} s after the import`,
  )

  const report = await eventually(
    async () => {
      const response = await forecast()
      return response.statusCode === 200 ? json(response).data : undefined
    },
    DELAY_SECONDS * 1000 + 5000,
    'forecasts after the import',
  )
  assert.deepEqual(
    report.forecasts.map((line: { name: string }) => line.name),
    ['Gin', 'Rye'],
  )
  assert.ok(Date.parse(report.generated_at) >= importStarted, `fitted at ${report.generated_at}, after the import`)
})
