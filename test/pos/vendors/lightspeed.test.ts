import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import Big from 'big.js'
import { request } from 'undici'
import { Value } from 'typebox/value'
import { PosAdapterError, type PosCredentials } from '../../../src/pos/adapter.js'
import { checksClosedBetween, MENU, STAFF } from '../../../src/pos/simulation/bar-data.js'
import { startSimulatorServer, type RunningSimulator } from '../../../src/pos/simulation/simulator-server.js'
import { createLightspeedVendor, lightspeedVendor } from '../../../src/pos/vendors/lightspeed/index.js'
import { describeAdapterContract, collectSales } from './adapter-contract.js'

describeAdapterContract(lightspeedVendor)

const NOW = new Date('2026-11-20T15:00:00.000Z')
const SEED = 13
const HISTORY_DAYS = 30
const CREDENTIALS = lightspeedVendor.exampleCredentials
const LOCATION = CREDENTIALS.business_location_id!
const DAY_MS = 86_400_000

const running: RunningSimulator[] = []
after(async () => {
  await Promise.all(running.map((simulator) => simulator.close()))
})

interface CountedSimulator {
  url: string
  /** Requests served, by the first two path segments ("/oauth/token", "/f/finance", "/items/v1"). */
  calls: Map<string, number>
  /** Every path requested, without the query. */
  paths: string[]
}

/** A Lightspeed simulator that counts the requests it is sent. */
async function countedSimulator(): Promise<CountedSimulator> {
  const calls = new Map<string, number>()
  const paths: string[] = []
  const handler = lightspeedVendor.createSimulator({ seed: SEED, historyDays: HISTORY_DAYS, now: () => NOW })
  const server = await startSimulatorServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!
    const prefix = path.split('/').slice(0, 3).join('/')
    paths.push(path)
    calls.set(prefix, (calls.get(prefix) ?? 0) + 1)
    handler(req, res)
  })
  running.push(server)
  return { url: server.url, calls, paths }
}

