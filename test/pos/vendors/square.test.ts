import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import { after, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import Big from 'big.js'
import { Value } from 'typebox/value'
import { PosAdapterError, type PosCredentials, type PosSaleLine, type SalesWindow, type SimulatorHandler, type SimulatorOptions } from '../../../src/pos/vendors/adapter.js'
import { checksClosedBetween, dollarsToCents, MENU, menuEntry, MODIFIERS, STAFF, type SimCheck, type SimLine } from '../../../src/pos/simulation/bar-data.js'
import { readBody, startSimulatorServer, type RunningSimulator } from '../../../src/pos/simulation/simulator-server.js'
import { createSquareVendor, squareVendor } from '../../../src/pos/vendors/square/index.js'
import { createSquareSimulator, DEFAULT_SQUARE_SIMULATOR_CONFIG, type SquareSimulatorConfig } from '../../../src/pos/vendors/square/square.simulator.js'
import { BAR_LOCATION_ID, SISTER_LOCATION_ID, SquareIds } from '../../../src/pos/vendors/square/square.simulator-render.js'
import {
  LIST_CATALOG_QUERY,
  LIST_PAYMENTS_QUERY,
  OBTAIN_TOKEN_BODY,
  SEARCH_ORDERS_BODY,
  SEARCH_TEAM_MEMBERS_BODY,
  type ObjectShape,
} from '../../../src/pos/vendors/square/square.request-shapes.js'
import { OpenApiContract } from '../../helpers/openapi-contract.js'
import { collectSales, describeAdapterContract, SIMULATOR_TIMEOUT_MS } from './adapter-contract.js'
import { DAY_MS } from '../../../src/platform/zoned-time.js'

describeAdapterContract(squareVendor)

const NOW = new Date('2026-11-20T15:00:00.000Z')
const SEED = 11
const HISTORY_DAYS = 30
const HISTORY_START = new Date(NOW.getTime() - HISTORY_DAYS * DAY_MS)

const running: RunningSimulator[] = []
after(async () => {
  await Promise.all(running.map((simulator) => simulator.close()))
})

interface Simulated {
  url: string
  /** Requests served, per "METHOD /path". */
  calls: Map<string, number>
}

/** A Square simulator of the test bar on loopback, counting the requests it serves. */
async function startSquare(options: Partial<SimulatorOptions> = {}, config: Partial<SquareSimulatorConfig> = {}): Promise<Simulated> {
  const handler = createSquareSimulator({ seed: SEED, historyDays: HISTORY_DAYS, now: () => NOW, ...options }, { ...DEFAULT_SQUARE_SIMULATOR_CONFIG, ...config })
  return serve(handler)
}

async function serve(handler: SimulatorHandler): Promise<Simulated> {
  const calls = new Map<string, number>()
  const server = await startSimulatorServer((req, res) => {
    const key = `${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`
    calls.set(key, (calls.get(key) ?? 0) + 1)
    handler(req, res)
  })
  running.push(server)
  return { url: server.url, calls }
}

function adapterAt(url: string, credentials: PosCredentials = squareVendor.exampleCredentials) {
  return squareVendor.createAdapter({ credentials, baseUrl: url, timeoutMs: SIMULATOR_TIMEOUT_MS })
}

function historyChecks(): SimCheck[] {
  return checksClosedBetween(SEED, HISTORY_START, NOW, { now: NOW, historyDays: HISTORY_DAYS })
}

/** The first line of the history that `matches`, with its check. */
function findLine(matches: (line: SimLine, check: SimCheck) => boolean): { check: SimCheck; line: SimLine } {
  for (const check of historyChecks()) {
    const line = check.lines.find((candidate) => matches(candidate, check))
    if (line) return { check, line }
  }
  throw new Error('the test history has no such line')
}

/** The window of the one millisecond `at`. */
const instant = (at: Date): SalesWindow => ({ start: at, end: new Date(at.getTime() + 1) })

const token = { authorization: `Bearer ${squareVendor.exampleCredentials.access_token}` }

async function postJson(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { method: 'POST', headers: { ...token, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: response.status, body: await response.json() }
}

const searchBody = (start: Date, end: Date) => ({
  location_ids: [BAR_LOCATION_ID],
  query: {
    filter: { date_time_filter: { closed_at: { start_at: start.toISOString(), end_at: end.toISOString() } }, state_filter: { states: ['COMPLETED'] } },
    sort: { sort_field: 'CLOSED_AT', sort_order: 'ASC' },
  },
})

/** A handler that rewrites each SearchOrders body before the simulator reads it. */
function rewritingSearches(handler: SimulatorHandler, rewrite: (body: Record<string, unknown>) => Record<string, unknown>): SimulatorHandler {
  return (req, res) => {
    if (req.url !== '/v2/orders/search') return handler(req, res)
    void readBody(req).then((text) => {
      const forwarded = Object.assign(Readable.from([JSON.stringify(rewrite(JSON.parse(text)))]), { method: req.method, url: req.url, headers: req.headers })
      handler(forwarded as unknown as IncomingMessage, res)
    })
  }
}

/** A handler whose SearchOrders answers are changed by `doctor` on their way out. */
function doctoredSearches(handler: SimulatorHandler, doctor: (body: any) => void): SimulatorHandler {
  return (req, res) => {
    if (req.url !== '/v2/orders/search') return handler(req, res)
    const end = res.end.bind(res)
    res.end = ((chunk: unknown) => {
      const body = JSON.parse(String(chunk))
      if (res.statusCode === 200) doctor(body)
      return end(JSON.stringify(body))
    }) as typeof res.end
    handler(req, res)
  }
}

const saleLines = (lines: PosSaleLine[]) => lines.filter((line) => !line.correctsLineId && !line.parentLineId)

/** The lines of a check's sale order (checks close on whole minutes, so a window of one instant can hold several). */
const linesOfOrder = (lines: PosSaleLine[], check: SimCheck) => lines.filter((line) => line.checkId === new SquareIds(SEED).order(check.checkId))

describe('square sales', () => {
  test('follows the SearchOrders cursor: small pages list the same lines as one page', async () => {
    const small = await serve(rewritingSearches(createSquareSimulator({ seed: SEED, historyDays: HISTORY_DAYS, now: () => NOW }), (body) => ({ ...body, limit: 10 })))
    const whole = await startSquare()
    const end = new Date(NOW.getTime() - DAY_MS)
    const window = { start: new Date(end.getTime() - 3 * DAY_MS), end }
    const paged = await collectSales(adapterAt(small.url).listSales(window))
    const unpaged = await collectSales(adapterAt(whole.url).listSales(window))
    assert.ok((small.calls.get('POST /v2/orders/search') ?? 0) > 10, `orders were read in ${small.calls.get('POST /v2/orders/search')} pages`)
    assert.equal(whole.calls.get('POST /v2/orders/search'), 1)
    assert.deepEqual(paged.map((line) => line.lineId).sort(), unpaged.map((line) => line.lineId).sort())
    assert.ok(paged.length > 500, `${paged.length} lines`)
  })

  test('lists a modifier as a line of its own product, naming the line it modifies', async () => {
    const { url } = await startSquare()
    const end = new Date(NOW.getTime() - 2 * DAY_MS)
    const window = { start: new Date(end.getTime() - DAY_MS), end }
    const products = await adapterAt(url).listProducts()
    const lines = await collectSales(adapterAt(url).listSales(window))
    const byId = new Map(lines.map((line) => [line.lineId, line]))
    const modifierLines = lines.filter((line) => line.parentLineId)
    const expected = checksClosedBetween(SEED, window.start, window.end, { now: NOW, historyDays: HISTORY_DAYS })
      .flatMap((check) => check.lines.filter((line) => !line.voided && !line.addedOnReopen))
      .flatMap((line) => line.modifiers)
    assert.ok(expected.length > 5, 'the window has modifiers')
    assert.equal(modifierLines.length, expected.length)
    for (const modifier of modifierLines) {
      const parent = byId.get(modifier.parentLineId!)
      const entry = MODIFIERS.find((candidate) => candidate.name === modifier.name)
      assert.ok(parent && entry, `${modifier.name} is a modifier of a listed line`)
      assert.ok(entry.parentKinds.includes(MENU.find((candidate) => candidate.name === parent.name)!.kind), `${modifier.name} on ${parent.name}`)
      assert.equal(modifier.quantity, parent.quantity, 'one modifier per unit of its line')
      assert.equal(modifier.unitPrice, entry.price)
      assert.equal(modifier.soldAt.getTime(), parent.soldAt.getTime())
      assert.equal(modifier.checkId, parent.checkId)
      assert.ok(
        products.some((product) => product.posItemId === modifier.posItemId && product.name === entry.name),
        'the modifier is a listed product',
      )
    }
  })

  test('a refund made in a later window is a correction there, naming the line synced before', async () => {
    const { check, line } = findLine(
      (candidate, owner) => candidate.refunded && candidate.modifiers.length > 0 && candidate.refundedAt!.getTime() - owner.closedAt.getTime() > 2 * 3_600_000,
    )
    const { url } = await startSquare()
    const sale = linesOfOrder(await collectSales(adapterAt(url).listSales(instant(check.closedAt))), check)
    const sold = sale.find((candidate) => candidate.name === menuEntry(line.itemKey).name && !candidate.parentLineId)!
    const soldModifier = sale.find((candidate) => candidate.parentLineId === sold.lineId)!
    assert.equal(sold.quantity, String(line.quantity))
    assert.equal(soldModifier.quantity, String(line.modifiers[0]!.quantity))
    assert.ok(!sale.some((candidate) => candidate.correctsLineId), 'the sale window shows no correction')

    const refundWindow = await collectSales(adapterAt(url).listSales(instant(line.refundedAt!)))
    const corrections = refundWindow.filter((candidate) => candidate.correctsLineId === sold.lineId || candidate.correctsLineId === soldModifier.lineId)
    assert.deepEqual(
      corrections.map((correction) => [correction.correctsLineId, correction.quantity, correction.unitPrice, correction.soldAt.toISOString()]),
      [
        [sold.lineId, `-${line.quantity}`, line.unitPrice, line.refundedAt!.toISOString()],
        [soldModifier.lineId, `-${line.modifiers[0]!.quantity}`, line.modifiers[0]!.unitPrice, line.refundedAt!.toISOString()],
      ],
    )
    assert.ok(!refundWindow.some((candidate) => candidate.lineId === sold.lineId), 'the refund window does not list the sale again')
    assert.equal(new Set([...sale, ...corrections].map((entry) => entry.lineId)).size, sale.length + corrections.length, 'corrections have line ids of their own')
  })

  test('a refund not made yet is not visible', async () => {
    const { check, line } = findLine((candidate) => candidate.refunded)
    const beforeRefund = new Date(line.refundedAt!.getTime() - 1)
    const { url } = await startSquare({ now: () => beforeRefund })
    const lines = await collectSales(adapterAt(url).listSales({ start: check.closedAt, end: beforeRefund }))
    const sold = linesOfOrder(lines, check).find((candidate) => candidate.name === menuEntry(line.itemKey).name)
    assert.equal(sold?.quantity, String(line.quantity))
    assert.ok(!lines.some((candidate) => candidate.correctsLineId === sold.lineId))
  })

  test('a void after close (a full refund on Square) takes the line back when it happened', async () => {
    const { check, line } = findLine((candidate) => candidate.voidedAfterCloseAt !== null)
    const { url } = await startSquare()
    const sale = linesOfOrder(await collectSales(adapterAt(url).listSales(instant(check.closedAt))), check)
    const sold = sale.find((candidate) => candidate.name === menuEntry(line.itemKey).name && !candidate.parentLineId)!
    const afterClose = await collectSales(adapterAt(url).listSales({ start: new Date(check.closedAt.getTime() + 1), end: new Date(line.voidedAfterCloseAt!.getTime() + 1) }))
    const correction = afterClose.find((candidate) => candidate.correctsLineId === sold.lineId)
    assert.equal(correction?.quantity, `-${line.quantity}`)
    assert.equal(correction?.unitPrice, line.unitPrice)
    assert.equal(correction?.soldAt.toISOString(), line.voidedAfterCloseAt!.toISOString())
  })

  test('the round rung on a reopened check is an order of its own, sold when the check closed again', async () => {
    const { check, line } = findLine((candidate) => candidate.addedOnReopen)
    const { url } = await startSquare()
    const firstClose = saleLines(linesOfOrder(await collectSales(adapterAt(url).listSales(instant(check.closedAt))), check))
    assert.equal(firstClose.length, check.lines.filter((candidate) => !candidate.voided && !candidate.addedOnReopen).length)
    const reclose = await collectSales(adapterAt(url).listSales(instant(check.reclosedAt!)))
    const round = reclose.filter((sale) => sale.checkId === new SquareIds(SEED).reopenOrder(check.checkId))
    assert.deepEqual(
      round.map((sale) => [sale.name, sale.quantity, sale.soldAt.toISOString()]),
      [[menuEntry(line.itemKey).name, '1', check.reclosedAt!.toISOString()]],
    )

    const { url: beforeReclose } = await startSquare({ now: () => new Date(check.reclosedAt!.getTime() - 1) })
    const early = await collectSales(adapterAt(beforeReclose).listSales({ start: check.closedAt, end: new Date(check.reclosedAt!.getTime() + 1) }))
    assert.ok(!early.some((sale) => sale.soldAt.getTime() === check.reclosedAt!.getTime()), 'not sold before the check closed again')
  })

  test('an order closed exactly at the window end belongs to the next window (Square includes end_at)', async () => {
    const { check } = findLine(() => true)
    const { url } = await startSquare()
    const before = await collectSales(adapterAt(url).listSales({ start: new Date(check.closedAt.getTime() - 3_600_000), end: check.closedAt }))
    const from = await collectSales(adapterAt(url).listSales(instant(check.closedAt)))
    assert.ok(from.length > 0)
    assert.ok(!before.some((line) => line.soldAt.getTime() === check.closedAt.getTime()), 'the end instant is left to the next window')
  })

  test('names the team member who took each order payment on its lines', async () => {
    const { url } = await startSquare()
    const end = new Date(NOW.getTime() - 3 * DAY_MS)
    const window = { start: new Date(end.getTime() - DAY_MS), end }
    const staff = await adapterAt(url).listStaff()
    const lines = saleLines(await collectSales(adapterAt(url).listSales(window)))
    const linesPerName = new Map<string, number>()
    for (const line of lines) {
      assert.ok(
        staff.some((member) => member.staffId === line.staffId),
        `staff ${line.staffId} is a team member`,
      )
      linesPerName.set(line.staffName ?? '', (linesPerName.get(line.staffName ?? '') ?? 0) + 1)
    }
    const expected = new Map<string, number>()
    const add = (check: SimCheck, count: number) => {
      const member = STAFF.find((candidate) => candidate.key === check.staffKey)!
      const name = `${member.firstName} ${member.lastName}`
      if (count) expected.set(name, (expected.get(name) ?? 0) + count)
    }
    for (const check of checksClosedBetween(SEED, new Date(window.start.getTime() - DAY_MS), window.end, { now: NOW, historyDays: HISTORY_DAYS })) {
      if (check.closedAt >= window.start) add(check, check.lines.filter((line) => !line.voided && !line.addedOnReopen).length)
      if (check.reclosedAt && check.reclosedAt >= window.start && check.reclosedAt < window.end) add(check, check.lines.filter((line) => line.addedOnReopen).length)
    }
    assert.deepEqual(linesPerName, expected)
    assert.equal(staff.find((member) => member.name === 'Dave Miller')?.role, 'Manager')
  })
})

describe('square money and catalog', () => {
  test('reads money in the currency minor unit: JPY has none, KWD three', async () => {
    for (const [currency, stella] of [
      ['JPY', '750'],
      ['KWD', '0.750'],
      ['USD', '7.50'],
    ] as const) {
      const { url } = await startSquare({}, { currency })
      const products = await adapterAt(url).listProducts()
      assert.equal(products.find((product) => product.sku === 'DR-STEL-16')?.price, stella, currency)
      const { check, line } = findLine((candidate) => candidate.itemKey === 'stella-draft' && !candidate.voided && !candidate.addedOnReopen)
      const sold = (await collectSales(adapterAt(url).listSales(instant(check.closedAt)))).find((candidate) => candidate.name === menuEntry(line.itemKey).name)
      assert.equal(sold?.unitPrice, stella, `${currency} sale`)
    }
  })

  test('splits a tip in whole minor units of its currency, the shares adding up to it exactly', async () => {
    const { url } = await startSquare({}, { currency: 'JPY' })
    const soldAtClose = (check: SimCheck) => check.lines.filter((line) => !line.voided && !line.addedOnReopen)
    const check = historyChecks().find((candidate) => Number(candidate.tip) > 0 && soldAtClose(candidate).length >= 3)!
    const orderId = new SquareIds(SEED).order(check.checkId)
    const tips = (await collectSales(adapterAt(url).listSales(instant(check.closedAt)))).flatMap((line) => (line.checkId === orderId && line.tip !== null ? [line.tip] : []))
    assert.equal(tips.length, soldAtClose(check).length)
    for (const tip of tips) assert.match(tip, /^\d+$/, 'whole yen')
    // The bar's tip in cents is the JPY check's tip in yen.
    assert.equal(
      tips.reduce((total, tip) => total + Number(tip), 0),
      dollarsToCents(check.tip),
    )
  })

  test('lists only the catalog present at the connection location', async () => {
    const { url } = await startSquare()
    const atBar = (await adapterAt(url).listProducts()).map((product) => product.name)
    const atSister = (await adapterAt(url, { ...squareVendor.exampleCredentials, location_id: SISTER_LOCATION_ID }).listProducts()).map((product) => product.name)
    assert.ok(!atBar.includes('Frozen Margarita (Sister Bar)'), 'present only at the sister location')
    assert.ok(!atBar.includes('Loaded Nachos (Kitchen Locations)'), 'absent at the bar')
    assert.ok(atSister.includes('Frozen Margarita (Sister Bar)'))
    assert.ok(atSister.includes('Loaded Nachos (Kitchen Locations)'))
    assert.equal(atSister.length, atBar.length + 2)
  })

  test('an answer Square never documents is invalid_response naming the field', async () => {
    const cases: [string, (body: any) => void, RegExp][] = [
      ['currency', (body) => (body.orders[0].line_items[0].base_price_money.currency = 'dollars'), /base_price_money\.currency/],
      ['amount', (body) => (body.orders[0].line_items[0].base_price_money.amount = '750'), /base_price_money/],
      ['quantity', (body) => (body.orders[0].line_items[0].quantity = 2), /quantity/],
      ['closed_at', (body) => delete body.orders[0].closed_at, /closed_at/],
    ]
    const end = new Date(NOW.getTime() - DAY_MS)
    for (const [what, doctor, field] of cases) {
      const { url } = await serve(doctoredSearches(createSquareSimulator({ seed: SEED, historyDays: HISTORY_DAYS, now: () => NOW }), doctor))
      await assert.rejects(collectSales(adapterAt(url).listSales({ start: new Date(end.getTime() - DAY_MS), end })), (error) => {
        assert.ok(error instanceof PosAdapterError, what)
        assert.equal(error.kind, 'invalid_response', what)
        assert.match(error.message, field)
        return true
      })
    }
  })
})

describe('square simulator requests', () => {
  test('refuses an unknown body field, a wrong type and an unknown query parameter with Square 400s', async () => {
    const { url } = await startSquare()
    const start = new Date(NOW.getTime() - DAY_MS)
    const unknownField = await postJson(`${url}/v2/orders/search`, { ...searchBody(start, NOW), include_voids: true })
    assert.equal(unknownField.status, 400)
    assert.deepEqual(unknownField.body.errors[0], {
      category: 'INVALID_REQUEST_ERROR',
      code: 'UNKNOWN_BODY_PARAMETER',
      detail: 'Unknown body parameter `include_voids`',
      field: 'include_voids',
    })
    const nested = await postJson(`${url}/v2/orders/search`, { ...searchBody(start, NOW), query: { filter: { closed_at: {} } } })
    assert.equal(nested.body.errors[0].field, 'query.filter.closed_at')
    const wrongType = await postJson(`${url}/v2/orders/search`, { ...searchBody(start, NOW), limit: '10' })
    assert.equal(wrongType.body.errors[0].code, 'EXPECTED_INTEGER')
    const badEnum = await postJson(`${url}/v2/orders/search`, { ...searchBody(start, NOW), query: { sort: { sort_field: 'CLOSED', sort_order: 'ASC' } } })
    assert.equal(badEnum.body.errors[0].code, 'INVALID_ENUM_VALUE')
    const query = await fetch(`${url}/v2/payments?location_id=${BAR_LOCATION_ID}&created_after=2026-01-01`, { headers: token })
    assert.equal(query.status, 400)
    assert.equal(((await query.json()) as any).errors[0].code, 'UNKNOWN_QUERY_PARAMETER')
    const teamMembers = await postJson(`${url}/v2/team-members/search`, { limit: 10, page_size: 10 })
    assert.equal(teamMembers.body.errors[0].field, 'page_size')
    const refresh = await postJson(`${url}/oauth2/token`, { client_id: 'sq0idp-app', grant_type: 'refresh_token', refresh_token: 'EQAA', expires_in: 3600 })
    assert.equal(refresh.body.errors[0].code, 'UNKNOWN_BODY_PARAMETER')
    const grant = await postJson(`${url}/oauth2/token`, { client_id: 'sq0idp-app', grant_type: 'authorization_code', code: 'sq0cgp' })
    assert.equal(grant.status, 400)
  })

  test("refuses a bad token with Square's 401 error body", async () => {
    const { url } = await startSquare()
    const response = await fetch(`${url}/v2/catalog/list`, { headers: { authorization: 'Bearer invalid-token' } })
    assert.equal(response.status, 401)
    const body = (await response.json()) as { errors: { category: string; code: string }[] }
    assert.equal(body.errors[0]?.category, 'AUTHENTICATION_ERROR')
    assert.equal(body.errors[0]?.code, 'UNAUTHORIZED')
  })

  test('refuses a filter on closed_at sorted by another field, as Square does', async () => {
    const { url } = await startSquare()
    const response = await postJson(`${url}/v2/orders/search`, { location_ids: ['L1'], query: { filter: { date_time_filter: { closed_at: { start_at: NOW.toISOString() } } } } })
    assert.equal(response.status, 400)
  })

  test('serves money as integer minor units and quantities as strings', async () => {
    const { url } = await startSquare()
    const end = new Date(NOW.getTime() - DAY_MS)
    const body = (await postJson(`${url}/v2/orders/search`, { ...searchBody(new Date(end.getTime() - DAY_MS), end), limit: 5 })).body
    assert.equal(body.orders.length, 5)
    assert.ok(body.cursor, 'a full page carries a cursor')
    const line = body.orders[0].line_items[0]
    assert.equal(typeof line.quantity, 'string')
    assert.equal(line.base_price_money.amount, new Big(MENU.find((entry) => entry.name === line.name)!.price).times(100).toNumber())
    assert.equal(line.base_price_money.currency, 'USD')
  })
})

describe('square OAuth token renewal', () => {
  const APPLICATION_ID = 'sq0idp-BarstockTestApplication'
  const pkceVendor = createSquareVendor({ applicationId: APPLICATION_ID })
  const codeFlowVendor = createSquareVendor({ applicationId: APPLICATION_ID, applicationSecret: 'sq0csp-BarstockTestSecret' })

  /** A simulator on a clock the test moves, starting at the real time (the adapter reads expiry against it). */
  async function startWithClock() {
    const clock = { now: new Date() }
    return { clock, ...(await startSquare({ now: () => clock.now })) }
  }

  const oauthCredentials = (expiresAt: Date): PosCredentials => ({
    ...squareVendor.exampleCredentials,
    refresh_token: 'EQAAFirstRefreshToken',
    expires_at: expiresAt.toISOString(),
  })

  async function rejectsWith(action: Promise<unknown>, kind: string, message?: RegExp): Promise<void> {
    await assert.rejects(action, (error) => {
      assert.ok(error instanceof PosAdapterError)
      assert.equal(error.kind, kind)
      if (message) assert.match(error.message, message)
      return true
    })
  }

  test('renews a token close to expiry before using it, and hands over the rotated single-use refresh token (PKCE)', async () => {
    const { clock, url, calls } = await startWithClock()
    const rotations: PosCredentials[] = []
    const credentials = oauthCredentials(new Date(clock.now.getTime() + 60_000))
    const adapter = pkceVendor.createAdapter({ credentials, baseUrl: url, onCredentialsRotated: (rotated) => void rotations.push(rotated) })
    await adapter.verify()
    await adapter.listStaff()
    assert.equal(calls.get('POST /oauth2/token'), 1)
    assert.equal(rotations.length, 1)
    const rotated = rotations[0]!
    assert.notEqual(rotated.access_token, credentials.access_token)
    assert.notEqual(rotated.refresh_token, credentials.refresh_token)
    assert.equal(rotated.expires_at, new Date(clock.now.getTime() + 30 * DAY_MS).toISOString())
    assert.equal(rotated.location_id, credentials.location_id)
    assert.ok(Value.Check(pkceVendor.credentialsSchema, rotated), 'the rotated credentials fit the schema')
    await rejectsWith(pkceVendor.createAdapter({ credentials, baseUrl: url }).verify(), 'invalid_credentials')
  })

  test("renews with the deployment's application the gateway hands over (oauthApp, from the Config)", async () => {
    const { clock, url, calls } = await startWithClock()
    const rotations: PosCredentials[] = []
    const credentials = oauthCredentials(new Date(clock.now.getTime() + 60_000))
    const oauthApp = { clientId: APPLICATION_ID, clientSecret: undefined }
    await squareVendor.createAdapter({ credentials, baseUrl: url, oauthApp, onCredentialsRotated: (rotated) => void rotations.push(rotated) }).verify()
    assert.equal(calls.get('POST /oauth2/token'), 1)
    assert.equal(rotations.length, 1)
  })

  test('renews a token Square refuses as expired and retries the call', async () => {
    const { clock, url, calls } = await startWithClock()
    const issued = (await postJson(`${url}/oauth2/token`, { client_id: APPLICATION_ID, grant_type: 'refresh_token', refresh_token: 'EQAAFirstRefreshToken' })).body
    clock.now = new Date(clock.now.getTime() + 31 * DAY_MS)
    const rotations: PosCredentials[] = []
    const credentials = { ...squareVendor.exampleCredentials, access_token: issued.access_token, refresh_token: issued.refresh_token, expires_at: issued.expires_at }
    const adapter = pkceVendor.createAdapter({ credentials, baseUrl: url, onCredentialsRotated: (rotated) => void rotations.push(rotated) })
    assert.ok((await adapter.listProducts()).length > 0)
    assert.equal(calls.get('POST /oauth2/token'), 2)
    assert.equal(calls.get('GET /v2/catalog/list'), 2, 'the refused call is made again once')
    assert.equal(rotations.length, 1)
    assert.equal(rotations[0]!.expires_at, new Date(clock.now.getTime() + 30 * DAY_MS).toISOString())
  })

  test('keeps the refresh token of the code flow, which Square answers unchanged', async () => {
    const { clock, url } = await startWithClock()
    const rotations: PosCredentials[] = []
    const credentials = oauthCredentials(new Date(clock.now.getTime() - 60_000))
    await codeFlowVendor.createAdapter({ credentials, baseUrl: url, onCredentialsRotated: (rotated) => void rotations.push(rotated) }).verify()
    assert.equal(rotations[0]?.refresh_token, credentials.refresh_token)
    await codeFlowVendor.createAdapter({ credentials, baseUrl: url }).verify()
  })

  test('an expired token that cannot be renewed is invalid_credentials', async () => {
    const { clock, url } = await startWithClock()
    const issued = (await postJson(`${url}/oauth2/token`, { client_id: APPLICATION_ID, grant_type: 'refresh_token', refresh_token: 'EQAAFirstRefreshToken' })).body
    clock.now = new Date(clock.now.getTime() + 31 * DAY_MS)
    const expired = { ...squareVendor.exampleCredentials, access_token: issued.access_token }
    await rejectsWith(pkceVendor.createAdapter({ credentials: expired, baseUrl: url }).verify(), 'invalid_credentials', /ACCESS_TOKEN_EXPIRED/)
    const withoutApplication = createSquareVendor({ applicationId: undefined }).createAdapter({ credentials: { ...expired, refresh_token: issued.refresh_token }, baseUrl: url })
    await rejectsWith(withoutApplication.verify(), 'invalid_credentials', /SQUARE_APPLICATION_ID/)
  })

  test('the credentials schema takes a personal token alone or an OAuth token with its refresh token', () => {
    assert.ok(Value.Check(squareVendor.credentialsSchema, squareVendor.exampleCredentials))
    assert.ok(Value.Check(squareVendor.credentialsSchema, oauthCredentials(NOW)))
    assert.ok(!Value.Check(squareVendor.credentialsSchema, { ...squareVendor.exampleCredentials, client_secret: 'x' }))
  })
})

/**
 * square.json as published references `CatalogModifierToggleOverrideType` (from CatalogItemModifierListInfo
 * and CatalogModifierOverride) without defining it, so ajv cannot compile any catalog answer. Square's
 * reference (developer.squareup.com/reference/square/objects/CatalogModifierOverride) gives its values:
 * YES, NO, NOT_SET.
 */
function squareContract(): OpenApiContract {
  return new OpenApiContract('square.json', { CatalogModifierToggleOverrideType: { type: 'string', enum: ['YES', 'NO', 'NOT_SET'] } })
}

describe('square simulator against square.json', () => {
  const contract = squareContract()

  /** Every page of a GET list, each checked against the document. */
  async function checkGetPages(url: string, path: string, query: Record<string, string>, template = path): Promise<number> {
    let cursor: string | undefined
    let pages = 0
    do {
      const search = new URLSearchParams({ ...query, ...(cursor ? { cursor } : {}) })
      const body = (await (await fetch(`${url}${path}?${search}`, { headers: token })).json()) as { cursor?: string }
      contract.assertResponse('GET', template, 200, body)
      cursor = body.cursor
      pages++
    } while (cursor)
    return pages
  }

  test("every answer the simulator gives fits Square's published OpenAPI document", async () => {
    const { url } = await startSquare()
    contract.assertResponse('GET', '/v2/locations/{location_id}', 200, await (await fetch(`${url}/v2/locations/${BAR_LOCATION_ID}`, { headers: token })).json())
    assert.equal(await checkGetPages(url, '/v2/catalog/list', { types: 'ITEM,ITEM_VARIATION,CATEGORY,MODIFIER_LIST' }), 1)
    assert.ok((await checkGetPages(url, '/v2/catalog/list', { types: 'ITEM_VARIATION' })) >= 1)
    const start = new Date(NOW.getTime() - 4 * DAY_MS)
    assert.ok((await checkGetPages(url, '/v2/payments', { location_id: BAR_LOCATION_ID, begin_time: start.toISOString(), end_time: NOW.toISOString(), sort_order: 'ASC' })) > 1)
    // Every state, so the cancelled orders are checked too; four days hold modifiers, returns and reopened checks.
    let cursor: string | undefined
    const kinds = new Set<string>()
    do {
      const { body } = await postJson(`${url}/v2/orders/search`, {
        ...searchBody(start, NOW),
        query: { ...searchBody(start, NOW).query, filter: { date_time_filter: { closed_at: { start_at: start.toISOString(), end_at: NOW.toISOString() } } } },
        limit: 200,
        cursor,
      })
      contract.assertResponse('POST', '/v2/orders/search', 200, body)
      for (const order of body.orders) {
        if (order.state === 'CANCELED') kinds.add('canceled')
        if (order.returns) kinds.add('return')
        if (order.line_items?.some((line: any) => line.modifiers)) kinds.add('modifiers')
      }
      cursor = body.cursor
    } while (cursor)
    assert.deepEqual([...kinds].sort(), ['canceled', 'modifiers', 'return'])
    contract.assertResponse('POST', '/v2/team-members/search', 200, (await postJson(`${url}/v2/team-members/search`, { limit: 100 })).body)
    const refresh = await postJson(`${url}/oauth2/token`, { client_id: 'sq0idp-app', grant_type: 'refresh_token', refresh_token: 'EQAAsimulated' })
    assert.equal(refresh.status, 200)
    contract.assertResponse('POST', '/oauth2/token', 200, refresh.body)
    // Square's answers carry `errors` in the same shape: the codes the simulator refuses with are Square's.
    contract.assertResponse('POST', '/v2/orders/search', 200, (await postJson(`${url}/v2/orders/search`, { limit: 'ten' })).body)
    contract.assertResponse('POST', '/v2/orders/search', 200, (await postJson(`${url}/v2/orders/search`, { location: 'L1' })).body)
  })

  test('the simulator accepts only request fields square.json defines', () => {
    const document = JSON.parse(readFileSync(fileURLToPath(new URL('../../../../test/fixtures/vendor-specs/square.json', import.meta.url)), 'utf8'))
    const resolve = (schema: any): any => (schema?.$ref ? resolve(document.components.schemas[schema.$ref.split('/').at(-1)]) : schema)
    const requestSchema = (method: string, path: string) => resolve(document.paths[path][method].requestBody.content['application/json'].schema)
    function assertDefined(shape: ObjectShape, schema: any, at: string): void {
      for (const [field, fieldShape] of Object.entries(shape)) {
        const property = resolve(schema.properties?.[field])
        assert.ok(property, `${at}.${field} is in square.json`)
        if (typeof fieldShape === 'string') continue
        if ('enum' in fieldShape)
          assert.ok(
            (fieldShape.enum as string[]).every((value) => (property.enum ? property.enum.includes(value) : property.type === 'string')),
            `${at}.${field} values`,
          )
        else if ('enumList' in fieldShape)
          assert.ok(
            (fieldShape.enumList as string[]).every((value) => resolve(property.items).enum.includes(value)),
            `${at}.${field} values`,
          )
        else assertDefined(fieldShape, property, `${at}.${field}`)
      }
    }
    assertDefined(SEARCH_ORDERS_BODY, requestSchema('post', '/v2/orders/search'), 'SearchOrdersRequest')
    assertDefined(SEARCH_TEAM_MEMBERS_BODY, requestSchema('post', '/v2/team-members/search'), 'SearchTeamMembersRequest')
    assertDefined(OBTAIN_TOKEN_BODY, requestSchema('post', '/oauth2/token'), 'ObtainTokenRequest')
    const parameters = (path: string) => document.paths[path].get.parameters.map((parameter: { name: string }) => parameter.name)
    for (const name of LIST_CATALOG_QUERY) assert.ok(parameters('/v2/catalog/list').includes(name), name)
    for (const name of LIST_PAYMENTS_QUERY) assert.ok(parameters('/v2/payments').includes(name), name)
  })
})

test('verifies a Square push signature over the notification URL and body', () => {
  const url = 'https://bar.example.com/v1/pos/webhooks/square'
  const body = Buffer.from(JSON.stringify({ merchant_id: 'M1', type: 'order.updated', event_id: 'e1', data: {} }))
  const signature = createHmac('sha256', 'signature-key')
    .update(url + body.toString())
    .digest('base64')
  const headers = { 'x-square-hmacsha256-signature': signature }
  assert.deepEqual(squareVendor.parsePush!(headers, body, 'signature-key', url), { kind: 'orders_changed' })
  assert.throws(() => squareVendor.parsePush!(headers, body, 'other-key', url), /signature/)
  assert.throws(() => squareVendor.parsePush!(headers, Buffer.from(body.toString().replace('order', 'catalog')), 'signature-key', url), /signature/)
})
