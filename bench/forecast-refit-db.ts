import { monitorEventLoopDelay } from 'node:perf_hooks'
import { refitForecasts } from '../src/analytics/forecast/forecast-refit.js'
import { createItem } from '../test/helpers/inventory.js'
import { createConnection, createPosTestContext } from '../test/pos/pos-helpers.js'
import { syntheticSeries } from './forecast-series.js'
import { DAY_MS } from '../src/platform/zoned-time.js'

/**
 * The stored-forecast refit end to end on the embedded database (or DATABASE_URL): ITEMS items (default
 * 200) with 180 days of sales each, imported through POST /v1/sales, then refitForecasts for the tenant,
 * timing the refit and the longest the event loop was held. Run: tsc -p . && node dist/bench/forecast-refit-db.js
 */

const ITEMS = Number(process.env.ITEMS ?? 200)
const DAYS = 180
const NOW = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS / 2)

async function main(): Promise<void> {
  const ctx = await createPosTestContext()
  const caller = await ctx.newCaller({ environment: 'sandbox' })
  const connection = await createConnection(ctx, caller)
  const series = syntheticSeries(Math.ceil(ITEMS / 8), DAYS, 700_000).slice(0, ITEMS)
  let sales: object[] = []
  const flush = async () => {
    if (sales.length === 0) return
    const response = await ctx.request('POST', '/v1/sales', { key: caller.key, body: { connection_id: connection.id, sales } })
    if (response.statusCode !== 201) throw new Error(response.body)
    sales = []
  }
  for (const [index, { values }] of series.entries()) {
    const item = await createItem(ctx, caller, { name: `Item ${index}` })
    await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
      key: caller.key,
      body: { pos_item_id: `P${index}`, inventory_item_id: item.id, conversion_factor: 1, conversion_unit: 'bottle' },
    })
    for (const [day, value] of values.entries()) {
      if (value <= 0) continue
      const soldAt = new Date(NOW.getTime() - (values.length - day) * DAY_MS - 3_600_000).toISOString()
      sales.push({ location: 'main_bar', pos_item_id: `P${index}`, name: `Item ${index}`, quantity: Math.round(value * 1000) / 1000, unit_price: 5, sold_at: soldAt })
      if (sales.length === 10_000) await flush()
    }
  }
  await flush()
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  const started = performance.now()
  const result = await refitForecasts(ctx.database.db, caller.tenant, NOW)
  const totalMs = performance.now() - started
  delay.disable()
  console.log(`| database | items | days | refit total | per item | longest event-loop block | failed |`)
  console.log(`|---|---:|---:|---:|---:|---:|---:|`)
  console.log(
    `| ${ctx.database.kind} | ${result.fitted} | ${DAYS} | ${(totalMs / 1000).toFixed(1)} s | ${(totalMs / result.fitted).toFixed(1)} ms | ${(delay.max / 1e6).toFixed(0)} ms | ${result.failed.length} |`,
  )
  await ctx.close()
}

await main()