async function requestToken(url: string, credentials: PosCredentials) {
  const basic = Buffer.from(`${credentials.client_id}:${credentials.client_secret}`).toString('base64')
  const response = await request(`${url}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: credentials.refresh_token! }).toString(),
  })
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, any> }
}

async function rawGet(url: string, token?: string) {
  const response = await request(url, { headers: token ? { authorization: `Bearer ${token}` } : {} })
  return { status: response.statusCode, body: (await response.body.json()) as any }
}

function isInvalidCredentials(error: unknown): boolean {
  return error instanceof PosAdapterError && error.kind === 'invalid_credentials'
}

describe('lightspeed tokens', () => {
  test('asks for one token and reuses it for every later call', async () => {
    const simulator = await countedSimulator()
    const adapter = lightspeedVendor.createAdapter({ credentials: CREDENTIALS, baseUrl: simulator.url })
    await adapter.verify()
    await adapter.listProducts()
    await adapter.listStaff()
    await collectSales(adapter.listSales({ start: new Date(NOW.getTime() - DAY_MS), end: NOW }))
    assert.equal(simulator.calls.get('/oauth/token'), 1)
    assert.ok(simulator.calls.get('/f/finance')! >= 1)
  })

  test('reports the rotated refresh token, after which the old one is refused', async () => {
    const simulator = await countedSimulator()
    const rotations: PosCredentials[] = []
    const adapter = lightspeedVendor.createAdapter({ credentials: CREDENTIALS, baseUrl: simulator.url, onCredentialsRotated: (credentials) => void rotations.push(credentials) })
    await adapter.verify()
    assert.equal(rotations.length, 1)
    assert.notEqual(rotations[0]!.refresh_token, CREDENTIALS.refresh_token)
    assert.deepEqual({ ...rotations[0], refresh_token: CREDENTIALS.refresh_token }, CREDENTIALS, 'only the refresh token changes')

    const reused = await requestToken(simulator.url, CREDENTIALS)
    assert.equal(reused.status, 400)
    assert.equal(reused.body.error, 'invalid_grant')
    const stale = lightspeedVendor.createAdapter({ credentials: CREDENTIALS, baseUrl: simulator.url })
    await assert.rejects(stale.verify(), isInvalidCredentials)

    const next = lightspeedVendor.createAdapter({ credentials: rotations[0]!, baseUrl: simulator.url })
    assert.equal((await next.listProducts()).length, MENU.length)
  })

  test('refuses data calls without a token the token endpoint issued', async () => {
    const simulator = await countedSimulator()
    const response = await rawGet(`${simulator.url}/staff/v1/businessLocations/${LOCATION}/userTypes/POS`, 'made-up-token')
    assert.equal(response.status, 401)
    assert.equal(response.body.status, 401)
    assert.equal(typeof response.body.message, 'string')
    assert.ok(!Number.isNaN(Date.parse(response.body.timestamp)))
  })
})

describe('lightspeed pagination', () => {
  test('follows every next-page link of the financial API', async () => {
    const simulator = await countedSimulator()
    const adapter = createLightspeedVendor({ pageSize: 100 }).createAdapter({ credentials: CREDENTIALS, baseUrl: simulator.url })
    const end = new Date(NOW.getTime() - DAY_MS)
    const start = new Date(end.getTime() - 4 * DAY_MS)
    const lines = await collectSales(adapter.listSales({ start, end }))
    const expectedUnits = checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS })
      .flatMap((check) => check.lines.filter((line) => !line.voided && !line.refunded))
      .reduce((total, line) => total + line.quantity, 0)
    assert.equal(lines.reduce((total, line) => total.plus(line.quantity), new Big(0)).toNumber(), expectedUnits)
    assert.ok(simulator.calls.get('/f/finance')! >= 4, `read ${simulator.calls.get('/f/finance')} pages`)
  })

  test('reads every page of POS users, as data.staff with page info', async () => {
    const simulator = await countedSimulator()
    const adapter = createLightspeedVendor({ staffPageSize: 4 }).createAdapter({ credentials: CREDENTIALS, baseUrl: simulator.url })
    const staff = await adapter.listStaff()
    assert.deepEqual(staff.map((member) => member.name).sort(), STAFF.map((member) => `${member.firstName} ${member.lastName}`).sort())
    assert.equal(simulator.calls.get('/staff/v1'), Math.ceil(STAFF.length / 4))
  })

  test('pages through the items with offset and amount', async () => {
    const simulator = await countedSimulator()
    const adapter = createLightspeedVendor({ pageSize: 10 }).createAdapter({ credentials: CREDENTIALS, baseUrl: simulator.url })
    assert.equal((await adapter.listProducts()).length, MENU.length)
    assert.equal(simulator.calls.get('/items/v1'), Math.ceil(MENU.length / 10) + (MENU.length % 10 === 0 ? 1 : 0))
  })

  test('reads a window longer than the 365 days one call may span in slices', async () => {
    const simulator = await countedSimulator()
    const adapter = lightspeedVendor.createAdapter({ credentials: CREDENTIALS, baseUrl: simulator.url })
    const start = new Date(NOW.getTime() - 400 * DAY_MS)
    const lines = await collectSales(adapter.listSales({ start, end: NOW }))
    assert.ok(lines.length > 1000)
    const ranges = new Set(simulator.paths.filter((path) => path.startsWith('/f/finance/')))
    assert.deepEqual([...ranges], [
      `/f/finance/${LOCATION}/financials/${start.toISOString()}/${new Date(start.getTime() + 365 * DAY_MS).toISOString()}`,
      `/f/finance/${LOCATION}/financials/${new Date(start.getTime() + 365 * DAY_MS).toISOString()}/${NOW.toISOString()}`,
    ])
  })
})

describe('lightspeed simulator wire format', () => {
  test('serves decimal strings, SALE and REFUND receipts, voided lines and a next-page link', async () => {
    const simulator = await countedSimulator()
    const token = (await requestToken(simulator.url, CREDENTIALS)).body.access_token as string
    const end = new Date(NOW.getTime() - DAY_MS)
    const start = new Date(end.getTime() - 3 * DAY_MS)
    const page = await rawGet(`${simulator.url}/f/finance/${LOCATION}/financials/${start.toISOString()}/${end.toISOString()}?include=staff,payments&pageSize=1000`, token)
    assert.equal(page.status, 200)
    const lines = page.body.sales.flatMap((sale: { salesLines: unknown[] }) => sale.salesLines)
    for (const line of lines) {
      assert.match(line.quantity, /^-?\d+$/)
      assert.match(line.totalNetAmountWithTax, /^-?\d+\.\d{2}$/)
    }
    const types = new Set(page.body.sales.map((sale: { type: string }) => sale.type))
    assert.deepEqual([...types].sort(), ['REFUND', 'SALE'])
    assert.ok(lines.some((line: { voidReason: string | null }) => line.voidReason), 'voided lines are reported with a reason')
    assert.equal(typeof page.body.sales[0].payments[0].netAmountWithTax, 'string')

    const firstPage = await rawGet(`${simulator.url}/f/finance/${LOCATION}/financials/${start.toISOString()}/${end.toISOString()}?pageSize=10`, token)
    assert.equal(firstPage.body.sales.length, 10)
    assert.equal(firstPage.body.sales[0].payments, undefined, 'payments only with include=payments')
    assert.ok(firstPage.body._links.nextPage.href.includes(`nextPageToken=${firstPage.body.nextPageToken}`))
  })

  test('serves item prices as decimal strings', async () => {
    const simulator = await countedSimulator()
    const token = (await requestToken(simulator.url, CREDENTIALS)).body.access_token as string
    const items = await rawGet(`${simulator.url}/items/v1/items?businessLocationId=${LOCATION}&offset=0&amount=1000`, token)
    const stella = items.body.find((item: { name: string }) => item.name === 'Stella Artois Draft Pint')
    assert.deepEqual(stella.prices, [{ amount: '7.50', name: 'Default' }])
    assert.equal(stella.accountingGroup.name, 'Draft Beer')
  })
})

describe('lightspeed vendor description', () => {
  test('accepts the example credentials and refuses missing or unknown fields', () => {
    assert.ok(Value.Check(lightspeedVendor.credentialsSchema, CREDENTIALS))
    assert.ok(!Value.Check(lightspeedVendor.credentialsSchema, { ...CREDENTIALS, region: 'eu' }))
    assert.ok(!Value.Check(lightspeedVendor.credentialsSchema, { ...CREDENTIALS, refresh_token: undefined }))
    assert.ok(!Value.Check(lightspeedVendor.credentialsSchema, { ...CREDENTIALS, business_location_id: 'abc' }))
    assert.equal(lightspeedVendor.productionBaseUrl(CREDENTIALS), 'https://api.lsk.lightspeed.app')
  })

  test('splits each receipt tip over its lines to the cent', async () => {
    const simulator = await countedSimulator()
    const adapter = lightspeedVendor.createAdapter({ credentials: CREDENTIALS, baseUrl: simulator.url })
    const end = new Date(NOW.getTime() - DAY_MS)
    const start = new Date(end.getTime() - DAY_MS)
    const lines = await collectSales(adapter.listSales({ start, end }))
    const tips = lines.reduce((total, line) => total.plus(line.tip ?? '0'), new Big(0))
    const checks = checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS }).filter((check) => check.lines.some((line) => !line.voided && !line.refunded))
    assert.equal(tips.toFixed(2), checks.reduce((total, check) => total.plus(check.tip), new Big(0)).toFixed(2))
    assert.ok(lines.every((line) => line.staffName !== null && line.staffId !== null))
  })
})
