import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { after, describe, test } from 'node:test'
import type { SimulatorHandler } from '../../../src/pos/adapter.js'
import { checksClosedBetween } from '../../../src/pos/simulation/bar-data.js'
import { startSimulatorServer, type RunningSimulator } from '../../../src/pos/simulation/simulator-server.js'
import { toastVendor } from '../../../src/pos/vendors/toast/index.js'
import type { ToastOrder, ToastRestaurantMenus } from '../../../src/pos/vendors/toast/toast.client.js'
import { mapOrderLines } from '../../../src/pos/vendors/toast/toast.mapper.js'
import { describeAdapterContract, collectSales } from './adapter-contract.js'

describeAdapterContract(toastVendor)

const NOW = new Date('2026-11-20T15:00:00.000Z')
const SEED = 13
const HISTORY_DAYS = 30
const DAY_MS = 86_400_000
const LOGIN = 'POST /authentication/v1/authentication/login'

const running: RunningSimulator[] = []
after(async () => {
  await Promise.all(running.map((simulator) => simulator.close()))
})

interface CountingSimulator {
  url: string
  calls: Map<string, number>
  /** Replaces the simulator behind the URL by a fresh one, which knows none of the tokens issued so far. */
  restart(): void
}

/** A Toast simulator that also counts the requests it served, per "METHOD /path". */
async function countingSimulator(): Promise<CountingSimulator> {
  const create = () => toastVendor.createSimulator({ seed: SEED, historyDays: HISTORY_DAYS, now: () => NOW })
  let handler = create()
  const calls = new Map<string, number>()
  const counting: SimulatorHandler = (req: IncomingMessage, res: ServerResponse) => {
    const key = `${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`
    calls.set(key, (calls.get(key) ?? 0) + 1)
    handler(req, res)
  }
  const server = await startSimulatorServer(counting)
  running.push(server)
  return {
    url: server.url,
    calls,
    restart: () => {
      handler = create()
      calls.clear()
    },
  }
}

/** A credentials object no other test uses, so the shared token cache starts cold. */
function freshCredentials(clientId: string) {
  return { ...toastVendor.exampleCredentials, client_id: clientId }
}

