import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { after, describe, test } from 'node:test'
import type { SimulatorHandler } from '../../../src/pos/adapter.js'
import { checksClosedBetween, MENU, STAFF } from '../../../src/pos/simulation/bar-data.js'
import { readBody, startSimulatorServer, type RunningSimulator } from '../../../src/pos/simulation/simulator-server.js'
import { squareVendor } from '../../../src/pos/vendors/square/index.js'
import type { SquareCatalogObject, SquareOrder } from '../../../src/pos/vendors/square/square.client.js'
import { mapOrderLines, returnedQuantities, withoutReturned } from '../../../src/pos/vendors/square/square.mapper.js'
import { describeAdapterContract, collectSales } from './adapter-contract.js'

describeAdapterContract(squareVendor)

const NOW = new Date('2026-11-20T15:00:00.000Z')
const SEED = 11
const HISTORY_DAYS = 30
const DAY_MS = 86_400_000

const running: RunningSimulator[] = []
after(async () => {
  await Promise.all(running.map((simulator) => simulator.close()))
})

/** A simulator that also counts the requests it served, per "METHOD /path". */
async function countingSimulator(): Promise<{ url: string; calls: Map<string, number> }> {
  const handler = squareVendor.createSimulator({ seed: SEED, historyDays: HISTORY_DAYS, now: () => NOW })
  const calls = new Map<string, number>()
  const counting: SimulatorHandler = (req: IncomingMessage, res: ServerResponse) => {
    const key = `${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`
    calls.set(key, (calls.get(key) ?? 0) + 1)
    handler(req, res)
  }
  const server = await startSimulatorServer(counting)
  running.push(server)
  return { url: server.url, calls }
}

function soldChecks(start: Date, end: Date) {
  return checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS })
}

const token = { authorization: `Bearer ${squareVendor.exampleCredentials.access_token}` }

