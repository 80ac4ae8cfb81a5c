import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { after, describe, test } from 'node:test'
import { PosAdapterError, type PosSaleLine } from '../../../src/pos/vendors/adapter.js'
import { checksClosedBetween, MENU, menuEntry, MODIFIERS, type SimCheck, type SimLine } from '../../../src/pos/simulation/bar-data.js'
import { sendJson, startSimulatorServer, type RunningSimulator } from '../../../src/pos/simulation/simulator-server.js'
import { REVEL_PAGE_SIZE } from '../../../src/pos/vendors/revel/revel.client.js'
import { referencedId, returnLines, revelNames } from '../../../src/pos/vendors/revel/revel.mapper.js'
import type { RevelList, RevelOrder, RevelOrderItem, RevelProduct } from '../../../src/pos/vendors/revel/revel.resources.js'
import type { RevelSimulatorOptions } from '../../../src/pos/vendors/revel/revel.simulated-account.js'
import { revelVendor } from '../../../src/pos/vendors/revel/index.js'
import { OpenApiContract } from '../../helpers/openapi-contract.js'
import { collectSales, describeAdapterContract, SIMULATOR_TIMEOUT_MS } from './adapter-contract.js'
import { DAY_MS } from '../../../src/platform/zoned-time.js'

describeAdapterContract(revelVendor)

const NOW = new Date('2026-11-20T15:00:00.000Z')
const SEED = 5
const HISTORY_DAYS = 30
const AUTH = { 'API-AUTHENTICATION': `${revelVendor.exampleCredentials.api_key}:${revelVendor.exampleCredentials.api_secret}` }
/** Midday UTC: the simulated bar trades from 16:00 to 03:00, so windows cut here split no night. */
const MIDDAY = 12 * 3_600_000

const running: RunningSimulator[] = []
after(async () => {
  await Promise.all(running.map((simulator) => simulator.close()))
})

interface Exchange {
  url: URL
  status: number
  body: unknown
}

/** A Revel simulator that records every request and the JSON it answered. */
async function recordedSimulator(options: Partial<RevelSimulatorOptions> = {}): Promise<{ url: string; exchanges: Exchange[]; requests: URL[] }> {
  const handler = revelVendor.createSimulator({ seed: SEED, historyDays: HISTORY_DAYS, now: () => NOW, ...options })
  const exchanges: Exchange[] = []
  const requests: URL[] = []
  const server = await startSimulatorServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://simulator')
    requests.push(url)
    recordAnswer(res, (status, text) => exchanges.push({ url, status, body: JSON.parse(text) }))
    handler(req, res)
  })
  running.push(server)
  return { url: server.url, exchanges, requests }
}

/** Calls `onEnd` with the status and body text a response ends with. */
function recordAnswer(res: ServerResponse, onEnd: (status: number, text: string) => void): void {
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse
  res.end = ((chunk?: unknown) => {
    if (typeof chunk === 'string') onEnd(res.statusCode, chunk)
    return end(chunk)
  }) as ServerResponse['end']
}

function adapterFor(url: string, credentials = revelVendor.exampleCredentials) {
  return revelVendor.createAdapter({ credentials, baseUrl: url, timeoutMs: SIMULATOR_TIMEOUT_MS, wait: async () => {} })
}

/** The lines of a window as a sync at the window's end reads them (the simulator's clock at that end). */
async function syncWindow(start: Date, end: Date): Promise<PosSaleLine[]> {
  const simulator = await recordedSimulator({ now: () => end })
  return collectSales(adapterFor(simulator.url).listSales({ start, end }))
}

/** The first midday after a time. */
function middayAfter(time: Date): Date {
  const midday = Math.floor(time.getTime() / DAY_MS) * DAY_MS + MIDDAY
  return new Date(midday > time.getTime() ? midday : midday + DAY_MS)
}

/** The first check of the history that has a line of this description. */
function findLine(matches: (check: SimCheck, line: SimLine) => boolean): { check: SimCheck; line: SimLine } {
  const checks = checksClosedBetween(SEED, new Date(NOW.getTime() - HISTORY_DAYS * DAY_MS), NOW, { now: NOW, historyDays: HISTORY_DAYS })
  for (const check of checks) {
    const line = check.lines.find((candidate) => matches(check, candidate))
    if (line) return { check, line }
  }
  assert.fail('the simulated history has no such line')
}

const isDataRequest = (url: URL) => url.pathname === '/Order/' || url.pathname === '/OrderItem/'
const orderWindowPages = (requests: URL[]) => requests.filter((url) => url.pathname === '/Order/' && url.searchParams.has('updated_date__gte'))

