import assert from 'node:assert/strict'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { test } from 'node:test'
import { Readable } from 'node:stream'
import type { PosType, PosVendor, SimulatorHandler, SimulatorOptions } from '../../src/pos/vendors/adapter.js'
import { readBody, sendJson, startSimulatorServer } from '../../src/pos/simulation/simulator-server.js'
import { findVendor } from '../../src/pos/vendors/vendor-registry.js'
import { REVEL_PAGE_SIZE } from '../../src/pos/vendors/revel/revel.client.js'
import { createSquareSimulator, DEFAULT_SQUARE_SIMULATOR_CONFIG } from '../../src/pos/vendors/square/square.simulator.js'
import { type Caller, json } from '../helpers/context.js'
import { groundTruth, mapEveryPosItem, unitsTaken } from './vendors/ground-truth-helpers.js'
import { runSync, usePosFixture, waitForSync } from './pos-helpers.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

/**
 * A run the vendor stops part way (a Retry-After longer than BARSTOCK_POS_RETRY_WAIT_SECONDS, or one
 * whose wait would take the run past BARSTOCK_POS_RUN_BUDGET_SECONDS) fails with rate_limited, keeps the
 * pages it read, and the next run takes the listing up where it stopped instead of at its first page: in
 * the end every sale is counted once, as the simulator's ground truth says. One test per vendor that
 * resumes; the others start over (docs/pos.md).
 */

const NOON_MS = 12 * 3_600_000
const SEED = 31
const HISTORY_DAYS = 6
const RETRY_AFTER_SECONDS = 7_200
const RUN_BUDGET_SECONDS = 600
/** Square orders a page in these tests, so a few days take several pages (Square's limit is a maximum). */
const SQUARE_ORDERS_PER_PAGE = 100

let historyStart = 0
let clockMs = 0
const clock = () => new Date(clockMs)

/** Each vendor's simulator as of the clock: the bar's history runs from historyStart to the clock. */
const handlers = new Map<PosType, SimulatorHandler>()

function simulatorOf(posType: PosType, options: SimulatorOptions): SimulatorHandler {
  if (posType === 'square') return createSquareSimulator(options, { ...DEFAULT_SQUARE_SIMULATOR_CONFIG, ordersPerPage: SQUARE_ORDERS_PER_PAGE })
  return (findVendor(posType) as PosVendor).createSimulator(options)
}

function setClock(at: number): void {
  clockMs = at
  const historyDays = Math.max(clockMs - historyStart, 1) / DAY_MS
  for (const posType of RESUMABLE) handlers.set(posType, simulatorOf(posType, { seed: SEED, historyDays, now: clock }))
}

/** A request a simulator saw: its body as JSON (or text), and its answer when it was 200. */
interface Exchange {
  posType: PosType
  method: string
  url: URL
  body: unknown
  status?: number
  answer?: any
}
const exchanges: Exchange[] = []

/**
 * While armed, counts one vendor's sales pages and answers the `refusedPage`-th 429 with the vendor's
 * error body (once); at `jumpAtPage` it first moves the run's clock on by `jumpMs` (time the run spent).
 */
const limit = {
  armed: false,
  posType: undefined as PosType | undefined,
  refusedPage: 0,
  retryAfterSeconds: RETRY_AFTER_SECONDS,
  jumpAtPage: 0,
  jumpMs: 0,
  pagesServed: 0,
}

/** How each vendor answers a 429, and which of its requests read the sales listing. */
const VENDORS = {
  revel: {
    isSalesPage: (exchange: Exchange) => exchange.url.pathname === '/Order/' && exchange.url.searchParams.has('updated_date__gte'),
    tooManyRequests: { error: 'Too many requests' },
  },
  square: {
    isSalesPage: (exchange: Exchange) => exchange.url.pathname === '/v2/orders/search',
    tooManyRequests: { errors: [{ category: 'RATE_LIMIT_ERROR', code: 'RATE_LIMITED', detail: 'Too many requests' }] },
  },
  spoton: {
    isSalesPage: (exchange: Exchange) => exchange.url.pathname.endsWith('/orders'),
    tooManyRequests: { message: 'Too many requests', code: 'TOO_MANY_REQUESTS' },
  },
  simphony: {
    isSalesPage: (exchange: Exchange) => exchange.url.pathname.endsWith('/getGuestChecks'),
    tooManyRequests: { errorCode: 42_900, message: 'Too many requests' },
  },
} as const
type ResumableVendor = keyof typeof VENDORS
const RESUMABLE = Object.keys(VENDORS) as ResumableVendor[]

const isSalesPage = (exchange: Exchange) => VENDORS[exchange.posType as ResumableVendor].isSalesPage(exchange)

function recording(posType: ResumableVendor): SimulatorHandler {
  return (req, res) => void serveRecorded(posType, req, res)
}

