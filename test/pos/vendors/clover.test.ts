import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import Big from 'big.js'
import { request } from 'undici'
import { Value } from 'typebox/value'
import { PosAdapterError, type PosCredentials, type PosSaleLine, type SalesWindow, type SimulatorHandler } from '../../../src/pos/vendors/adapter.js'
import { checksClosedBetween, MENU, menuEntry, MODIFIERS, type SimCheck, type SimLine } from '../../../src/pos/simulation/bar-data.js'
import { sendJson, startSimulatorServer, type RunningSimulator } from '../../../src/pos/simulation/simulator-server.js'
import { cloverVendor, createCloverVendor } from '../../../src/pos/vendors/clover/index.js'
import { OpenApiContract } from '../../helpers/openapi-contract.js'
import { describeAdapterContract, collectSales } from './adapter-contract.js'
import { DAY_MS } from '../../../src/platform/zoned-time.js'

describeAdapterContract(cloverVendor)

const NOW = new Date('2026-11-20T15:00:00.000Z')
const SEED = 11
const HISTORY_DAYS = 30
const MERCHANT = cloverVendor.exampleCredentials.merchant_id!
const vendorWithApp = createCloverVendor({ appId: 'BARSTOCKTESTAPP' })

const running: RunningSimulator[] = []
after(async () => {
  await Promise.all(running.map((simulator) => simulator.close()))
})

interface CountedSimulator {
  url: string
  /** Requests served, by path without the query. */
  calls: Map<string, number>
}

/** A Clover simulator that counts the requests it is sent, by path; it lives at `now` (NOW unless told). */
async function countedSimulator(now = NOW): Promise<CountedSimulator> {
  const calls = new Map<string, number>()
  const handler: SimulatorHandler = vendorWithApp.createSimulator({ seed: SEED, historyDays: HISTORY_DAYS, now: () => now })
  const server = await startSimulatorServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!
    calls.set(path, (calls.get(path) ?? 0) + 1)
    handler(req, res)
  })
  running.push(server)
  return { url: server.url, calls }
}

async function rawRequest(url: string, options: { method?: 'GET' | 'POST'; token?: string; json?: unknown } = {}) {
  const headers: Record<string, string> = {}
  if (options.token) headers.authorization = `Bearer ${options.token}`
  if (options.json !== undefined) headers['content-type'] = 'application/json'
  const response = await request(url, { method: options.method ?? 'GET', headers, body: options.json === undefined ? undefined : JSON.stringify(options.json) })
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, any> }
}

/** Units per name (lines, modifiers and corrections alike), as decimal strings. */
function unitsByName(lines: PosSaleLine[]): Map<string, string> {
  const totals = new Map<string, Big>()
  for (const line of lines) totals.set(line.name, (totals.get(line.name) ?? new Big(0)).plus(line.quantity))
  return new Map([...totals].map(([name, total]) => [name, total.toString()]))
}

/** When the bar took a line back after its check was paid: a refund, or a manager's void after close. */
function takenBackAt(line: SimLine): Date | null {
  return line.refundedAt ?? line.voidedAfterCloseAt
}

/** When Clover shows a line paid, seen at `asOf`: its check's close, or its second close for a line added on reopening. */
function paidAt(check: SimCheck, line: SimLine, asOf: Date): Date | null {
  if (line.voided) return null
  const paid = line.addedOnReopen ? check.reclosedAt : check.closedAt
  return paid !== null && paid <= asOf ? paid : null
}

function isIn(window: SalesWindow, time: Date | null): boolean {
  return time !== null && time >= window.start && time < window.end
}

/**
 * What a Clover listing of `window` holds, seen at `asOf`, by name: the units sold (lines and their
 * modifiers paid in the window, taken back later or not) and the units taken back in it (negative).
 */