describe('revel adapter', () => {
  test('follows every page of orders in a window too large for one, each of its own establishment', async () => {
    const simulator = await recordedSimulator()
    const end = new Date('2026-11-18T06:00:00.000Z')
    const start = new Date(end.getTime() - 3 * DAY_MS)
    const lines = await collectSales(adapterFor(simulator.url).listSales({ start, end }))

    const checks = checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS })
    const orderPages = orderWindowPages(simulator.requests)
    assert.ok(checks.length > 2 * REVEL_PAGE_SIZE, `${checks.length} orders need several pages`)
    assert.deepEqual(
      orderPages.map((url) => url.searchParams.get('offset')),
      Array.from({ length: Math.ceil(checks.length / REVEL_PAGE_SIZE) }, (_, page) => String(page * REVEL_PAGE_SIZE)),
    )
    assert.ok(orderPages.every((url) => url.searchParams.get('establishment') === '1' && url.searchParams.get('closed') === 'true'))
    assert.ok(lines.length > 0 && lines.every((line) => line.staffName && line.checkId), 'lines name their server and order')
  })

  test('reads the items of a whole page of orders in one request, not one request per order', async () => {
    const simulator = await recordedSimulator()
    const lines = await collectSales(adapterFor(simulator.url).listSales({ start: new Date(NOW.getTime() - HISTORY_DAYS * DAY_MS), end: NOW }))

    const orderPages = orderWindowPages(simulator.requests)
    const itemRequests = simulator.requests.filter((url) => url.pathname === '/OrderItem/')
    const itemsOfOrders = itemRequests.filter((url) => url.searchParams.has('order__in'))
    const returnPages = itemRequests.filter((url) => url.searchParams.has('quantity__lt'))
    console.log(`30-day sync: ${simulator.requests.length} requests (${orderPages.length} order pages, ${itemRequests.length} order item pages) for ${lines.length} lines`)
    assert.equal(itemsOfOrders.length, orderPages.length + returnPages.length, 'one order item request per page of orders, and per page of returns')
    assert.equal(itemRequests.filter((url) => url.searchParams.has('order')).length, 0, 'no request per order')
    assert.ok(simulator.requests.length < 2 * orderPages.length + 30, `${simulator.requests.length} requests`)
  })

  test('resumes a listing that failed mid-way at the page that failed, not at the first page', async () => {
    const failingRequest = 8
    // The request and the two retries of it (a read whose connection drops is asked again twice).
    const simulator = await recordedSimulator({ failure: { mode: 'drop_mid_page', page: failingRequest, times: 3 } })
    const adapter = adapterFor(simulator.url)
    const window = { start: new Date('2026-11-13T12:00:00.000Z'), end: new Date('2026-11-16T12:00:00.000Z') }
    const lines: PosSaleLine[] = []
    await assert.rejects(
      async () => {
        for await (const page of adapter.listSales(window)) lines.push(...page)
      },
      (error: unknown) => error instanceof PosAdapterError && error.kind === 'connection_failed',
    )
    const failed = simulator.requests[failingRequest - 1]!
    const beforeRetry = simulator.requests.length
    lines.push(...(await collectSales(adapter.listSales(window))))

    const retried = simulator.requests.slice(beforeRetry).find(isDataRequest)
    // The page that failed is of the window's orders: taken up after the last order read, by id (an order
    // updated again meanwhile leaves the list and would shift an offset).
    assert.equal(failed.searchParams.get('offset'), '200')
    const lastOrderRead = simulator.exchanges.find((exchange) => exchange.url === orderWindowPages(simulator.requests)[1])?.body as RevelList<RevelOrder>
    const resumedPage = new URL(failed)
    resumedPage.searchParams.delete('offset')
    resumedPage.searchParams.append('id__gt', String(lastOrderRead.objects.at(-1)?.id))
    resumedPage.searchParams.append('offset', '0')
    assert.equal(retried?.href, resumedPage.href, 'the retry asks for the page that failed')
    const complete = await collectSales(adapterFor((await recordedSimulator()).url).listSales(window))
    assert.deepEqual(lines.map((line) => line.lineId).sort(), complete.map((line) => line.lineId).sort())
  })

  test('keeps to one establishment of an account with two, and asks which when none is set', async () => {
    const simulator = await recordedSimulator({ establishments: 2 })
    const window = { start: new Date('2026-11-16T12:00:00.000Z'), end: new Date('2026-11-17T12:00:00.000Z') }
    const first = adapterFor(simulator.url)
    const second = adapterFor(simulator.url, { ...revelVendor.exampleCredentials, establishment_id: '2' })
    const [firstProducts, secondProducts] = [await first.listProducts(), await second.listProducts()]
    assert.equal(firstProducts.length, MENU.length + MODIFIERS.length)
    assert.equal(secondProducts.length, MENU.length + MODIFIERS.length)
    const [firstLines, secondLines] = [await collectSales(first.listSales(window)), await collectSales(second.listSales(window))]
    const firstChecks = new Set(firstLines.map((line) => line.checkId))
    assert.ok(firstLines.length > 0 && secondLines.length > 0)
    assert.ok(
      secondLines.every((line) => !firstChecks.has(line.checkId)),
      'no order of establishment 1 in establishment 2',
    )
    assert.ok(orderWindowPages(simulator.requests).every((url) => ['1', '2'].includes(url.searchParams.get('establishment') ?? '')))

    const { establishment_id: _, ...withoutEstablishment } = revelVendor.exampleCredentials
    await assert.rejects(adapterFor(simulator.url, withoutEstablishment).verify(), (error: unknown) => {
      return error instanceof PosAdapterError && error.kind === 'invalid_credentials' && /establishment_id.*1, 2/.test(error.message)
    })
    const single = await recordedSimulator()
    assert.equal((await adapterFor(single.url, withoutEstablishment).listProducts()).length, MENU.length + MODIFIERS.length)
    assert.ok(single.requests.filter((url) => url.pathname === '/Product/').every((url) => url.searchParams.get('establishment') === '1'))
  })

  test('lists modifiers as lines of their own items, linked to the line they modify', async () => {
    const start = middayAfter(new Date(NOW.getTime() - 4 * DAY_MS))
    const end = new Date(start.getTime() + DAY_MS)
    const lines = await collectSales(adapterFor((await recordedSimulator()).url).listSales({ start, end }))

    const modifierLines = lines.filter((line) => line.parentLineId && !line.correctsLineId)
    const soldLines = checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS }).flatMap((check) => check.lines.filter((line) => !line.voided))
    assert.equal(
      modifierLines.length,
      soldLines.reduce((count, line) => count + line.modifiers.length, 0),
    )
    const byId = new Map(lines.map((line) => [line.lineId, line]))
    for (const modifier of modifierLines) {
      const parent = byId.get(modifier.parentLineId!)
      assert.ok(parent, `the parent of ${modifier.lineId} is listed`)
      assert.equal(modifier.checkId, parent.checkId)
      assert.equal(modifier.quantity, parent.quantity, 'one modifier per unit of its line')
      const entry = MODIFIERS.find((candidate) => candidate.name === modifier.name)
      assert.equal(modifier.unitPrice, entry?.price)
    }
  })

  test('reports a refund made in a later window as the correction of the line the first window sold', async () => {
    const { check, line } = findLine((check, line) => line.modifiers.length > 0 && check.reclosedAt === null && line.refundedAt! > middayAfter(check.closedAt))
    const split = middayAfter(check.closedAt)
    const firstWindow = await syncWindow(new Date(split.getTime() - DAY_MS), split)
    const secondWindow = await syncWindow(split, new Date(line.refundedAt!.getTime() + 1))

    const corrections = secondWindow.filter((candidate) => candidate.soldAt.getTime() === line.refundedAt!.getTime())
    const sold = corrections.map((correction) => firstWindow.find((candidate) => candidate.lineId === correction.correctsLineId))
    assert.deepEqual(
      corrections.map((correction) => [correction.name, correction.quantity, correction.unitPrice]),
      [line, ...line.modifiers].map((taken) => [menuEntry(taken.itemKey).name, String(-taken.quantity), taken.unitPrice]),
    )
    assert.deepEqual(
      sold.map((sale) => [sale?.name, sale?.quantity]),
      [line, ...line.modifiers].map((taken) => [menuEntry(taken.itemKey).name, String(taken.quantity)]),
    )
    assert.deepEqual(
      secondWindow.filter((candidate) => candidate.checkId === corrections[0]!.checkId && !candidate.correctsLineId),
      [],
      'the sale is not listed again',
    )
  })

  test('takes back a line voided after its order closed, in the window of the void', async () => {
    const { check, line } = findLine((check, line) => line.voidedAfterCloseAt !== null && check.reclosedAt === null)
    const split = new Date(check.closedAt.getTime() + 1)
    const firstWindow = await syncWindow(new Date(split.getTime() - DAY_MS), split)
    const secondWindow = await syncWindow(split, new Date(line.voidedAfterCloseAt!.getTime() + 1))

    const voided = secondWindow.filter((candidate) => candidate.correctsLineId && candidate.soldAt.getTime() === line.voidedAfterCloseAt!.getTime())
    assert.deepEqual(
      voided.map((correction) => [correction.name, correction.quantity]),
      [line, ...line.modifiers].map((taken) => [menuEntry(taken.itemKey).name, String(-taken.quantity)]),
    )
    const sale = firstWindow.find((candidate) => candidate.lineId === voided[0]!.correctsLineId)
    assert.deepEqual([sale?.name, sale?.quantity], [menuEntry(line.itemKey).name, String(line.quantity)])
  })

  test('lists the line added to a reopened order once the order is closed again, sold when it closed again', async () => {
    const { check, line } = findLine((check, line) => line.addedOnReopen && check.reclosedAt !== null)
    const split = new Date(check.closedAt.getTime() + 1)
    const firstWindow = await syncWindow(new Date(split.getTime() - DAY_MS), split)
    const secondWindow = await syncWindow(split, new Date(check.reclosedAt!.getTime() + 1))

    const firstIds = new Set(firstWindow.map((candidate) => candidate.lineId))
    const added = secondWindow.filter((candidate) => !firstIds.has(candidate.lineId) && candidate.soldAt.getTime() === check.reclosedAt!.getTime())
    assert.deepEqual(
      added.map((candidate) => [candidate.name, candidate.quantity]),
      [[menuEntry(line.itemKey).name, '1']],
    )
    const firstState = firstWindow.filter((candidate) => candidate.checkId === added[0]!.checkId && !candidate.parentLineId)
    assert.equal(firstState.length, check.lines.filter((candidate) => !candidate.voided && !candidate.addedOnReopen).length)
  })

  test('refuses an answer of a shape Revel does not document with invalid_response naming the field', async () => {
    const product: Partial<RevelProduct> = {
      id: 1,
      name: 'Stella',
      price: '7.50' as unknown as number,
      cost: null,
      sku: null,
      category: 1,
      active: true,
      establishment: 1,
      resource_uri: '/resources/Product/1/',
    }
    const server = await startSimulatorServer((_req, res) =>
      sendJson(res, 200, { meta: { limit: 100, offset: 0, total_count: 1, next: null, previous: null }, objects: [product] }),
    )
    running.push(server)
    await assert.rejects(adapterFor(server.url).listProducts(), (error: unknown) => {
      return error instanceof PosAdapterError && error.kind === 'invalid_response' && /objects\/0\/price/.test(error.message)
    })
  })

  test('takes back the units of a return whose sale its order does not show, naming no line', () => {
    const order: RevelOrder = {
      id: 7,
      uuid: 'u',
      establishment: 1,
      created_by: 1,
      closed: true,
      created_date: '2026-11-19T20:00:00Z',
      updated_date: '2026-11-19T21:00:00Z',
      resource_uri: '/resources/Order/7/',
    }
    const item = (id: number, product: number, quantity: number): RevelOrderItem => ({
      id,
      order: '/resources/Order/7/',
      product: `/resources/Product/${product}/`,
      quantity,
      initial_price: 6,
      price: 6,
      created_by: 1,
      created_date: '2026-11-20T01:00:00Z',
      voided_date: null,
      modifieritems: [],
      resource_uri: `/resources/OrderItem/${id}/`,
    })
    const names = revelNames([], [], [])
    const [returned] = returnLines(item(71, 2, -1), order, [item(70, 1, 1)], names)
    assert.deepEqual([returned?.quantity, returned?.unitPrice, returned?.correctsLineId, returned?.soldAt.toISOString()], ['-1', '6.00', null, '2026-11-20T01:00:00.000Z'])
    const [matched] = returnLines(item(72, 1, -1), order, [item(70, 1, 1)], names)
    assert.equal(matched?.correctsLineId, '70')
  })

  test('reads a foreign key sent as an id or as a resource URI', () => {
    assert.equal(referencedId(12), '12')
    assert.equal(referencedId('/resources/Product/12/'), '12')
    assert.equal(referencedId(null), null)
  })

  test('builds the production host from the subdomain, and the schema refuses a subdomain that is not a host label', () => {
    assert.equal(revelVendor.productionBaseUrl(revelVendor.exampleCredentials), 'https://examplebar.revelup.com/resources')
    const pattern = new RegExp((revelVendor.credentialsSchema.properties.subdomain as { pattern: string }).pattern)
    assert.ok(pattern.test('examplebar'))
    assert.ok(!pattern.test('evil.com/x?'))
    assert.ok(!pattern.test('-bar'))
  })
})