async function serveRecorded(posType: ResumableVendor, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const text = await readBody(req)
  const exchange: Exchange = { posType, method: req.method ?? 'GET', url: new URL(req.url ?? '/', 'http://simulator'), body: parsed(text) }
  exchanges.push(exchange)
  if (limit.armed && limit.posType === posType && isSalesPage(exchange)) {
    limit.pagesServed++
    if (limit.pagesServed === limit.jumpAtPage) clockMs += limit.jumpMs
    if (limit.pagesServed === limit.refusedPage) {
      limit.armed = false
      exchange.status = 429
      sendJson(res, 429, VENDORS[posType].tooManyRequests, { 'Retry-After': String(limit.retryAfterSeconds) })
      return
    }
  }
  recordAnswer(res, exchange)
  // The simulator reads the body again: hand it a request that replays it.
  const replay = Object.assign(Readable.from(text ? [text] : []), { method: req.method, url: req.url, headers: req.headers, socket: req.socket })
  handlers.get(posType)?.(replay as unknown as IncomingMessage, res)
}

function parsed(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined
  } catch {
    return text
  }
}

function recordAnswer(res: ServerResponse, exchange: Exchange): void {
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse
  res.end = ((chunk?: unknown) => {
    exchange.status = res.statusCode
    if (typeof chunk === 'string' && res.statusCode === 200) exchange.answer = JSON.parse(chunk)
    return end(chunk)
  }) as ServerResponse['end']
}

const pos = usePosFixture(Object.fromEntries(RESUMABLE.map((posType) => [posType, () => startSimulatorServer(recording(posType))])), {
  clock,
  env: { BARSTOCK_POS_RUN_BUDGET_SECONDS: String(RUN_BUDGET_SECONDS) },
})

/** A bar on `posType` from the next noon: connected at the start of its history, every POS item mapped. */
async function connectBar(posType: ResumableVendor): Promise<{ caller: Caller; connectionId: string; items: Map<string, string> }> {
  const caller = await pos.ctx.newCaller({ environment: 'production' })
  historyStart = Math.ceil((Date.now() + 10 * 60_000 - NOON_MS) / DAY_MS) * DAY_MS + NOON_MS
  setClock(historyStart)
  const vendor = findVendor(posType) as PosVendor
  const created = await pos.ctx.request('POST', '/v1/pos/connections', {
    key: caller.key,
    body: { pos_type: posType, name: `${posType} bar`, credentials: vendor.exampleCredentials, sync_frequency: 'daily', initial_sync: 'incremental' },
  })
  assert.equal(created.statusCode, 201, created.body)
  const connection = json(created).data as { id: string; first_sync_id: string }
  assert.equal((await waitForSync(pos.ctx, caller, connection.first_sync_id)).status, 'completed')
  return { caller, connectionId: connection.id, items: await mapEveryPosItem(pos.ctx, caller, connection.id, posType) }
}

/** The sales pages a run asked for: the exchanges since `from`. */
const salesPagesSince = (from: number, posType: PosType) => exchanges.slice(from).filter((exchange) => exchange.posType === posType && isSalesPage(exchange))

/** A request as sent (method, URL, body), to tell whether one was asked again. */
const requestKey = (exchange: Exchange) => `${exchange.method} ${exchange.url.pathname}${exchange.url.search} ${JSON.stringify(exchange.body ?? null)}`

interface StoppedRun {
  /** The failed run's error message. */
  message: string
  /** The failed run's sales pages, the refused one last. */
  pages: Exchange[]
  refused: Exchange
}

/** Runs an incremental sync four days in that the vendor stops at sales page `refusedPage`: it fails and keeps what it read. */
async function runStopped(bar: Awaited<ReturnType<typeof connectBar>>, posType: ResumableVendor, stop: Partial<typeof limit> & { refusedPage: number }): Promise<StoppedRun> {
  setClock(historyStart + (HISTORY_DAYS - 2) * DAY_MS)
  Object.assign(limit, { armed: true, posType, retryAfterSeconds: RETRY_AFTER_SECONDS, jumpAtPage: 0, jumpMs: 0, pagesServed: 0 }, stop)
  const from = exchanges.length
  const failed = await runSync(pos.ctx, bar.caller, bar.connectionId, 'incremental')
  assert.equal(failed.status, 'failed', 'the vendor stopped the run')
  assert.equal(failed.error.code, 'rate_limited')
  assert.match(failed.error.message, /; the \d+ new lines read before were kept, and the next run resumes where this one stopped$/)
  const pages = salesPagesSince(from, posType)
  assert.equal(pages.length, stop.refusedPage, 'the run stopped at the refused page')
  assert.ok((await unitsTaken(pos.ctx, bar.caller, bar.items)).size > 0, 'the pages read before the limit took their stock')
  return { message: failed.error.message, pages, refused: pages.at(-1) as Exchange }
}

/**
 * Runs the next sync two days later: it completes, its first sales page is the one `takesUp` expects,
 * it asks for no sales page the stopped run was answered, and the stock ends at the ground truth; a
 * third run finds no checkpoint left and reads nothing new.
 */
