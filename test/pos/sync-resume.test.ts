import assert from 'node:assert/strict'
import type { ServerResponse } from 'node:http'
import { after, before, test } from 'node:test'
import type { BackgroundLoop } from '../../src/platform/background.js'
import type { SimulatorHandler } from '../../src/pos/adapter.js'
import { sendJson, startSimulatorServer, type RunningSimulator } from '../../src/pos/simulation/simulator-server.js'
import { REVEL_PAGE_SIZE } from '../../src/pos/vendors/revel/revel.client.js'
import { revelVendor } from '../../src/pos/vendors/revel/index.js'
import { json, type TestContext } from '../helpers/context.js'
import { groundTruth, mapEveryPosItem, unitsTaken } from './vendors/ground-truth-helpers.js'
import { createPosTestContext, runSync, startWorker, waitForSync } from './pos-helpers.js'

/**
 * A run the vendor stops part way with a Retry-After longer than BARSTOCK_POS_RETRY_WAIT_SECONDS fails
 * (rate_limited), keeps the pages it read, and the next run asks for the page that failed first, not
 * the first page: in the end every sale is counted once, as the simulator's ground truth says.
 */

const DAY_MS = 86_400_000
const NOON_MS = 12 * 3_600_000
const SEED = 31
const HISTORY_DAYS = 6
/** The Order page of the sales window (1-based) that the simulator refuses with a long 429. */
const REFUSED_PAGE = 3
const RETRY_AFTER_SECONDS = 7_200

let historyStart = 0
let clockMs = 0
const clock = () => new Date(clockMs)
let handler: SimulatorHandler
let simulator: RunningSimulator
let ctx: TestContext
let worker: BackgroundLoop

interface Exchange {
  url: URL
  body?: { objects?: { id: number }[] }
}
const exchanges: Exchange[] = []
/** Counts the window's Order pages while armed; the REFUSED_PAGE-th is answered 429 (once). */
const limit = { armed: false, pagesServed: 0 }

function setClock(at: number): void {
  clockMs = at
  handler = revelVendor.createSimulator({ seed: SEED, historyDays: Math.max(clockMs - historyStart, 1) / DAY_MS, now: clock })
}

const isWindowOrderPage = (url: URL) => url.pathname === '/Order/' && url.searchParams.has('updated_date__gte')

before(async () => {
  simulator = await startSimulatorServer((req, res) => {
    const exchange: Exchange = { url: new URL(req.url ?? '/', 'http://simulator') }
    exchanges.push(exchange)
    if (limit.armed && isWindowOrderPage(exchange.url) && ++limit.pagesServed === REFUSED_PAGE) {
      limit.armed = false
      sendJson(res, 429, { error: 'Too many requests' }, { 'Retry-After': String(RETRY_AFTER_SECONDS) })
      return
    }
    recordBody(res, exchange)
    handler(req, res)
  })
  ctx = await createPosTestContext({ env: { BARSTOCK_POS_BASE_URLS: `revel=${simulator.url}` } })
  worker = await startWorker(ctx, clock)
})
after(async () => {
  await worker.stop()
  await ctx.close()
  await simulator.close()
})

function recordBody(res: ServerResponse, exchange: Exchange): void {
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse
  res.end = ((chunk?: unknown) => {
    if (typeof chunk === 'string' && res.statusCode === 200) exchange.body = JSON.parse(chunk)
    return end(chunk)
  }) as ServerResponse['end']
}

test('a long 429 on page 3 fails the run; the next run asks for page 3 first and the stock ends at the ground truth', async () => {
  const caller = await ctx.newCaller({ environment: 'production' })
  historyStart = Math.ceil((Date.now() + 10 * 60_000 - NOON_MS) / DAY_MS) * DAY_MS + NOON_MS
  setClock(historyStart)
  const created = await ctx.request('POST', '/v1/pos/connections', {
    key: caller.key,
    body: { pos_type: 'revel', name: 'Revel bar', credentials: revelVendor.exampleCredentials, sync_frequency: 'daily' },
  })
  assert.equal(created.statusCode, 201, created.body)
  const connection = json(created).data as { id: string; first_sync_id: string }
  assert.equal((await waitForSync(ctx, caller, connection.first_sync_id)).status, 'completed')
  const items = await mapEveryPosItem(ctx, caller, connection.id, 'revel')

  setClock(historyStart + (HISTORY_DAYS - 2) * DAY_MS)
  Object.assign(limit, { armed: true, pagesServed: 0 })
  const failedFrom = exchanges.length
  const failed = await runSync(ctx, caller, connection.id, 'incremental')
  assert.equal(failed.status, 'failed')
  assert.equal(failed.error.code, 'rate_limited')
  assert.match(failed.error.message, /retry after 7200 s; the \d+ new lines read before were kept, and the next run resumes where this one stopped/)
  const failedPages = exchanges.slice(failedFrom).filter((exchange) => isWindowOrderPage(exchange.url))
  assert.equal(failedPages.length, REFUSED_PAGE, 'the run stopped at the refused page')
  const refused = failedPages[REFUSED_PAGE - 1]!.url
  assert.equal(refused.searchParams.get('offset'), String((REFUSED_PAGE - 1) * REVEL_PAGE_SIZE))
  const lastOrderTaken = failedPages[REFUSED_PAGE - 2]!.body?.objects?.at(-1)?.id
  assert.ok(lastOrderTaken !== undefined)
  const keptBefore = await unitsTaken(ctx, caller, items)
  assert.ok(keptBefore.size > 0, 'the pages read before the limit took their stock')

  setClock(historyStart + HISTORY_DAYS * DAY_MS)
  const resumedFrom = exchanges.length
  const resumed = await runSync(ctx, caller, connection.id, 'incremental')
  assert.equal(resumed.status, 'completed', JSON.stringify(resumed.error))
  const [firstPage, ...laterPages] = exchanges.slice(resumedFrom).filter((exchange) => isWindowOrderPage(exchange.url))
  // Page 3 of the failed window: its orders after the last one taken (by id, so orders updated again meanwhile shift nothing).
  assert.equal(firstPage?.url.searchParams.get('updated_date__gte'), refused.searchParams.get('updated_date__gte'))
  assert.equal(firstPage?.url.searchParams.get('updated_date__lt'), refused.searchParams.get('updated_date__lt'))
  assert.equal(firstPage?.url.searchParams.get('id__gt'), String(lastOrderTaken))
  assert.equal(firstPage?.url.searchParams.get('offset'), '0')
  const pagesOfFailedWindow = laterPages.filter((exchange) => exchange.url.searchParams.get('updated_date__lt') === refused.searchParams.get('updated_date__lt'))
  assert.ok(pagesOfFailedWindow.every((exchange) => exchange.url.searchParams.get('id__gt') === String(lastOrderTaken)), 'no page of the failed window is read from its start again')

  assert.deepEqual(await unitsTaken(ctx, caller, items), groundTruth(SEED, new Date(historyStart), clock(), HISTORY_DAYS))
  // A third run finds no checkpoint left: it reads from the cursor, from the first page.
  const third = await runSync(ctx, caller, connection.id, 'incremental')
  assert.equal(third.status, 'completed')
  assert.equal(third.results.sales_synced, 0)
  assert.deepEqual(await unitsTaken(ctx, caller, items), groundTruth(SEED, new Date(historyStart), clock(), HISTORY_DAYS))
})