describe('revel pushes', () => {
  const secret = 'webhook-secret'
  const body = Buffer.from(JSON.stringify({ event: 'order.finalized', data: { id: 1 } }))
  const signed = (encoding: 'hex' | 'base64', payload = body) => ({ 'x-revel-signature': createHmac('sha1', secret).update(payload).digest(encoding) })

  test('accepts an order.finalized push signed with HMAC-SHA1, hex or base64', () => {
    assert.deepEqual(revelVendor.parsePush!(signed('hex'), body, secret, 'https://barstock.example/hooks'), { kind: 'orders_changed' })
    assert.deepEqual(revelVendor.parsePush!(signed('base64'), body, secret, 'https://barstock.example/hooks'), { kind: 'orders_changed' })
  })

  test('refuses a push with a wrong, missing or stale signature', () => {
    const tampered = Buffer.from(JSON.stringify({ event: 'order.finalized', data: { id: 2 } }))
    assert.throws(() => revelVendor.parsePush!(signed('hex'), tampered, secret, ''), /signature/)
    assert.throws(() => revelVendor.parsePush!({}, body, secret, ''), /signature/)
    assert.throws(() => revelVendor.parsePush!(signed('hex'), body, 'another-secret', ''), /signature/)
  })
})

describe('revel simulator', () => {
  test('serves Tastypie pages of 20 by default, money as numbers and products as resource URIs', async () => {
    const simulator = await recordedSimulator()
    const products = (await (await fetch(`${simulator.url}/Product/`, { headers: AUTH })).json()) as RevelList<RevelProduct>
    assert.equal(products.objects.length, 20)
    assert.equal(products.meta.total_count, 31)
    assert.match(products.meta.next ?? '', /^\/resources\/Product\/\?.*offset=20/)
    const stella = products.objects.find((product) => product.name === 'Stella Artois Draft Pint')
    assert.equal(stella?.price, 7.5)

    const orders = (await (
      await fetch(`${simulator.url}/Order/?updated_date__gte=2026-11-14T00:00:00Z&updated_date__lt=2026-11-15T00:00:00Z&limit=1`, { headers: AUTH })
    ).json()) as RevelList<{ id: number }>
    const items = (await (await fetch(`${simulator.url}/OrderItem/?order=${orders.objects[0]!.id}`, { headers: AUTH })).json()) as RevelList<RevelOrderItem>
    assert.ok(items.objects.length > 0)
    assert.match(String(items.objects[0]!.product), /^\/resources\/Product\/\d+\/$/)
    assert.equal(typeof items.objects[0]!.initial_price, 'number')
  })

  test("refuses a bad secret with 401 and Revel's error body", async () => {
    const simulator = await recordedSimulator()
    const response = await fetch(`${simulator.url}/Product/`, { headers: { 'API-AUTHENTICATION': 'key:invalid-secret' } })
    assert.equal(response.status, 401)
    assert.deepEqual(await response.json(), { error: 'Authentication failed' })
  })

  test('refuses with 400 a query parameter, lookup, ordering or value the resource does not take', async () => {
    const simulator = await recordedSimulator()
    const refused = [
      '/Order/?closed_date__gte=2026-11-14T00:00:00Z',
      '/Order/?updated_date__gte=yesterday',
      '/Order/?closed__gte=true',
      '/Order/?order_by=total',
      '/Order/?format=json',
      '/Product/?price__gt=5',
      '/Establishment/?name=The%20Simulated%20Bar',
      '/OrderItem/?limit=10',
      '/OrderItem/?order__in=1,x',
      '/Employee/?limit=-1',
    ]
    for (const path of refused) {
      const response = await fetch(`${simulator.url}${path}`, { headers: AUTH })
      assert.equal(response.status, 400, path)
      assert.equal(typeof ((await response.json()) as { error: unknown }).error, 'string', path)
    }
  })

  test('answers every Order, Product and Establishment list as revel.yml documents it', async () => {
    const contract = new OpenApiContract('revel.yml')
    const simulator = await recordedSimulator({ establishments: 2 })
    const adapter = adapterFor(simulator.url)
    await adapter.verify()
    await adapter.listProducts()
    await collectSales(adapter.listSales({ start: new Date('2026-11-16T12:00:00.000Z'), end: new Date('2026-11-18T12:00:00.000Z') }))
    await fetch(`${simulator.url}/Establishment/`, { headers: AUTH })

    const documented = ['/Order/', '/Product/', '/Establishment/']
    const checked = simulator.exchanges.filter((exchange) => exchange.status === 200 && documented.includes(exchange.url.pathname))
    for (const exchange of checked) contract.assertResponse('GET', exchange.url.pathname, 200, exchange.body)
    assert.deepEqual([...new Set(checked.map((exchange) => exchange.url.pathname))].sort(), [...documented].sort())
  })
})
