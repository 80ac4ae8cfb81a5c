import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import Big from 'big.js'
import type { SimulatorOptions } from '../../../src/pos/adapter.js'
import { checksClosedBetween } from '../../../src/pos/simulation/bar-data.js'
import { exportSlices } from '../../../src/pos/vendors/spoton/spoton.adapter.js'
import type { SpotOnOrder } from '../../../src/pos/vendors/spoton/spoton.client.js'
import { toPosSaleLines } from '../../../src/pos/vendors/spoton/spoton.mapper.js'
import { spotonVendor } from '../../../src/pos/vendors/spoton/index.js'
import { collectSales, describeAdapterContract, startRecordingSimulator } from './adapter-contract.js'

describeAdapterContract(spotonVendor)

const NOW = new Date('2026-11-20T15:00:00.000Z')
const SEED = 11
const HISTORY_DAYS = 30
const KEY = spotonVendor.exampleCredentials.api_key as string

/** A simulator whose every request URL is recorded, to see which calls the adapter made. */
function recordedSimulator(options: Partial<SimulatorOptions> = {}) {
  return startRecordingSimulator(spotonVendor, { seed: SEED, historyDays: HISTORY_DAYS, now: () => NOW, ...options })
}

describe('spoton adapter', () => {
  test('walks a three-day window in day-long ranges the export API accepts, reading every one', async () => {
    const simulator = await recordedSimulator()
    const adapter = spotonVendor.createAdapter({ credentials: spotonVendor.exampleCredentials, baseUrl: simulator.url })
    const end = new Date('2026-11-18T06:00:00.000Z')
    const start = new Date(end.getTime() - 3 * 86_400_000)
    const lines = await collectSales(adapter.listSales({ start, end }))

    const ranges = simulator.requests.filter((url) => url.pathname.endsWith('/orders'))
    assert.equal(ranges.length, 3)
    assert.equal(ranges[0]?.searchParams.get('closedAtStart'), '2026-11-15T06:00:00Z')
    assert.equal(ranges[2]?.searchParams.get('closedAtEnd'), '2026-11-18T06:00:00Z')
    for (const [index, range] of ranges.entries()) {
      if (index > 0) assert.equal(range.searchParams.get('closedAtStart'), ranges[index - 1]?.searchParams.get('closedAtEnd'))
    }
    const expectedLines = checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS })
      .flatMap((check) => check.lines)
      .filter((line) => !line.voided && !line.refunded)
    assert.equal(lines.length, expectedLines.length)
  })

  test('never asks for a range ending less than 5 minutes ago, and keeps an odd window to the millisecond', () => {
    const latestEnd = new Date('2026-11-20T14:55:00.000Z')
    const slices = exportSlices({ start: new Date('2026-11-19T10:00:00.250Z'), end: new Date('2026-11-20T14:59:00.000Z') }, latestEnd)
    assert.deepEqual(
      slices.map((slice) => [slice.start.toISOString(), slice.end.toISOString()]),
      [
        ['2026-11-19T10:00:00.000Z', '2026-11-20T10:00:00.000Z'],
        ['2026-11-20T10:00:00.000Z', '2026-11-20T14:55:00.000Z'],
      ],
    )
    assert.deepEqual(exportSlices({ start: new Date('2026-11-20T14:56:00Z'), end: new Date('2026-11-20T14:59:00Z') }, latestEnd), [])
  })

  test("splits each check's tip over its lines so the shares add up to the tip", async () => {
    const simulator = await recordedSimulator()
    const adapter = spotonVendor.createAdapter({ credentials: spotonVendor.exampleCredentials, baseUrl: simulator.url })
    const end = new Date('2026-11-18T00:00:00.000Z')
    const start = new Date(end.getTime() - 86_400_000)
    const lines = await collectSales(adapter.listSales({ start, end }))
    const tipsByCheck = new Map<string, Big>()
    for (const line of lines) tipsByCheck.set(line.checkId!, (tipsByCheck.get(line.checkId!) ?? new Big(0)).plus(line.tip!))
    const expectedTips = checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS })
      .filter((check) => check.lines.some((line) => !line.voided && !line.refunded))
      .map((check) => check.tip)
      .sort()
    assert.deepEqual([...tipsByCheck.values()].map((tip) => tip.toFixed(2)).sort(), expectedTips)
    assert.ok(lines.every((line) => line.staffId && line.staffName), 'every line names its server')
  })

  test('keeps the ids of the other lines when a line of the order is voided between two syncs', () => {
    const item = (menuItemId: string, createdAt: string) => ({
      menuItemId,
      name: menuItemId,
      createdAt,
      quantity: '1',
      preDiscountsAmount: '8.00',
      discountsAmount: '0.00',
      postDiscountsAmount: '8.00',
      taxesAmount: '0.00',
      totalAmount: '8.00',
      subItems: [],
    })
    const order = (items: ReturnType<typeof item>[], voidedItems: ReturnType<typeof item>[]): SpotOnOrder => ({
      id: 'order-1',
      deleted: false,
      locationId: 'loc',
      createdByEmployeeId: 'emp',
      createdByEmployeeName: 'Maria Lopez',
      createdAt: '2026-11-18T20:00:00Z',
      closedAt: '2026-11-18T21:00:00Z',
      updatedAt: '2026-11-18T21:00:00.000Z',
      totalAmount: '16.00',
      balanceDueAmount: '0.00',
      checks: [
        {
          gratuityAmount: '0.00',
          totalAmount: '16.00',
          paymentsAmount: '16.00',
          balanceAmount: '0.00',
          guests: [{ name: 'Guest 1', items, voidedItems }],
          payments: [],
          items: [],
          voidedItems: [],
        },
      ],
    })
    const beer = item('beer', '2026-11-18T20:05:00Z')
    const wine = item('wine', '2026-11-18T20:10:00Z')
    const before = toPosSaleLines([order([beer, wine], [])])
    const afterVoid = toPosSaleLines([order([wine], [beer])])
    assert.deepEqual(afterVoid.map((line) => line.lineId), [before[1]?.lineId])
    assert.deepEqual(
      toPosSaleLines([order([beer, beer], [])]).map((line) => line.lineId),
      ['order-1:beer:2026-11-18T20:05:00Z:0', 'order-1:beer:2026-11-18T20:05:00Z:1'],
    )
  })
})