function expectedInWindow(window: SalesWindow, asOf: Date): { sold: Map<string, string>; takenBack: Map<string, string> } {
  const sold = new Map<string, Big>()
  const takenBack = new Map<string, Big>()
  const add = (totals: Map<string, Big>, line: SimLine, sign: number) => {
    for (const { itemKey, quantity } of [line, ...line.modifiers]) {
      const name = menuEntry(itemKey).name
      totals.set(name, (totals.get(name) ?? new Big(0)).plus(quantity * sign))
    }
  }
  // Refunds come within 48 hours of the close: checks closed three days before the window may have one in it.
  const checks = checksClosedBetween(SEED, new Date(window.start.getTime() - 3 * DAY_MS), window.end, { now: asOf, historyDays: HISTORY_DAYS })
  for (const check of checks) {
    for (const line of check.lines) {
      if (isIn(window, paidAt(check, line, asOf))) add(sold, line, 1)
      const taken = takenBackAt(line)
      if (paidAt(check, line, asOf) && taken !== null && taken <= asOf && isIn(window, taken)) add(takenBack, line, -1)
    }
  }
  const asStrings = (totals: Map<string, Big>) => new Map([...totals].map(([name, total]) => [name, total.toString()]))
  return { sold: asStrings(sold), takenBack: asStrings(takenBack) }
}

/** Checks of the simulated bar closed in the history's middle weeks, and the only one closed at their minute (so a test can find its lines by time). */
function checksClosedAlone(): SimCheck[] {
  const checks = checksClosedBetween(SEED, new Date(NOW.getTime() - 20 * DAY_MS), new Date(NOW.getTime() - 5 * DAY_MS), { now: NOW, historyDays: HISTORY_DAYS })
  const closings = new Map<number, number>()
  for (const check of checks) closings.set(check.closedAt.getTime(), (closings.get(check.closedAt.getTime()) ?? 0) + 1)
  return checks.filter((check) => closings.get(check.closedAt.getTime()) === 1)
}

function hoursAround(time: Date, before: number, after: number): SalesWindow {
  return { start: new Date(time.getTime() - before * 3_600_000), end: new Date(time.getTime() + after * 3_600_000) }
}

async function listWindow(window: SalesWindow, now = NOW): Promise<PosSaleLine[]> {
  const simulator = await countedSimulator(now)
  return collectSales(cloverVendor.createAdapter({ credentials: cloverVendor.exampleCredentials, baseUrl: simulator.url }).listSales(window))
}

/** Credentials whose stored access token has run out, so the adapter must renew it. */
const expiredCredentials: PosCredentials = { merchant_id: MERCHANT, access_token: 'expired-access-token', refresh_token: 'first-refresh-token' }

describe('clover token renewal', () => {
  test('renews an expired token once and reuses the new one for every later call', async () => {
    const simulator = await countedSimulator()
    const rotations: PosCredentials[] = []
    const adapter = vendorWithApp.createAdapter({
      credentials: expiredCredentials,
      baseUrl: simulator.url,
      onCredentialsRotated: (credentials) => void rotations.push(credentials),
    })
    await adapter.verify()
    await adapter.listProducts()
    await adapter.listStaff()
    await collectSales(adapter.listSales({ start: new Date(NOW.getTime() - DAY_MS), end: NOW }))
    assert.equal(simulator.calls.get('/oauth/v2/refresh'), 1)
    assert.equal(rotations.length, 1)
    assert.equal(rotations[0]!.merchant_id, MERCHANT)
    assert.notEqual(rotations[0]!.access_token, expiredCredentials.access_token)
    assert.notEqual(rotations[0]!.refresh_token, expiredCredentials.refresh_token)
  })

  test('reports the rotated refresh token, after which the old one is refused', async () => {
    const simulator = await countedSimulator()
    const rotations: PosCredentials[] = []
    const adapter = vendorWithApp.createAdapter({
      credentials: expiredCredentials,
      baseUrl: simulator.url,
      onCredentialsRotated: (credentials) => void rotations.push(credentials),
    })
    await adapter.verify()
    const reused = await rawRequest(`${simulator.url}/oauth/v2/refresh`, {
      method: 'POST',
      json: { client_id: 'BARSTOCKTESTAPP', refresh_token: expiredCredentials.refresh_token },
    })
    assert.equal(reused.status, 401)
    assert.equal(typeof reused.body.message, 'string')

    const again = vendorWithApp.createAdapter({ credentials: expiredCredentials, baseUrl: simulator.url })
    await assert.rejects(again.verify(), (error: unknown) => error instanceof PosAdapterError && error.kind === 'invalid_credentials')

    const refreshesBefore = simulator.calls.get('/oauth/v2/refresh')
    const withRotated = vendorWithApp.createAdapter({ credentials: rotations[0]!, baseUrl: simulator.url })
    await withRotated.verify()
    assert.equal(simulator.calls.get('/oauth/v2/refresh'), refreshesBefore, 'the rotated access token works without another refresh')
  })

  test("renews with the deployment's app the gateway hands over (oauthApp, from the Config)", async () => {
    const simulator = await countedSimulator()
    const rotations: PosCredentials[] = []
    const oauthApp = { clientId: 'BARSTOCKTESTAPP' }
    await cloverVendor
      .createAdapter({ credentials: expiredCredentials, baseUrl: simulator.url, oauthApp, onCredentialsRotated: (rotated) => void rotations.push(rotated) })
      .verify()
    assert.equal(simulator.calls.get('/oauth/v2/refresh'), 1)
    assert.equal(rotations.length, 1)
  })

  test('answers invalid_credentials for an expired token when no app id is configured to renew it', async () => {
    const simulator = await countedSimulator()
    const adapter = createCloverVendor({ appId: undefined }).createAdapter({ credentials: expiredCredentials, baseUrl: simulator.url })
    await assert.rejects(adapter.verify(), (error: unknown) => error instanceof PosAdapterError && error.kind === 'invalid_credentials')
    assert.equal(simulator.calls.get('/oauth/v2/refresh'), undefined)
  })
})