async function login(url: string): Promise<string> {
  const response = await fetch(`${url}/authentication/v1/authentication/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId: 'raw-client', clientSecret: 'raw-secret', userAccessType: 'TOAST_MACHINE_CLIENT' }),
  })
  const body = (await response.json()) as { token: { accessToken: string } }
  return body.token.accessToken
}

describe('toast adapter, beyond the contract', () => {
  test('logs in once and reuses the token across calls and adapters', async () => {
    const simulator = await countingSimulator()
    const credentials = freshCredentials('token-reuse-client')
    const adapter = toastVendor.createAdapter({ credentials, baseUrl: simulator.url })
    await adapter.verify()
    await adapter.listProducts()
    await adapter.listStaff()
    const end = new Date(NOW.getTime() - DAY_MS)
    await collectSales(adapter.listSales({ start: new Date(end.getTime() - DAY_MS), end }))
    await toastVendor.createAdapter({ credentials, baseUrl: simulator.url }).listProducts()
    assert.equal(simulator.calls.get(LOGIN), 1)
    assert.equal(simulator.calls.get('GET /menus/v2/menus'), 2)
  })

  test('logs in again once when the vendor refuses a cached token', async () => {
    const simulator = await countingSimulator()
    const adapter = toastVendor.createAdapter({ credentials: freshCredentials('token-refused-client'), baseUrl: simulator.url })
    await adapter.listStaff()
    simulator.restart()
    const staff = await adapter.listStaff()
    assert.equal(staff.length, 6)
    assert.equal(simulator.calls.get(LOGIN), 1)
    assert.equal(simulator.calls.get('GET /labor/v1/employees'), 2, 'the refused call was retried once')
  })

  test('follows ordersBulk pages until a short page', async () => {
    const simulator = await countingSimulator()
    const adapter = toastVendor.createAdapter({ credentials: freshCredentials('pagination-client'), baseUrl: simulator.url })
    const end = new Date(NOW.getTime() - 3 * DAY_MS)
    const start = new Date(end.getTime() - 3 * DAY_MS)
    const lines = await collectSales(adapter.listSales({ start, end }))
    const checks = checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS })
    const expectedUnits = checks
      .flatMap((check) => check.lines)
      .filter((line) => !line.voided && !line.refunded)
      .reduce((total, line) => total + line.quantity, 0)
    assert.ok(checks.length > 300, `${checks.length} checks need several pages of 100`)
    assert.ok((simulator.calls.get('GET /orders/v2/ordersBulk') ?? 0) > checks.length / 100)
    assert.equal(lines.reduce((total, line) => total + Number(line.quantity), 0), expectedUnits)
  })

  test('serves money and quantities as JSON numbers, voids and refunds marked, as Toast does', async () => {
    const simulator = await countingSimulator()
    const token = await login(simulator.url)
    const headers = { authorization: `Bearer ${token}`, 'toast-restaurant-external-id': toastVendor.exampleCredentials.restaurant_id! }
    const menus = (await (await fetch(`${simulator.url}/menus/v2/menus`, { headers })).json()) as ToastRestaurantMenus
    const items = JSON.stringify(menus)
    assert.match(items, /"name":"Stella Artois Draft Pint","price":7.5,/)
    assert.equal(menus.menus[0]?.menuGroups[0]?.menuGroups.length, 5, 'drinks are nested groups')

    const end = new Date(NOW.getTime() - DAY_MS)
    const query = new URLSearchParams({ startDate: new Date(end.getTime() - 7 * DAY_MS).toISOString(), endDate: end.toISOString(), pageSize: '100' })
    const orders = (await (await fetch(`${simulator.url}/orders/v2/ordersBulk?${query}`, { headers })).json()) as ToastOrder[]
    assert.equal(orders.length, 100)
    const selections = orders.flatMap((order) => order.checks.flatMap((check) => check.selections))
    assert.ok(selections.every((selection) => typeof selection.quantity === 'number' && typeof selection.preDiscountPrice === 'number'))
    assert.ok(selections.some((selection) => selection.voided), 'some selections are voided')
    assert.ok(selections.some((selection) => selection.refundDetails !== null), 'some selections are refunded')
    assert.match(orders[0]!.closedDate!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/)

    const tooLarge = await fetch(`${simulator.url}/orders/v2/ordersBulk?${query.toString().replace('pageSize=100', 'pageSize=101')}`, { headers })
    assert.equal(tooLarge.status, 400)
  })

  test('refuses a bad secret and a missing token with Toast\'s 401 error body', async () => {
    const simulator = await countingSimulator()
    const refused = await fetch(`${simulator.url}/authentication/v1/authentication/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: 'c', clientSecret: 'invalid-secret', userAccessType: 'TOAST_MACHINE_CLIENT' }),
    })
    assert.equal(refused.status, 401)
    const body = (await refused.json()) as Record<string, unknown>
    assert.deepEqual(Object.keys(body).sort(), ['canRetry', 'code', 'message', 'messageKey', 'requestId', 'status'])
    const noToken = await fetch(`${simulator.url}/labor/v1/employees`, { headers: { 'toast-restaurant-external-id': toastVendor.exampleCredentials.restaurant_id! } })
    assert.equal(noToken.status, 401)
  })

  test('drops voided checks and fully refunded selections but keeps a partly refunded one', () => {
    const selection = (guid: string, refundAmount: number | null) => ({
      guid,
      item: { guid: `item-${guid}` },
      displayName: guid,
      quantity: 2,
      price: 20,
      preDiscountPrice: 20,
      voided: false,
      refundDetails: refundAmount === null ? null : { refundAmount },
      modifiers: [],
    })
    const check = (guid: string, voided: boolean) => ({
      guid,
      openedDate: '2026-11-01T20:00:00.000+0000',
      closedDate: '2026-11-01T21:00:00.000+0000',
      modifiedDate: '2026-11-01T21:00:00.000+0000',
      deleted: false,
      voided,
      paymentStatus: 'CLOSED' as const,
      amount: 60,
      totalAmount: 60,
      selections: [selection(`${guid}-kept`, null), selection(`${guid}-partly`, 5), selection(`${guid}-refunded`, 20)],
      payments: [{ guid: 'p', paidDate: '2026-11-01T21:00:00.000+0000', type: 'CREDIT', amount: 60, tipAmount: 8 }],
    })
    const order: ToastOrder = {
      guid: 'o',
      businessDate: 20261101,
      openedDate: '2026-11-01T20:00:00.000+0000',
      closedDate: '2026-11-01T21:00:00.000+0000',
      modifiedDate: '2026-11-01T21:00:00.000+0000',
      voided: false,
      deleted: false,
      server: { guid: 'server-1' },
      checks: [check('a', false), check('b', true)],
    }
    const lines = mapOrderLines(order, new Map([['server-1', 'Maria Lopez']]))
    assert.deepEqual(
      lines.map((line) => [line.lineId, line.quantity, line.unitPrice, line.tip, line.staffName]),
      [
        ['a-kept', '2', '10.00', '4.00', 'Maria Lopez'],
        ['a-partly', '2', '10.00', '4.00', 'Maria Lopez'],
      ],
    )
  })

  test("verifies a Toast push as Toast signs it: base64 HMAC-SHA256 of the body followed by the message's timestamp", () => {
    const timestamp = '2026-11-20T14:59:58.123Z'
    const body = Buffer.from(JSON.stringify({ timestamp, eventCategory: 'menus', eventType: 'menus_updated', guid: 'g', details: {} }))
    const sign = (text: string, secret = 'webhook-secret') => createHmac('sha256', secret).update(text).digest('base64')
    const signed = { 'toast-signature': sign(body.toString('utf8') + timestamp) }
    assert.deepEqual(toastVendor.parsePush!(signed, body, 'webhook-secret', ''), { kind: 'catalog_changed' })
    assert.throws(() => toastVendor.parsePush!({ 'toast-signature': sign(body.toString('utf8')) }, body, 'webhook-secret', ''), /signature/)
    assert.throws(() => toastVendor.parsePush!({ 'toast-signature': sign(body.toString('utf8') + timestamp, 'another-secret') }, body, 'webhook-secret', ''), /signature/)
    assert.throws(() => toastVendor.parsePush!({}, body, 'webhook-secret', ''), /signature/)
    const tampered = Buffer.from(body.toString('utf8').replace('menus_updated', 'order_updated'))
    assert.throws(() => toastVendor.parsePush!(signed, tampered, 'webhook-secret', ''), /signature/)
  })
})