describe('spoton simulator', () => {
  test('serves prices, amounts and quantities as decimal strings, voids in voidedItems', async () => {
    const simulator = await recordedSimulator()
    const headers = { 'x-api-key': KEY }
    const items = (await (await fetch(`${simulator.url}/locations/loc-1/menu-items`, { headers })).json()) as Record<string, unknown>[]
    const stella = items.find((item) => item.name === 'Stella Artois Draft Pint')
    assert.equal(stella?.standardPriceAmount, '7.50')

    const response = await fetch(`${simulator.url}/locations/loc-1/orders?closedAtStart=2026-11-14T00:00:00Z&closedAtEnd=2026-11-15T00:00:00Z`, { headers })
    assert.equal(response.status, 200)
    const orders = (await response.json()) as SpotOnOrder[]
    const guests = orders.flatMap((order) => order.checks.flatMap((check) => check.guests))
    const soldItem = guests.flatMap((guest) => guest.items)[0]!
    assert.match(soldItem.quantity, /^\d+$/)
    assert.match(soldItem.totalAmount, /^\d+\.\d{2}$/)
    assert.ok(guests.some((guest) => guest.voidedItems.length > 0), 'a day of a busy bar has voids')
    assert.match(orders[0]!.closedAt!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
  })

  test("refuses ranges the export API refuses, with 400 and SpotOn's error body", async () => {
    const simulator = await recordedSimulator()
    const headers = { 'x-api-key': KEY }
    const ranges = [
      'closedAtStart=2026-11-14T00:00:00Z&closedAtEnd=2026-11-15T03:00:00Z',
      'closedAtStart=2026-11-14T00:00:00.000Z&closedAtEnd=2026-11-15T00:00:00.000Z',
      'closedAtStart=2026-11-20T12:00:00Z&closedAtEnd=2026-11-20T14:58:00Z',
      'closedAtEnd=2026-11-15T00:00:00Z',
    ]
    for (const range of ranges) {
      const response = await fetch(`${simulator.url}/locations/loc-1/orders?${range}`, { headers })
      assert.equal(response.status, 400, range)
      const body = (await response.json()) as { message: string; code: string }
      assert.equal(typeof body.message, 'string')
      assert.equal(body.code, 'BAD_REQUEST')
    }
  })

  test('refuses a request without an API key with 401', async () => {
    const simulator = await recordedSimulator()
    const response = await fetch(`${simulator.url}/locations/loc-1/menu-items`)
    assert.equal(response.status, 401)
    assert.equal(((await response.json()) as { code: string }).code, 'UNAUTHORIZED')
  })
})