describe('clover pagination', () => {
  test('follows every page of orders in a window of more than one page', async () => {
    const simulator = await countedSimulator()
    const adapter = createCloverVendor({ pageSize: 200 }).createAdapter({ credentials: cloverVendor.exampleCredentials, baseUrl: simulator.url })
    const end = new Date(NOW.getTime() - DAY_MS)
    const window = { start: new Date(end.getTime() - 7 * DAY_MS), end }
    const lines = await collectSales(adapter.listSales(window))

    const expected = expectedInWindow(window, NOW)
    assert.ok(checksClosedBetween(SEED, window.start, window.end, { now: NOW, historyDays: HISTORY_DAYS }).length > 600, 'the window holds several pages of orders')
    assert.deepEqual(unitsByName(lines.filter((line) => !line.correctsLineId)), expected.sold)
    assert.deepEqual(unitsByName(lines.filter((line) => line.correctsLineId)), expected.takenBack)
    assert.ok(simulator.calls.get(`/v3/merchants/${MERCHANT}/orders`)! >= 4, 'the adapter read several pages')
  })
})

describe('clover simulator wire format', () => {
  test('refuses a data call without a bearer token with 401 and a message body', async () => {
    const simulator = await countedSimulator()
    const response = await rawRequest(`${simulator.url}/v3/merchants/${MERCHANT}/items`)
    assert.equal(response.status, 401)
    assert.deepEqual(response.body, { message: '401 Unauthorized' })
  })

  test('serves item prices as integer cents and categories only when expanded', async () => {
    const simulator = await countedSimulator()
    const plain = await rawRequest(`${simulator.url}/v3/merchants/${MERCHANT}/items?limit=1000`, { token: 'merchant-token' })
    assert.equal(plain.body.elements.length, MENU.length)
    const stella = plain.body.elements.find((item: { name: string }) => item.name === 'Stella Artois Draft Pint')
    assert.equal(stella.price, 750)
    assert.equal(stella.categories, undefined)
    const expanded = await rawRequest(`${simulator.url}/v3/merchants/${MERCHANT}/items?expand=categories&limit=2&offset=1`, { token: 'merchant-token' })
    assert.equal(expanded.body.elements.length, 2)
    assert.equal(expanded.body.elements[0].categories.elements[0].name, MENU[1]!.category)
  })

  test('writes one line item per unit sold, in cents, with voided lines removed', async () => {
    const simulator = await countedSimulator()
    const end = NOW.getTime() - DAY_MS
    const start = end - DAY_MS
    const url = `${simulator.url}/v3/merchants/${MERCHANT}/orders?filter=createdTime>=${start}&filter=createdTime<${end}&expand=lineItems,payments&limit=1000`
    const response = await rawRequest(url, { token: 'merchant-token' })
    const checks = checksClosedBetween(SEED, new Date(start), new Date(end + DAY_MS), { now: NOW, historyDays: HISTORY_DAYS }).filter(
      (check) => check.openedAt.getTime() >= start && check.openedAt.getTime() < end,
    )
    assert.equal(response.body.elements.length, checks.length)
    const lineItems = response.body.elements.flatMap((order: { lineItems: { elements: unknown[] } }) => order.lineItems.elements)
    const units = checks.flatMap((check) => check.lines.filter((line) => !line.voided)).reduce((sum, line) => sum + line.quantity, 0)
    assert.equal(lineItems.length, units)
    for (const line of lineItems) assert.ok(Number.isInteger(line.price), `price ${line.price} is integer cents`)
    const tipCents = response.body.elements.reduce((sum: number, order: { payments: { elements: { tipAmount: number }[] } }) => sum + order.payments.elements[0]!.tipAmount, 0)
    const expectedTips = checks.reduce((sum, check) => sum.plus(check.tip), new Big(0))
    assert.equal(tipCents, expectedTips.times(100).toNumber())
  })
})