async function runResumed(bar: Awaited<ReturnType<typeof connectBar>>, posType: ResumableVendor, stopped: StoppedRun, takesUp: (first: Exchange) => void): Promise<void> {
  setClock(historyStart + HISTORY_DAYS * DAY_MS)
  const from = exchanges.length
  const resumed = await runSync(pos.ctx, bar.caller, bar.connectionId, 'incremental')
  assert.equal(resumed.status, 'completed', JSON.stringify(resumed.error))
  const pages = salesPagesSince(from, posType)
  takesUp(pages[0] as Exchange)
  const answeredBefore = new Set(stopped.pages.filter((page) => page.status === 200).map(requestKey))
  assert.deepEqual(
    pages.map(requestKey).filter((key) => answeredBefore.has(key)),
    [],
    'no page the stopped run read is asked for again',
  )

  const truth = groundTruth(SEED, new Date(historyStart), clock(), HISTORY_DAYS)
  assert.deepEqual(await unitsTaken(pos.ctx, bar.caller, bar.items), truth)
  const third = await runSync(pos.ctx, bar.caller, bar.connectionId, 'incremental')
  assert.equal(third.status, 'completed')
  assert.equal(third.results.sales_synced, 0)
  assert.deepEqual(await unitsTaken(pos.ctx, bar.caller, bar.items), truth)
}

test('revel: a long 429 on order page 3 fails the run; the next run asks for page 3 first (after the last order taken) and the stock ends at the ground truth', async () => {
  const bar = await connectBar('revel')
  const stopped = await runStopped(bar, 'revel', { refusedPage: 3 })
  const refused = stopped.refused.url
  assert.equal(refused.searchParams.get('offset'), String(2 * REVEL_PAGE_SIZE))
  const lastOrderTaken = stopped.pages[1]?.answer?.objects?.at(-1)?.id
  assert.ok(lastOrderTaken !== undefined)
  await runResumed(bar, 'revel', stopped, (first) => {
    // Page 3 of the failed window: its orders after the last one taken (by id, so orders updated again meanwhile shift nothing).
    assert.equal(first.url.searchParams.get('updated_date__gte'), refused.searchParams.get('updated_date__gte'))
    assert.equal(first.url.searchParams.get('updated_date__lt'), refused.searchParams.get('updated_date__lt'))
    assert.equal(first.url.searchParams.get('id__gt'), String(lastOrderTaken))
    assert.equal(first.url.searchParams.get('offset'), '0')
  })
})

/** The closed_at range of a SearchOrders request, and its cursor. */
function squareSearch(exchange: Exchange): { startAt: string; endAt: string; cursor: unknown } {
  const body = exchange.body as { cursor?: string; query: { filter: { date_time_filter: { closed_at: { start_at: string; end_at: string } } } } }
  const range = body.query.filter.date_time_filter.closed_at
  return { startAt: range.start_at, endAt: range.end_at, cursor: body.cursor }
}

test('square: a long 429 on orders page 3 fails the run; the next run searches from the last close taken, without a cursor, and the stock ends at the ground truth', async () => {
  const bar = await connectBar('square')
  const stopped = await runStopped(bar, 'square', { refusedPage: 3 })
  const lastCloseTaken = stopped.pages[1]?.answer?.orders?.at(-1)?.closed_at
  assert.ok(lastCloseTaken !== undefined)
  await runResumed(bar, 'square', stopped, (first) => {
    // Square's cursors live minutes: the failed window is searched again from the last close taken.
    assert.deepEqual(squareSearch(first), { startAt: lastCloseTaken, endAt: squareSearch(stopped.refused).endAt, cursor: undefined })
  })
})

test('spoton: a long 429 on the third day slice fails the run; the next run asks for that slice first and the stock ends at the ground truth', async () => {
  const bar = await connectBar('spoton')
  const stopped = await runStopped(bar, 'spoton', { refusedPage: 3 })
  await runResumed(bar, 'spoton', stopped, (first) => {
    assert.equal(first.url.search, stopped.refused.url.search)
  })
})

test('simphony: a long 429 on the fourth business date fails the run; the next run asks for that date first and the stock ends at the ground truth', async () => {
  const bar = await connectBar('simphony')
  const stopped = await runStopped(bar, 'simphony', { refusedPage: 4 })
  await runResumed(bar, 'simphony', stopped, (first) => {
    assert.deepEqual(first.body, stopped.refused.body)
  })
})

test('a short Retry-After that would take the run past BARSTOCK_POS_RUN_BUDGET_SECONDS on its clock stops it at once as partial; the next run resumes', async () => {
  const bar = await connectBar('square')
  // The run's clock passes its budget while it reads page 2; page 3 asks for a wait of 1 s.
  const stopped = await runStopped(bar, 'square', { refusedPage: 3, retryAfterSeconds: 1, jumpAtPage: 2, jumpMs: (RUN_BUDGET_SECONDS + 1) * 1000 })
  assert.equal(
    stopped.message.split(';')[0],
    `Square rate limit: retry after 1 s would take the run past its time budget of ${RUN_BUDGET_SECONDS} s (BARSTOCK_POS_RUN_BUDGET_SECONDS)`,
  )
  const lastCloseTaken = stopped.pages[1]?.answer?.orders?.at(-1)?.closed_at
  await runResumed(bar, 'square', stopped, (first) => {
    assert.equal(squareSearch(first).startAt, lastCloseTaken)
  })
})
