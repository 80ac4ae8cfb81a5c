import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import Big from 'big.js'
import { request } from 'undici'
import { Value } from 'typebox/value'
import { PosAdapterError, type PosCredentials, type SimulatorHandler } from '../../../src/pos/adapter.js'
import { checksClosedBetween, MENU } from '../../../src/pos/simulation/bar-data.js'
import { startSimulatorServer, type RunningSimulator } from '../../../src/pos/simulation/simulator-server.js'
import { cloverVendor, createCloverVendor } from '../../../src/pos/vendors/clover/index.js'
import { describeAdapterContract, collectSales } from './adapter-contract.js'

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

/** A Clover simulator that counts the requests it is sent, by path. */
async function countedSimulator(): Promise<CountedSimulator> {
  const calls = new Map<string, number>()
  const handler: SimulatorHandler = vendorWithApp.createSimulator({ seed: SEED, historyDays: HISTORY_DAYS, now: () => NOW })
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

/** Credentials whose stored access token has run out, so the adapter must renew it. */
const expiredCredentials: PosCredentials = { merchant_id: MERCHANT, access_token: 'expired-access-token', refresh_token: 'first-refresh-token' }

describe('clover token renewal', () => {
  test('renews an expired token once and reuses the new one for every later call', async () => {
    const simulator = await countedSimulator()
    const rotations: PosCredentials[] = []
    const adapter = vendorWithApp.createAdapter({ credentials: expiredCredentials, baseUrl: simulator.url, onCredentialsRotated: (credentials) => void rotations.push(credentials) })
    await adapter.verify()
    await adapter.listProducts()
    await adapter.listStaff()
    await collectSales(adapter.listSales({ start: new Date(NOW.getTime() - 86_400_000), end: NOW }))
    assert.equal(simulator.calls.get('/oauth/v2/refresh'), 1)
    assert.equal(rotations.length, 1)
    assert.equal(rotations[0]!.merchant_id, MERCHANT)
    assert.notEqual(rotations[0]!.access_token, expiredCredentials.access_token)
    assert.notEqual(rotations[0]!.refresh_token, expiredCredentials.refresh_token)
  })

  test('reports the rotated refresh token, after which the old one is refused', async () => {
    const simulator = await countedSimulator()
    const rotations: PosCredentials[] = []
    const adapter = vendorWithApp.createAdapter({ credentials: expiredCredentials, baseUrl: simulator.url, onCredentialsRotated: (credentials) => void rotations.push(credentials) })
    await adapter.verify()
    const reused = await rawRequest(`${simulator.url}/oauth/v2/refresh`, { method: 'POST', json: { client_id: 'BARSTOCKTESTAPP', refresh_token: expiredCredentials.refresh_token } })
    assert.equal(reused.status, 401)
    assert.equal(typeof reused.body.message, 'string')

    const again = vendorWithApp.createAdapter({ credentials: expiredCredentials, baseUrl: simulator.url })
    await assert.rejects(again.verify(), (error: unknown) => error instanceof PosAdapterError && error.kind === 'invalid_credentials')

    const refreshesBefore = simulator.calls.get('/oauth/v2/refresh')
    const withRotated = vendorWithApp.createAdapter({ credentials: rotations[0]!, baseUrl: simulator.url })
    await withRotated.verify()
    assert.equal(simulator.calls.get('/oauth/v2/refresh'), refreshesBefore, 'the rotated access token works without another refresh')
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
    const end = new Date(NOW.getTime() - 86_400_000)
    const start = new Date(end.getTime() - 7 * 86_400_000)
    const lines = await collectSales(adapter.listSales({ start, end }))

    const expected = checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS }).flatMap((check) => check.lines.filter((line) => !line.voided && !line.refunded))
    const expectedUnits = expected.reduce((sum, line) => sum + line.quantity, 0)
    assert.ok(expected.length > 600, 'the window holds several pages of orders')
    assert.equal(lines.length, expectedUnits, 'one Clover line per unit sold')
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
    const end = NOW.getTime() - 86_400_000
    const start = end - 86_400_000
    const url = `${simulator.url}/v3/merchants/${MERCHANT}/orders?filter=createdTime>=${start}&filter=createdTime<${end}&expand=lineItems,payments&limit=1000`
    const response = await rawRequest(url, { token: 'merchant-token' })
    const checks = checksClosedBetween(SEED, new Date(start), new Date(end + 86_400_000), { now: NOW, historyDays: HISTORY_DAYS }).filter(
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
    const end = new Date(NOW.getTime() - 86_400_000)
    const start = new Date(end.getTime() - 86_400_000)
    const lines = await collectSales(adapter.listSales({ start, end }))
    const tips = lines.reduce((sum, line) => sum.plus(line.tip ?? '0'), new Big(0))
    const checks = checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS }).filter((check) => check.lines.some((line) => !line.voided && !line.refunded))
    assert.equal(tips.toFixed(2), checks.reduce((sum, check) => sum.plus(check.tip), new Big(0)).toFixed(2))
  })
})

describe('clover pushes', () => {
  const secret = 'a3f0c9e2-clover-webhook-auth-code'
  const body = (objectIds: string[]) => Buffer.from(JSON.stringify({ appId: 'BARSTOCKTESTAPP', merchants: { [MERCHANT]: objectIds.map((objectId) => ({ objectId, type: 'UPDATE', ts: NOW.getTime() })) } }))

  test('reads an order push carrying the right X-Clover-Auth as orders_changed', () => {
    const push = cloverVendor.parsePush!({ 'x-clover-auth': secret }, body(['I:ITEM1', 'O:ORDER1']), secret, 'https://bar.example/hooks/clover')
    assert.deepEqual(push, { kind: 'orders_changed' })
  })

  test('reads an item push as catalog_changed and anything else as other', () => {
    assert.deepEqual(cloverVendor.parsePush!({ 'x-clover-auth': secret }, body(['I:ITEM1']), secret, ''), { kind: 'catalog_changed' })
    assert.deepEqual(cloverVendor.parsePush!({ 'x-clover-auth': secret }, body(['C:CUSTOMER1']), secret, ''), { kind: 'other' })
  })

  test('refuses a push with a wrong or missing X-Clover-Auth', () => {
    assert.throws(() => cloverVendor.parsePush!({ 'x-clover-auth': `${secret}x` }, body(['O:ORDER1']), secret, ''))
    assert.throws(() => cloverVendor.parsePush!({}, body(['O:ORDER1']), secret, ''))
  })
})