describe('clover vendor description', () => {
  test('picks the production host by region', () => {
    assert.equal(cloverVendor.productionBaseUrl({ merchant_id: MERCHANT, access_token: 't' }), 'https://api.clover.com')
    assert.equal(cloverVendor.productionBaseUrl({ merchant_id: MERCHANT, access_token: 't', region: 'eu' }), 'https://api.eu.clover.com')
    assert.equal(cloverVendor.productionBaseUrl({ merchant_id: MERCHANT, access_token: 't', region: 'la' }), 'https://api.la.clover.com')
  })

  test('accepts the example credentials and refuses unknown fields and regions', () => {
    assert.ok(Value.Check(cloverVendor.credentialsSchema, cloverVendor.exampleCredentials))
    assert.ok(!Value.Check(cloverVendor.credentialsSchema, { ...cloverVendor.exampleCredentials, client_secret: 'x' }))
    assert.ok(!Value.Check(cloverVendor.credentialsSchema, { ...cloverVendor.exampleCredentials, region: 'apac' }))
    assert.ok(!Value.Check(cloverVendor.credentialsSchema, { merchant_id: MERCHANT }))
  })

  test('splits each check tip over its lines to the cent', async () => {
    const simulator = await countedSimulator()
    const adapter = cloverVendor.createAdapter({ credentials: cloverVendor.exampleCredentials, baseUrl: simulator.url })
    const end = new Date(NOW.getTime() - DAY_MS)
    const start = new Date(end.getTime() - DAY_MS)
    const lines = await collectSales(adapter.listSales({ start, end }))
    const tips = lines.reduce((sum, line) => sum.plus(line.tip ?? '0'), new Big(0))
    // Every rung line is a sale, refunded later or not; a tip is on the first payment, which pays the lines rung before the first close.
    const checks = checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS }).filter((check) => check.lines.some((line) => !line.voided && !line.addedOnReopen))
    assert.equal(tips.toFixed(2), checks.reduce((sum, check) => sum.plus(check.tip), new Big(0)).toFixed(2))
  })
})