describe('square adapter, beyond the contract', () => {
  test('follows the SearchOrders cursor through every page of a long window', async () => {
    const { url, calls } = await countingSimulator()
    const adapter = squareVendor.createAdapter({ credentials: squareVendor.exampleCredentials, baseUrl: url })
    const end = new Date(NOW.getTime() - DAY_MS)
    const start = new Date(end.getTime() - 12 * DAY_MS)
    const lines = await collectSales(adapter.listSales({ start, end }))
    const expectedUnits = soldChecks(start, end)
      .flatMap((check) => check.lines)
      .filter((line) => !line.voided && !line.refunded)
      .reduce((total, line) => total + line.quantity, 0)
    assert.ok((calls.get('POST /v2/orders/search') ?? 0) >= 2, `orders were read in ${calls.get('POST /v2/orders/search')} page(s)`)
    assert.equal(lines.reduce((total, line) => total + Number(line.quantity), 0), expectedUnits)
  })

  test('holds a refunded sale until its return order, even when the return is on the next page', async () => {
    const handler = squareVendor.createSimulator({ seed: SEED, historyDays: HISTORY_DAYS, now: () => NOW })
    // Ten orders a page, so some sale orders and their return orders fall on different pages.
    const smallPages: SimulatorHandler = (req, res) => {
      if (req.url !== '/v2/orders/search') return handler(req, res)
      void readBody(req).then((text) => {
        const forwarded = Object.assign(Readable.from([JSON.stringify({ ...JSON.parse(text), limit: 10 })]), {
          method: req.method,
          url: req.url,
          headers: req.headers,
        })
        handler(forwarded as unknown as IncomingMessage, res)
      })
    }
    const server = await startSimulatorServer(smallPages)
    running.push(server)
    const adapter = squareVendor.createAdapter({ credentials: squareVendor.exampleCredentials, baseUrl: server.url })
    const end = new Date(NOW.getTime() - 4 * DAY_MS)
    const start = new Date(end.getTime() - 2 * DAY_MS)
    const checks = soldChecks(start, end)
    assert.ok(checks.some((check) => check.lines.some((line) => line.refunded)), 'the window has refunds')
    const lines = await collectSales(adapter.listSales({ start, end }))
    const expectedUnits = checks
      .flatMap((check) => check.lines)
      .filter((line) => !line.voided && !line.refunded)
      .reduce((total, line) => total + line.quantity, 0)
    assert.equal(lines.reduce((total, line) => total + Number(line.quantity), 0), expectedUnits)
  })

  test('names the team member who took each order payment on its lines', async () => {
    const { url } = await countingSimulator()
    const adapter = squareVendor.createAdapter({ credentials: squareVendor.exampleCredentials, baseUrl: url })
    const end = new Date(NOW.getTime() - 3 * DAY_MS)
    const start = new Date(end.getTime() - DAY_MS)
    const staff = await adapter.listStaff()
    const lines = await collectSales(adapter.listSales({ start, end }))
    const linesPerName = new Map<string, number>()
    for (const line of lines) {
      assert.ok(staff.some((member) => member.staffId === line.staffId), `staff ${line.staffId} is a team member`)
      linesPerName.set(line.staffName ?? '', (linesPerName.get(line.staffName ?? '') ?? 0) + 1)
    }
    const expected = new Map<string, number>()
    for (const check of soldChecks(start, end)) {
      const member = STAFF.find((candidate) => candidate.key === check.staffKey)!
      const sold = check.lines.filter((line) => !line.voided && !line.refunded).length
      if (sold) expected.set(`${member.firstName} ${member.lastName}`, (expected.get(`${member.firstName} ${member.lastName}`) ?? 0) + sold)
    }
    assert.deepEqual(linesPerName, expected)
    assert.equal(staff.find((member) => member.name === 'Dave Miller')?.role, 'Manager')
  })

  test('serves money as integer cents and quantities as strings, as Square does', async () => {
    const { url } = await countingSimulator()
    const catalog = (await (await fetch(`${url}/v2/catalog/list?types=ITEM,ITEM_VARIATION,CATEGORY`, { headers: token })).json()) as {
      objects: SquareCatalogObject[]
    }
    const stella = catalog.objects.find((object) => object.type === 'ITEM_VARIATION' && object.item_variation_data?.sku === 'DR-STEL-16')
    assert.deepEqual(stella?.item_variation_data?.price_money, { amount: 750, currency: 'USD' })

    const end = new Date(NOW.getTime() - DAY_MS)
    const response = await fetch(`${url}/v2/orders/search`, {
      method: 'POST',
      headers: { ...token, 'content-type': 'application/json' },
      body: JSON.stringify({
        location_ids: ['L8SIMBAR0001'],
        query: {
          filter: { date_time_filter: { closed_at: { start_at: new Date(end.getTime() - DAY_MS).toISOString(), end_at: end.toISOString() } } },
          sort: { sort_field: 'CLOSED_AT', sort_order: 'ASC' },
        },
        limit: 5,
      }),
    })
    const body = (await response.json()) as { orders: SquareOrder[]; cursor?: string }
    assert.equal(body.orders.length, 5)
    assert.ok(body.cursor, 'a full page carries a cursor')
    const line = body.orders[0]!.line_items![0]!
    assert.equal(typeof line.quantity, 'string')
    assert.ok(Number.isInteger(line.base_price_money?.amount))
    assert.equal(line.base_price_money?.amount, Math.round(Number(MENU.find((entry) => entry.name === line.name)?.price) * 100))
  })

  test('refuses a bad token with Square\'s 401 error body', async () => {
    const { url } = await countingSimulator()
    const response = await fetch(`${url}/v2/catalog/list`, { headers: { authorization: 'Bearer invalid-token' } })
    assert.equal(response.status, 401)
    const body = (await response.json()) as { errors: { category: string; code: string }[] }
    assert.equal(body.errors[0]?.category, 'AUTHENTICATION_ERROR')
    assert.equal(body.errors[0]?.code, 'UNAUTHORIZED')
  })

  test('refuses a filter on closed_at sorted by another field, as Square does', async () => {
    const { url } = await countingSimulator()
    const response = await fetch(`${url}/v2/orders/search`, {
      method: 'POST',
      headers: { ...token, 'content-type': 'application/json' },
      body: JSON.stringify({ location_ids: ['L1'], query: { filter: { date_time_filter: { closed_at: { start_at: NOW.toISOString() } } } } }),
    })
    assert.equal(response.status, 400)
  })

  test('takes a partial return off a sold line and a full return drops it', () => {
    const sale: SquareOrder = {
      id: 'ORDER1',
      location_id: 'L1',
      state: 'COMPLETED',
      created_at: '2026-11-01T20:00:00.000Z',
      updated_at: '2026-11-01T21:00:00.000Z',
      closed_at: '2026-11-01T21:00:00.000Z',
      line_items: [
        { uid: 'A', name: 'Negroni', quantity: '3', catalog_object_id: 'V1', base_price_money: { amount: 1300, currency: 'USD' }, total_money: { amount: 3900, currency: 'USD' } },
        { uid: 'B', name: 'Fries', quantity: '1', catalog_object_id: 'V2', base_price_money: { amount: 800, currency: 'USD' }, total_money: { amount: 800, currency: 'USD' } },
      ],
      total_tip_money: { amount: 470, currency: 'USD' },
    }
    const returnOrder: SquareOrder = {
      ...sale,
      id: 'RETURN1',
      line_items: [],
      returns: [{ uid: 'R', source_order_id: 'ORDER1', return_line_items: [{ uid: 'RA', source_line_item_uid: 'A', quantity: '1' }, { uid: 'RB', source_line_item_uid: 'B', quantity: '1' }] }],
    }
    const returned = returnedQuantities(returnOrder)
    const lines = mapOrderLines(sale, { staffId: null, staffName: null })
    assert.deepEqual(lines.map((line) => [line.unitPrice, line.tip]), [['13.00', '3.90'], ['8.00', '0.80']])
    const kept = lines.flatMap((line) => withoutReturned(line, returned.get(line.lineId)) ?? [])
    assert.deepEqual(kept.map((line) => [line.lineId, line.quantity]), [['ORDER1:A', '2']])
  })

  test('verifies a Square push signature over the notification URL and body', () => {
    const url = 'https://bar.example.com/v1/pos/webhooks/square'
    const body = Buffer.from(JSON.stringify({ merchant_id: 'M1', type: 'order.updated', event_id: 'e1', data: {} }))
    const signature = createHmac('sha256', 'signature-key').update(url + body.toString()).digest('base64')
    const headers = { 'x-square-hmacsha256-signature': signature }
    assert.deepEqual(squareVendor.parsePush!(headers, body, 'signature-key', url), { kind: 'orders_changed' })
    assert.throws(() => squareVendor.parsePush!(headers, body, 'other-key', url), /signature/)
    assert.throws(() => squareVendor.parsePush!(headers, Buffer.from(body.toString().replace('order', 'catalog')), 'signature-key', url), /signature/)
  })
})

