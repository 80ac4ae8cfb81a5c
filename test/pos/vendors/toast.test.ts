import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { after, describe, test } from 'node:test'
import { PosAdapterError, type PosSaleLine, type SimulatorHandler } from '../../../src/pos/vendors/adapter.js'
import { checksClosedBetween, MODIFIERS, stableUuid, type SimCheck, type SimLine } from '../../../src/pos/simulation/bar-data.js'
import { startSimulatorServer, type RunningSimulator } from '../../../src/pos/simulation/simulator-server.js'
import { toastVendor } from '../../../src/pos/vendors/toast/index.js'
import { toastDate, type ToastCheck, type ToastOrder, type ToastRestaurantMenus, type ToastSelection } from '../../../src/pos/vendors/toast/toast.client.js'
import { mapOrderLines } from '../../../src/pos/vendors/toast/toast.mapper.js'
import { OpenApiContract } from '../../helpers/openapi-contract.js'
import { describeAdapterContract, collectSales } from './adapter-contract.js'
import { DAY_MS } from '../../../src/platform/zoned-time.js'

describeAdapterContract(toastVendor)

const NOW = new Date('2026-11-20T15:00:00.000Z')
const SEED = 13
const HISTORY_DAYS = 30
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

/** The headers of a data call, with a token the simulator issued. */
async function dataHeaders(url: string): Promise<Record<string, string>> {
  const response = await fetch(`${url}/authentication/v1/authentication/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId: 'raw-client', clientSecret: 'raw-secret', userAccessType: 'TOAST_MACHINE_CLIENT' }),
  })
  const body = (await response.json()) as { token: { accessToken: string } }
  return { authorization: `Bearer ${body.token.accessToken}`, 'toast-restaurant-external-id': toastVendor.exampleCredentials.restaurant_id! }
}

/** The first page of the orders modified in the week before yesterday. */
async function ordersOfWeek(url: string, headers: Record<string, string>): Promise<ToastOrder[]> {
  const end = new Date(NOW.getTime() - DAY_MS)
  const query = new URLSearchParams({ startDate: toastDate(new Date(end.getTime() - 7 * DAY_MS)), endDate: toastDate(end), pageSize: '100' })
  return (await (await fetch(`${url}/orders/v2/ordersBulk?${query}`, { headers })).json()) as ToastOrder[]
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
    // Checks never reopened, closed inside the window: their sold lines are all listed, dated at their close.
    const checks = checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS }).filter((check) => check.reclosedAt === null)
    const checkGuids = new Set(checks.map((check) => stableUuid(SEED, `toast:check:${check.checkId}`)))
    const expectedUnits = checks
      .flatMap((check) => check.lines)
      .filter((line) => !line.voided)
      .reduce((total, line) => total + line.quantity, 0)
    const listedUnits = lines
      .filter((line) => checkGuids.has(line.checkId!) && !line.parentLineId && !line.correctsLineId)
      .reduce((total, line) => total + Number(line.quantity), 0)
    assert.ok(checks.length > 300, `${checks.length} checks need several pages of 100`)
    assert.ok((simulator.calls.get('GET /orders/v2/ordersBulk') ?? 0) > checks.length / 100)
    assert.equal(listedUnits, expectedUnits)
  })

  test('serves money and quantities as JSON numbers, voids, refunds and modifiers marked, as Toast does', async () => {
    const simulator = await countingSimulator()
    const headers = await dataHeaders(simulator.url)
    const menus = (await (await fetch(`${simulator.url}/menus/v2/menus`, { headers })).json()) as ToastRestaurantMenus
    const items = JSON.stringify(menus)
    assert.match(items, /"name":"Stella Artois Draft Pint","price":7.5,/)
    assert.equal(menus.menus[0]?.menuGroups[0]?.menuGroups.length, 5, 'drinks are nested groups')
    assert.deepEqual(
      Object.values(menus.modifierOptionReferences ?? {})
        .map((option) => option.name)
        .sort(),
      MODIFIERS.map((modifier) => modifier.name).sort(),
    )

    const orders = await ordersOfWeek(simulator.url, headers)
    assert.equal(orders.length, 100)
    const selections = orders.flatMap((order) => order.checks.flatMap((check) => check.selections))
    assert.ok(selections.every((selection) => typeof selection.quantity === 'number' && typeof selection.preDiscountPrice === 'number'))
    assert.ok(
      selections.some((selection) => selection.voided),
      'some selections are voided',
    )
    assert.ok(
      selections.some((selection) => selection.refundDetails !== undefined),
      'some selections are refunded',
    )
    assert.ok(
      selections.some((selection) => (selection.modifiers ?? []).length > 0),
      'some selections carry modifiers',
    )
    assert.ok(
      orders.every((order) => order.diningOption.guid.length > 0),
      'every order names its dining option',
    )
    assert.match(orders[0]!.closedDate!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/)
  })

  test("answers every route with what Toast's published documents describe", async () => {
    const simulator = await countingSimulator()
    const login = await fetch(`${simulator.url}/authentication/v1/authentication/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: 'raw-client', clientSecret: 'raw-secret', userAccessType: 'TOAST_MACHINE_CLIENT' }),
    })
    new OpenApiContract('toast-auth.yaml').assertResponse('POST', '/authentication/login', 200, await login.json())
    const headers = await dataHeaders(simulator.url)
    const get = async (path: string) => (await fetch(`${simulator.url}${path}`, { headers })).json()
    const menus = new OpenApiContract('toast-menus.yaml')
    menus.assertResponse('GET', '/menus', 200, await get('/menus/v2/menus'))
    menus.assertResponse('GET', '/metadata', 200, await get('/menus/v2/metadata'))
    const labor = new OpenApiContract('toast-labor.yaml')
    labor.assertResponse('GET', '/employees', 200, await get('/labor/v1/employees'))
    labor.assertResponse('GET', '/jobs', 200, await get('/labor/v1/jobs'))
    // A month of orders: every kind of selection, void, refund, modifier and reopened check the bar has.
    const orders = new OpenApiContract('toast-orders.yaml')
    for (let day = 1; day <= HISTORY_DAYS; day++) {
      const query = new URLSearchParams({ startDate: toastDate(new Date(NOW.getTime() - (day + 1) * DAY_MS)), endDate: toastDate(new Date(NOW.getTime() - day * DAY_MS)) })
      for (let page = 1; ; page++) {
        const body = (await get(`/orders/v2/ordersBulk?${query}&pageSize=100&page=${page}`)) as ToastOrder[]
        orders.assertResponse('GET', '/ordersBulk', 200, body)
        if (body.length < 100) break
      }
    }
    orders.assertResponse('GET', '/ordersBulk', 200, await get(`/orders/v2/ordersBulk?businessDate=20261115`))
  })

  test('refuses query parameters and login fields the documents do not list, and a pageSize over 100, with 400', async () => {
    const simulator = await countingSimulator()
    const headers = await dataHeaders(simulator.url)
    const range = `startDate=${encodeURIComponent('2026-11-10T00:00:00.000+0000')}&endDate=${encodeURIComponent('2026-11-11T00:00:00.000+0000')}`
    for (const path of [
      `/orders/v2/ordersBulk?${range}&pageSize=101`,
      `/orders/v2/ordersBulk?${range}&modifiedSince=2026-11-10`,
      `/orders/v2/ordersBulk?startDate=2026-11-10T00:00:00Z&endDate=2026-11-11T00:00:00Z`,
      `/orders/v2/ordersBulk?startDate=${encodeURIComponent('2026-11-10T00:00:00.000+0000')}`,
      '/menus/v2/menus?page=2',
      '/labor/v1/employees?limit=10',
    ]) {
      const response = await fetch(`${simulator.url}${path}`, { headers })
      assert.equal(response.status, 400, path)
    }
    const login = await fetch(`${simulator.url}/authentication/v1/authentication/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: 'c', clientSecret: 's', userAccessType: 'TOAST_MACHINE_CLIENT', scope: 'orders:read' }),
    })
    assert.equal(login.status, 400)
  })

  test("refuses a bad secret and a missing token with Toast's 401 error body", async () => {
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

  test('lists the sold selections of a closed check, not those voided before it closed; a full refund is also taken back', () => {
    const selection = (guid: string, extra: Partial<ToastSelection> = {}): ToastSelection => ({
      guid,
      item: { guid: `item-${guid}` },
      displayName: guid,
      quantity: 2,
      price: 20,
      preDiscountPrice: 20,
      voided: false,
      modifiers: [],
      ...extra,
    })
    const refund = (refundAmount: number) => ({ refundAmount, refundTransaction: { guid: `refund-${refundAmount}` } })
    const check = (guid: string, voided: boolean): ToastCheck => ({
      guid,
      closedDate: '2026-11-01T21:00:00.000+0000',
      voided,
      selections: [
        selection(`${guid}-kept`),
        selection(`${guid}-partly`, { refundDetails: refund(5), modifiedDate: '2026-11-02T10:00:00.000+0000' }),
        selection(`${guid}-refunded`, { refundDetails: refund(20), modifiedDate: '2026-11-02T11:00:00.000+0000' }),
        selection(`${guid}-voided`, { voided: true, voidDate: '2026-11-01T20:30:00.000+0000' }),
      ],
      payments: [{ guid: 'p', type: 'CREDIT', amount: 60, tipAmount: 12, refund: { refundDate: '2026-11-02T12:00:00.000+0000', refundTransaction: { guid: 'refund-20' } } }],
    })
    const order: ToastOrder = { guid: 'o', diningOption: { guid: 'bar' }, server: { guid: 'server-1' }, checks: [check('a', false), check('b', true)] }
    const lines = mapOrderLines(order, new Map([['server-1', 'Maria Lopez']]))
    assert.deepEqual(
      lines.map((line) => [line.lineId, line.quantity, line.unitPrice, line.tip, line.soldAt.toISOString(), line.correctsLineId ?? null]),
      [
        ['a-kept', '2', '10.00', '4.00', '2026-11-01T21:00:00.000Z', null],
        ['a-partly', '2', '10.00', '4.00', '2026-11-01T21:00:00.000Z', null],
        ['a-refunded', '2', '10.00', '4.00', '2026-11-01T21:00:00.000Z', null],
        ['a-refunded:refund', '-2', '10.00', null, '2026-11-02T12:00:00.000Z', 'a-refunded'],
      ],
    )
  })

  test('names the field when an order answers a shape Toast never documented', () => {
    const order = (quantity: unknown): ToastOrder =>
      ({
        guid: 'o',
        diningOption: { guid: 'bar' },
        checks: [
          {
            guid: 'c',
            closedDate: '2026-11-01T21:00:00.000+0000',
            selections: [{ guid: 's', item: { guid: 'i' }, displayName: 'Beer', quantity, price: 5, preDiscountPrice: 5, voided: false }],
          },
        ],
      }) as ToastOrder
    for (const [quantity, field] of [
      ['two', 'selection.quantity'],
      [null, 'selection.quantity'],
    ] as const) {
      assert.throws(
        () => mapOrderLines(order(quantity), new Map()),
        (error: unknown) => error instanceof PosAdapterError && error.kind === 'invalid_response' && error.message.includes(field),
      )
    }
    const undated = { ...order(1), checks: [{ ...order(1).checks[0]!, closedDate: 'yesterday' }] }
    assert.throws(
      () => mapOrderLines(undated, new Map()),
      (error: unknown) => error instanceof PosAdapterError && error.message.includes('check.closedDate'),
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

describe('toast sales over successive syncs', () => {
  const HOUR_MS = 3_600_000
  const history = checksClosedBetween(SEED, new Date(NOW.getTime() - HISTORY_DAYS * DAY_MS), new Date(NOW.getTime() - 3 * DAY_MS), { now: NOW, historyDays: HISTORY_DAYS })
  const selectionGuid = (line: { lineId: string }) => stableUuid(SEED, `toast:selection:${line.lineId}`)

  /** The first line of the bar's history that `pick` accepts, with its check. */
  function find(pick: (check: SimCheck, line: SimLine) => boolean): { check: SimCheck; line: SimLine } {
    for (const check of history) for (const line of check.lines) if (pick(check, line)) return { check, line }
    throw new Error('the simulated history has no such line')
  }

  /** What a sync of the hour around `at` lists, run right after that hour, against a simulator living then. */
  async function syncHourAround(at: Date): Promise<PosSaleLine[]> {
    const window = { start: new Date(at.getTime() - HOUR_MS / 2), end: new Date(at.getTime() + HOUR_MS / 2) }
    const handler = toastVendor.createSimulator({ seed: SEED, historyDays: HISTORY_DAYS, now: () => window.end })
    const server = await startSimulatorServer(handler)
    running.push(server)
    const adapter = toastVendor.createAdapter({ credentials: freshCredentials(`sync-${at.getTime()}`), baseUrl: server.url })
    return collectSales(adapter.listSales(window))
  }

  test('lists modifiers as lines of their own option, under their parent, and the options as products', async () => {
    const { check, line } = find((_, candidate) => candidate.modifiers.length > 0 && !candidate.voided && candidate.refundedAt === null && candidate.voidedAfterCloseAt === null)
    const lines = await syncHourAround(check.closedAt)
    const modifier = line.modifiers[0]!
    const listed = lines.find((candidate) => candidate.lineId === selectionGuid(modifier))
    assert.equal(listed?.parentLineId, selectionGuid(line))
    assert.equal(listed?.posItemId, stableUuid(SEED, `toast:item:${modifier.itemKey}`))
    assert.equal(listed?.quantity, String(modifier.quantity))
    assert.equal(listed?.unitPrice, modifier.unitPrice)
    const parent = lines.find((candidate) => candidate.lineId === selectionGuid(line))
    assert.equal(parent?.unitPrice, line.unitPrice, "the parent's price leaves its modifiers out")
  })

  test('a refund made in a later window: the first sync lists the sale, the one of the refund only its correction', async () => {
    const { check, line } = find((_, candidate) => candidate.refundedAt !== null)
    const first = await syncHourAround(check.closedAt)
    const firstOfLine = first.filter((listed) => listed.lineId.startsWith(selectionGuid(line)))
    assert.deepEqual(
      firstOfLine.map((listed) => [listed.lineId, listed.quantity]),
      [[selectionGuid(line), String(line.quantity)]],
    )
    const later = await syncHourAround(line.refundedAt!)
    const corrections = later.filter((listed) => listed.correctsLineId === selectionGuid(line))
    assert.deepEqual(
      corrections.map((listed) => [listed.lineId, listed.quantity, listed.unitPrice, listed.soldAt.toISOString()]),
      [[`${selectionGuid(line)}:refund`, `-${line.quantity}`, line.unitPrice, line.refundedAt!.toISOString()]],
    )
    assert.ok(!later.some((listed) => listed.lineId === selectionGuid(line)), 'the sale is not listed again in the later window')
  })

  test('a void after close: the first sync lists the sale, a later one its correction', async () => {
    const { check, line } = find((closed, candidate) => candidate.voidedAfterCloseAt !== null && candidate.voidedAfterCloseAt.getTime() - closed.closedAt.getTime() > HOUR_MS)
    const first = await syncHourAround(check.closedAt)
    assert.ok(first.some((listed) => listed.lineId === selectionGuid(line) && !listed.correctsLineId))
    assert.ok(!first.some((listed) => listed.correctsLineId === selectionGuid(line)), 'not voided yet')
    const later = await syncHourAround(line.voidedAfterCloseAt!)
    const correction = later.find((listed) => listed.correctsLineId === selectionGuid(line))
    assert.equal(correction?.quantity, `-${line.quantity}`)
    assert.equal(correction?.soldAt.toISOString(), line.voidedAfterCloseAt!.toISOString())
  })

  test('a reopened check shows its first state until it closes again, then the line added', async () => {
    const { check, line } = find((closed, candidate) => candidate.addedOnReopen && closed.reclosedAt!.getTime() - closed.closedAt.getTime() > HOUR_MS / 2)
    const beforeReclose = await syncHourAround(check.closedAt)
    assert.ok(
      beforeReclose.some((listed) => listed.checkId === stableUuid(SEED, `toast:check:${check.checkId}`)),
      'the first close is listed',
    )
    assert.ok(!beforeReclose.some((listed) => listed.lineId === selectionGuid(line)), 'the added line is not there yet')
    const afterReclose = await syncHourAround(check.reclosedAt!)
    const added = afterReclose.find((listed) => listed.lineId === selectionGuid(line))
    assert.equal(added?.soldAt.toISOString(), check.reclosedAt!.toISOString())
  })
})