describe('clover pushes', () => {
  const secret = 'a3f0c9e2-clover-webhook-auth-code'
  const body = (objectIds: string[]) =>
    Buffer.from(JSON.stringify({ appId: 'BARSTOCKTESTAPP', merchants: { [MERCHANT]: objectIds.map((objectId) => ({ objectId, type: 'UPDATE', ts: NOW.getTime() })) } }))

  test('reads an order push carrying the right X-Clover-Auth as orders_changed', () => {
    const push = cloverVendor.parsePush!({ 'x-clover-auth': secret }, body(['I:ITEM1', 'O:ORDER1']), secret, 'https://bar.example/hooks/clover')
    assert.deepEqual(push, { kind: 'orders_changed', accountIds: [MERCHANT] })
  })

  test('reads an item push as catalog_changed and anything else as other', () => {
    assert.deepEqual(cloverVendor.parsePush!({ 'x-clover-auth': secret }, body(['I:ITEM1']), secret, ''), { kind: 'catalog_changed', accountIds: [MERCHANT] })
    assert.deepEqual(cloverVendor.parsePush!({ 'x-clover-auth': secret }, body(['C:CUSTOMER1']), secret, ''), { kind: 'other', accountIds: [MERCHANT] })
  })

  test('names every merchant of a push, for the one app-wide URL Clover posts to', () => {
    const twoMerchants = {
      appId: 'BARSTOCKTESTAPP',
      merchants: { [MERCHANT]: [{ objectId: 'O:ORDER1', type: 'CREATE', ts: 1 }], SECONDMERCHANT1: [{ objectId: 'I:ITEM1', type: 'UPDATE', ts: 2 }] },
    }
    const push = cloverVendor.parsePush!({ 'x-clover-auth': secret }, Buffer.from(JSON.stringify(twoMerchants)), secret, '')
    assert.deepEqual(push, { kind: 'orders_changed', accountIds: [MERCHANT, 'SECONDMERCHANT1'] })
  })

  test('captures the verification code Clover posts, without X-Clover-Auth, when the webhook URL is set up', () => {
    const verification = Buffer.from(JSON.stringify({ verificationCode: 'ce7643c1-83ea-4218-abe6-da876c9c7a0a' }))
    const push = cloverVendor.parsePush!({}, verification, secret, 'https://bar.example/v1/pos/push/clover')
    assert.deepEqual(push, { kind: 'other', accountIds: [], verificationCode: 'ce7643c1-83ea-4218-abe6-da876c9c7a0a' })
  })

  test('refuses a push with a wrong or missing X-Clover-Auth', () => {
    assert.throws(() => cloverVendor.parsePush!({ 'x-clover-auth': `${secret}x` }, body(['O:ORDER1']), secret, ''))
    assert.throws(() => cloverVendor.parsePush!({}, body(['O:ORDER1']), secret, ''))
  })
})

describe('clover sales windows', () => {
  test('dates a tab at its close: a tab opened before the window and closed in it is listed in it', async () => {
    // A Saturday evening, when the bar is busiest.
    const start = new Date('2026-11-14T20:00:00.000Z')
    const window = { start, end: new Date(start.getTime() + DAY_MS) }
    const crossing = checksClosedBetween(SEED, window.start, window.end, { now: NOW, historyDays: HISTORY_DAYS }).filter((check) => check.openedAt < start)
    assert.ok(crossing.length >= 10, 'tabs opened before the window closed in it')
    const lines = await listWindow(window)
    const expected = expectedInWindow(window, NOW)
    assert.deepEqual(unitsByName(lines.filter((line) => !line.correctsLineId)), expected.sold)
    for (const line of lines) assert.ok(isIn(window, line.soldAt), `${line.lineId} sold at ${line.soldAt.toISOString()}`)
    const soldAtCrossingCloses = lines.filter((line) => crossing.some((check) => check.closedAt.getTime() === line.soldAt.getTime()))
    assert.ok(soldAtCrossingCloses.length >= crossing.length, 'each crossing tab is dated at its close')
  })

  test('a refund made in a later window: the first window shows the sale, the later one only its correction', async () => {
    const candidates = checksClosedAlone().flatMap((check) =>
      check.lines.filter((line) => line.refundedAt && line.refundedAt.getTime() - check.closedAt.getTime() > 2 * 3_600_000).map((line) => ({ check, line })),
    )
    const { check, line } = candidates.find(({ line }) => line.modifiers.length > 0) ?? candidates[0]!
    const refundedAt = line.refundedAt!
    const name = menuEntry(line.itemKey).name
    const first = hoursAround(check.closedAt, 1, 1)
    const second = { start: first.end, end: new Date(refundedAt.getTime() + 3_600_000) }

    // Window 1, synced when it ended: the refund is not made yet.
    const firstLines = await listWindow(first, first.end)
    const sold = firstLines.filter((sale) => sale.name === name && sale.soldAt.getTime() === check.closedAt.getTime() && !sale.parentLineId)
    assert.equal(sold.length, line.quantity, 'one Clover line per unit sold')
    const soldIds = new Set(firstLines.filter((sale) => sale.checkId === sold[0]!.checkId && !sale.correctsLineId).map((sale) => sale.lineId))
    assert.equal(firstLines.filter((sale) => sale.correctsLineId && soldIds.has(sale.correctsLineId) && sale.name === name).length, 0, 'no refund yet')

    // Window 2, synced now: the refund, and nothing of the sale again.
    const secondLines = await listWindow(second)
    assert.deepEqual(unitsByName(secondLines.filter((sale) => sale.correctsLineId)), expectedInWindow(second, NOW).takenBack)
    const corrections = secondLines.filter(
      (sale) => sale.correctsLineId && sale.soldAt.getTime() === refundedAt.getTime() && sold.some((unit) => unit.lineId === sale.correctsLineId),
    )
    assert.equal(corrections.length, line.quantity)
    for (const correction of corrections) {
      assert.equal(correction.quantity, '-1')
      assert.equal(correction.unitPrice, line.unitPrice)
      assert.equal(correction.lineId, `${correction.lineId.split(':')[0]}:${correction.correctsLineId}`, 'its own id: the refund and the line')
    }
    const modifierCorrections = secondLines.filter((sale) => sale.correctsLineId && soldIds.has(sale.correctsLineId) && sale.name !== name)
    assert.equal(modifierCorrections.length, line.modifiers.length * line.quantity, "the line's modifiers are taken back with it")
    assert.equal(secondLines.filter((sale) => soldIds.has(sale.lineId)).length, 0, 'the sale is not listed again')
  })

  test("a manager's void after close is a refund on Clover: a correction at the time of the void", async () => {
    const { check, line } = checksClosedAlone().flatMap((check) => check.lines.filter((line) => line.voidedAfterCloseAt).map((line) => ({ check, line })))[0]!
    const voidedAt = line.voidedAfterCloseAt!
    const window = { start: new Date(check.closedAt.getTime() - 3_600_000), end: new Date(voidedAt.getTime() + 3_600_000) }
    const lines = await listWindow(window)
    const expected = expectedInWindow(window, NOW)
    assert.deepEqual(unitsByName(lines.filter((sale) => !sale.correctsLineId)), expected.sold)
    assert.deepEqual(unitsByName(lines.filter((sale) => sale.correctsLineId)), expected.takenBack)
    const lineIds = new Set(lines.map((sale) => sale.lineId))
    const voids = lines.filter((sale) => sale.correctsLineId && sale.soldAt.getTime() === voidedAt.getTime() && sale.name === menuEntry(line.itemKey).name)
    assert.equal(voids.length, line.quantity)
    for (const correction of voids) assert.ok(lineIds.has(correction.correctsLineId!), 'it names the sold line')
  })

  test('a reopened order: the line added is sold when the order is paid again, and not listed before', async () => {
    const check = checksClosedAlone().find((candidate) => candidate.reclosedAt && candidate.lines.some((line) => !line.voided && !line.addedOnReopen))!
    const reclosedAt = check.reclosedAt!
    const added = check.lines.find((line) => line.addedOnReopen)!
    const firstState = (lines: PosSaleLine[]) => {
      const checkId = lines.find((sale) => sale.soldAt.getTime() === check.closedAt.getTime())!.checkId
      return lines.filter((sale) => sale.checkId === checkId)
    }
    const original = check.lines.filter((line) => !line.voided && !line.addedOnReopen)
    const originalUnits = original.reduce((sum, line) => sum + line.quantity * (1 + line.modifiers.length), 0)

    const before = firstState(await listWindow(hoursAround(check.closedAt, 1, 2), new Date(reclosedAt.getTime() - 1)))
    assert.equal(before.length, originalUnits, 'reopened, not paid again: the order as first closed')
    assert.ok(before.every((sale) => sale.soldAt.getTime() === check.closedAt.getTime()))

    const after = firstState(await listWindow(hoursAround(check.closedAt, 1, 2)))
    assert.equal(after.length, originalUnits + 1)
    const addedLines = after.filter((sale) => sale.soldAt.getTime() === reclosedAt.getTime())
    assert.deepEqual(
      addedLines.map((sale) => [sale.name, sale.quantity, sale.unitPrice]),
      [[menuEntry(added.itemKey).name, '1', added.unitPrice]],
    )
  })

  test('lists each modifier as a line of its own modifier product, naming its parent line', async () => {
    const simulator = await countedSimulator()
    const adapter = cloverVendor.createAdapter({ credentials: cloverVendor.exampleCredentials, baseUrl: simulator.url })
    const products = await adapter.listProducts()
    const window = { start: new Date(NOW.getTime() - 3 * DAY_MS), end: new Date(NOW.getTime() - DAY_MS) }
    const lines = await collectSales(adapter.listSales(window))
    const modifierLines = lines.filter((line) => line.parentLineId)
    const modifierNames = new Set(MODIFIERS.map((modifier) => modifier.name))
    assert.ok(modifierLines.length > 0)
    const byId = new Map(lines.map((line) => [line.lineId, line]))
    for (const modifierLine of modifierLines) {
      const parent = byId.get(modifierLine.parentLineId!)
      assert.ok(parent && !parent.parentLineId, `${modifierLine.lineId} names a listed line`)
      assert.equal(parent.checkId, modifierLine.checkId)
      assert.equal(parent.soldAt.getTime(), modifierLine.soldAt.getTime())
      const product = products.find((candidate) => candidate.posItemId === modifierLine.posItemId)
      assert.ok(product && modifierNames.has(product.name), `${modifierLine.name} is a listed modifier`)
      assert.equal(modifierLine.unitPrice, MODIFIERS.find((modifier) => modifier.name === modifierLine.name)!.price)
    }
    const expected = expectedInWindow(window, NOW).sold
    const expectedModifiers = new Map([...expected].filter(([name]) => modifierNames.has(name)))
    assert.deepEqual(unitsByName(modifierLines.filter((line) => !line.correctsLineId)), expectedModifiers)
    assert.deepEqual(
      products
        .filter((product) => modifierNames.has(product.name))
        .map((product) => [product.name, product.category, product.price])
        .sort(),
      MODIFIERS.map((modifier) => [modifier.name, modifier.category, modifier.price]).sort(),
    )
  })
})

describe('clover simulator against the vendor documents', () => {
  const document = new OpenApiContract('clover.yml')
  /** The document's path templates of the routes whose answers it describes. */
  const DOCUMENTED_ROUTES: [RegExp, string][] = [
    [/^\/v3\/merchants\/[^/]+\/items$/, '/v3/merchants/{mId}/items'],
    [/^\/v3\/merchants\/[^/]+\/orders$/, '/v3/merchants/{mId}/orders'],
    [/^\/v3\/merchants\/[^/]+\/employees$/, '/v3/merchants/{mId}/employees'],
  ]

  /**
   * Clover wraps every expanded collection as `{elements: [...]}` (docs.clover.com/docs/expanding-fields
   * shows `"categories": {"elements": [...]}`), while the third-party clover.yml types those fields as
   * plain arrays: the answer is checked with its collections unwrapped, everything else as sent.
   */
  function withCollectionsUnwrapped(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(withCollectionsUnwrapped)
    if (value === null || typeof value !== 'object') return value
    return Object.fromEntries(
      Object.entries(value).map(([key, field]) => {
        const elements = (field as { elements?: unknown } | null)?.elements
        return [key, Array.isArray(elements) ? elements.map(withCollectionsUnwrapped) : withCollectionsUnwrapped(field)]
      }),
    )
  }

  test('answers every call the adapter makes as clover.yml documents it', async () => {
    const handler = cloverVendor.createSimulator({ seed: SEED, historyDays: HISTORY_DAYS, now: () => NOW })
    const checked = new Map<string, number>()
    const mismatches: string[] = []
    const server = await startSimulatorServer((req, res) => {
      const template = DOCUMENTED_ROUTES.find(([pattern]) => pattern.test((req.url ?? '').split('?')[0]!))?.[1]
      const end = res.end.bind(res)
      res.end = ((chunk: unknown, ...rest: unknown[]) => {
        if (template && res.statusCode === 200) {
          const body = JSON.parse(String(chunk)) as { elements: unknown[] }
          try {
            document.assertResponse('GET', template, 200, { ...body, elements: body.elements.map(withCollectionsUnwrapped) })
          } catch (error) {
            mismatches.push((error as Error).message)
          }
          checked.set(template, (checked.get(template) ?? 0) + 1)
        }
        return end(chunk as string, ...(rest as []))
      }) as typeof res.end
      handler(req, res)
    })
    running.push(server)
    const adapter = cloverVendor.createAdapter({ credentials: cloverVendor.exampleCredentials, baseUrl: server.url })
    await adapter.verify()
    await adapter.listProducts()
    await adapter.listStaff()
    await collectSales(adapter.listSales({ start: new Date(NOW.getTime() - HISTORY_DAYS * DAY_MS), end: NOW }))
    assert.deepEqual(mismatches, [])
    assert.deepEqual([...checked.keys()].sort(), DOCUMENTED_ROUTES.map(([, template]) => template).sort())
  })

  test('refuses a query parameter, filter field or expansion the route does not document with 400', async () => {
    const simulator = await countedSimulator()
    const orders = `${simulator.url}/v3/merchants/${MERCHANT}/orders`
    const refusals = [
      [`${orders}?since=1`, 'Unknown query parameter: since'],
      [`${orders}?filter=closedTime>=1`, 'Invalid filter field: closedTime'],
      [`${orders}?expand=lineItems,tips`, 'Invalid expand field: tips'],
      [`${simulator.url}/v3/merchants/${MERCHANT}/items?expand=modifiers`, 'Invalid expand field: modifiers'],
      [`${simulator.url}/v3/merchants/${MERCHANT}/employees?expand=role`, 'Invalid expand field: role'],
    ] as const
    for (const [url, message] of refusals) {
      const response = await rawRequest(url, { token: 'merchant-token' })
      assert.equal(response.status, 400, url)
      assert.deepEqual(response.body, { message })
    }
  })

  test('reads money that is not integer cents, or a unitQty that is not integer thousandths, as invalid_response naming the field', async () => {
    const paidAt = NOW.getTime() - 3_600_000
    const line = { id: 'LINE1', item: { id: 'ITEM1' }, name: 'Bud Light Btl', price: 500 }
    const payment = { id: 'PAY1', result: 'SUCCESS', amount: 500, tipAmount: 100, createdTime: paidAt, modifiedTime: paidAt }
    const cases = [
      [{ ...line, price: 5.5 }, payment, 'Clover sent line item LINE1 price 5.5, not an integer'],
      [{ ...line, price: '500' }, payment, 'Clover sent line item LINE1 price "500", not an integer'],
      [{ ...line, unitQty: 1500.5 }, payment, 'Clover sent line item LINE1 unitQty 1500.5, not an integer'],
      [line, { ...payment, tipAmount: 1.5 }, 'Clover sent payment PAY1 tipAmount 1.5, not an integer'],
    ] as const
    for (const [lineItem, paid, message] of cases) {
      const order = {
        id: 'ORDER1',
        state: 'locked',
        createdTime: paidAt - 600_000,
        modifiedTime: paidAt,
        lineItems: { elements: [lineItem] },
        payments: { elements: [paid] },
        refunds: { elements: [] },
      }
      const server = await startSimulatorServer((_req, res) => sendJson(res, 200, { elements: [order] }))
      running.push(server)
      const adapter = cloverVendor.createAdapter({ credentials: cloverVendor.exampleCredentials, baseUrl: server.url })
      await assert.rejects(collectSales(adapter.listSales({ start: new Date(NOW.getTime() - DAY_MS), end: NOW })), (error: unknown) => {
        assert.ok(error instanceof PosAdapterError)
        assert.equal(error.kind, 'invalid_response')
        assert.equal(error.message, message)
        return true
      })
    }
  })

  test('reads an order whose line items are not an {elements} list as invalid_response naming the field', async () => {
    const order = {
      id: 'ORDER1',
      state: 'locked',
      createdTime: NOW.getTime() - 7_200_000,
      modifiedTime: NOW.getTime() - 3_600_000,
      lineItems: [{ id: 'LINE1', item: { id: 'ITEM1' }, name: 'Bud Light Btl', price: 500 }],
      payments: { elements: [] },
      refunds: { elements: [] },
    }
    const server = await startSimulatorServer((_req, res) => sendJson(res, 200, { elements: [order] }))
    running.push(server)
    const adapter = cloverVendor.createAdapter({ credentials: cloverVendor.exampleCredentials, baseUrl: server.url })
    await assert.rejects(
      collectSales(adapter.listSales({ start: new Date(NOW.getTime() - DAY_MS), end: NOW })),
      (error: unknown) => error instanceof PosAdapterError && error.kind === 'invalid_response' && error.message === 'Clover order ORDER1 lineItems is not an {elements} list',
    )
  })
})
