import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import Big from 'big.js'
import { PosAdapterError, type PosSaleLine, type SimulatorOptions } from '../../../src/pos/vendors/adapter.js'
import { checksClosedBetween, MODIFIERS, soldAsOf, stableUuid, type SimCheck, type SimLine } from '../../../src/pos/simulation/bar-data.js'
import { exportSlices } from '../../../src/pos/vendors/spoton/spoton.adapter.js'
import type { SpotOnMenuItem, SpotOnOrder } from '../../../src/pos/vendors/spoton/spoton.client.js'
import { toPosSaleLines } from '../../../src/pos/vendors/spoton/spoton.mapper.js'
import { spotonVendor } from '../../../src/pos/vendors/spoton/index.js'
import { OpenApiContract } from '../../helpers/openapi-contract.js'
import { closeStartedSimulators, collectSales, describeAdapterContract, startRecordingSimulator } from './adapter-contract.js'
import { DAY_MS } from '../../../src/platform/zoned-time.js'

after(closeStartedSimulators)

describeAdapterContract(spotonVendor)

const NOW = new Date('2026-11-20T15:00:00.000Z')
const SEED = 11
const HISTORY_DAYS = 30
const KEY = spotonVendor.exampleCredentials.api_key as string
const HOUR_MS = 3_600_000
const orderId = (check: SimCheck) => stableUuid(SEED, `spoton:order:${check.checkId}`)

/** Checks closed in [start, end) that nothing changed after closing (no refund, void after close or reopening). */
function untouchedChecks(start: Date, end: Date): SimCheck[] {
  return checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS }).filter(
    (check) => check.reclosedAt === null && check.lines.every((line) => line.refundedAt === null && line.voidedAfterCloseAt === null),
  )
}

/** A simulator whose every request URL is recorded, to see which calls the adapter made. */
function recordedSimulator(options: Partial<SimulatorOptions> = {}) {
  return startRecordingSimulator(spotonVendor, { seed: SEED, historyDays: HISTORY_DAYS, now: () => NOW, ...options })
}

describe('spoton adapter', () => {
  test('walks a three-day window in day-long ranges the export API accepts, reading every one', async () => {
    const simulator = await recordedSimulator()
    const adapter = spotonVendor.createAdapter({ credentials: spotonVendor.exampleCredentials, baseUrl: simulator.url })
    const end = new Date('2026-11-18T06:00:00.000Z')
    const start = new Date(end.getTime() - 3 * DAY_MS)
    const lines = await collectSales(adapter.listSales({ start, end }))

    const ranges = simulator.requests.filter((url) => url.pathname.endsWith('/orders'))
    assert.equal(ranges.length, 3)
    assert.ok(
      ranges.every((range) => range.searchParams.get('includeUpdatedActivity') === 'true'),
      'each range also brings the orders changed in it',
    )
    assert.equal(ranges[0]?.searchParams.get('closedAtStart'), '2026-11-15T06:00:00Z')
    assert.equal(ranges[2]?.searchParams.get('closedAtEnd'), '2026-11-18T06:00:00Z')
    for (const [index, range] of ranges.entries()) {
      if (index > 0) assert.equal(range.searchParams.get('closedAtStart'), ranges[index - 1]?.searchParams.get('closedAtEnd'))
    }
    const checks = untouchedChecks(start, end)
    const ids = new Set(checks.map(orderId))
    const expectedUnits = checks
      .flatMap((check) => check.lines)
      .filter((line) => !line.voided)
      .reduce((total, line) => total + line.quantity, 0)
    const listed = lines.filter((line) => ids.has(line.checkId!) && !line.parentLineId && !line.correctsLineId)
    assert.equal(
      listed.reduce((total, line) => total + Number(line.quantity), 0),
      expectedUnits,
    )
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
    const start = new Date(end.getTime() - DAY_MS)
    const lines = await collectSales(adapter.listSales({ start, end }))
    const checks = checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS }).filter((check) => check.reclosedAt === null)
    const ids = new Set(checks.map(orderId))
    const tipsByCheck = new Map<string, Big>()
    for (const line of lines.filter((candidate) => candidate.tip !== null && ids.has(candidate.checkId!))) {
      tipsByCheck.set(line.checkId!, (tipsByCheck.get(line.checkId!) ?? new Big(0)).plus(line.tip!))
    }
    // A check whose every line was taken back has no sold line left to carry its tip.
    const expectedTips = checks
      .filter((check) => check.lines.some((line) => soldAsOf(check, line, NOW)))
      .map((check) => check.tip)
      .sort()
    assert.deepEqual([...tipsByCheck.values()].map((tip) => tip.toFixed(2)).sort(), expectedTips)
    assert.ok(
      lines.every((line) => line.staffId && line.staffName),
      'every line names its server',
    )
    assert.ok(
      lines.every((line) => line.tip === null || !line.correctsLineId),
      'corrections carry no tip',
    )
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
    assert.deepEqual(
      afterVoid.map((line) => line.lineId),
      [before[1]?.lineId],
    )
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
    assert.ok(
      guests.some((guest) => guest.voidedItems.length > 0),
      'a day of a busy bar has voids',
    )
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

describe('spoton simulator, as the export API documents it', () => {
  const headers = { 'x-api-key': KEY }

  test('answers every route with what spoton.yml describes', async () => {
    const simulator = await recordedSimulator()
    const contract = new OpenApiContract('spoton.yml')
    const get = async (path: string) => (await fetch(`${simulator.url}/locations/loc-1${path}`, { headers })).json()
    contract.assertResponse('GET', '/locations/{locationId}', 200, await get(''))
    const items = (await get('/menu-items')) as SpotOnMenuItem[]
    contract.assertResponse('GET', '/locations/{locationId}/menu-items', 200, items)
    assert.deepEqual(
      MODIFIERS.map((modifier) => items.some((item) => item.name === modifier.name)),
      MODIFIERS.map(() => true),
      'add-ons are menu items',
    )
    contract.assertResponse('GET', '/locations/{locationId}/employees', 200, await get('/employees'))
    contract.assertResponse('GET', '/locations/{locationId}/report-categories', 200, await get('/report-categories'))
    // A month of orders, by closing time with the orders changed meanwhile, and by update time.
    for (let day = 1; day <= HISTORY_DAYS; day++) {
      const at = (daysAgo: number) => new Date(NOW.getTime() - daysAgo * DAY_MS).toISOString().replace('.000', '')
      const range = (name: string) => `${name}Start=${at(day + 1)}&${name}End=${at(day)}`
      for (const query of [`${range('closedAt')}&includeUpdatedActivity=true`, range('updatedAt')]) {
        contract.assertResponse('GET', '/locations/{locationId}/orders', 200, await get(`/orders?${query}`))
      }
    }
  })

  test('refuses query parameters spoton.yml does not list, with 400', async () => {
    const simulator = await recordedSimulator()
    for (const path of [
      '/menu-items?limit=10',
      '/employees?active=true',
      '/orders?closedAtStart=2026-11-14T00:00:00Z&closedAtEnd=2026-11-15T00:00:00Z&page=2',
      '/orders?updatedAtStart=2026-11-14T00:00:00Z&updatedAtEnd=2026-11-15T00:00:00Z&includeUpdatedActivity=true',
      '/orders?closedAtStart=2026-11-14T00:00:00Z&closedAtEnd=2026-11-15T00:00:00Z&includeUpdatedActivity=yes',
    ]) {
      const response = await fetch(`${simulator.url}/locations/loc-1${path}`, { headers })
      assert.equal(response.status, 400, path)
    }
  })
})

describe('spoton sales over successive syncs', () => {
  const history = checksClosedBetween(SEED, new Date(NOW.getTime() - HISTORY_DAYS * DAY_MS), new Date(NOW.getTime() - 3 * DAY_MS), { now: NOW, historyDays: HISTORY_DAYS })

  function find(pick: (check: SimCheck, line: SimLine) => boolean): { check: SimCheck; line: SimLine } {
    for (const check of history) for (const line of check.lines) if (pick(check, line)) return { check, line }
    throw new Error('the simulated history has no such line')
  }

  /** What a sync of the hour around `at` lists, run 10 minutes after that hour (the export lags 5). */
  async function syncHourAround(at: Date): Promise<PosSaleLine[]> {
    const window = { start: new Date(at.getTime() - HOUR_MS / 2), end: new Date(at.getTime() + HOUR_MS / 2) }
    const simulator = await recordedSimulator({ now: () => new Date(window.end.getTime() + 10 * 60_000) })
    return collectSales(spotonVendor.createAdapter({ credentials: spotonVendor.exampleCredentials, baseUrl: simulator.url }).listSales(window))
  }

  /** The listed lines of the menu item of `line` in its check, by kind. */
  function linesOf(lines: PosSaleLine[], check: SimCheck, line: SimLine | { itemKey: string }) {
    const ofItem = lines.filter((listed) => listed.checkId === orderId(check) && listed.posItemId === stableUuid(SEED, `spoton:menu-item:${line.itemKey}`))
    return { sales: ofItem.filter((listed) => !listed.correctsLineId), corrections: ofItem.filter((listed) => listed.correctsLineId) }
  }

  test('lists add-ons rung as subItems as lines of their own menu item under their parent', async () => {
    const { check, line } = find((closed, candidate) => candidate.modifiers.length > 0 && soldAsOf(closed, candidate, NOW) && closed.reclosedAt === null)
    const lines = await syncHourAround(check.closedAt)
    const parent = linesOf(lines, check, line).sales[0]
    const modifier = line.modifiers[0]!
    const added = linesOf(lines, check, modifier).sales.find((listed) => listed.parentLineId === parent?.lineId)
    assert.ok(parent, 'the parent is listed')
    assert.equal(added?.quantity, String(modifier.quantity))
    assert.equal(added?.unitPrice, modifier.unitPrice)
  })

  test('a refund made in a later window: the first sync lists the sale, the one of the refund only its correction', async () => {
    const { check, line } = find((closed, candidate) => candidate.refundedAt !== null && closed.lines.filter((other) => other.itemKey === candidate.itemKey).length === 1)
    const first = linesOf(await syncHourAround(check.closedAt), check, line)
    assert.deepEqual(
      first.sales.map((listed) => listed.quantity),
      [String(line.quantity)],
    )
    assert.deepEqual(first.corrections, [])
    const later = linesOf(await syncHourAround(line.refundedAt!), check, line)
    assert.deepEqual(later.sales, [])
    assert.deepEqual(
      later.corrections.map((listed) => [listed.correctsLineId, listed.quantity, listed.unitPrice, listed.soldAt.toISOString()]),
      [[first.sales[0]!.lineId, `-${line.quantity}`, line.unitPrice, line.refundedAt!.toISOString()]],
    )
  })

  test('a void after close: the first sync lists the sale, a later one its correction', async () => {
    const { check, line } = find(
      (closed, candidate) =>
        candidate.voidedAfterCloseAt !== null &&
        candidate.voidedAfterCloseAt.getTime() - closed.closedAt.getTime() > HOUR_MS &&
        closed.lines.filter((other) => other.itemKey === candidate.itemKey).length === 1,
    )
    const first = linesOf(await syncHourAround(check.closedAt), check, line)
    assert.equal(first.sales.length, 1)
    const later = linesOf(await syncHourAround(line.voidedAfterCloseAt!), check, line)
    assert.deepEqual(
      later.corrections.map((listed) => [listed.correctsLineId, listed.quantity]),
      [[first.sales[0]!.lineId, `-${line.quantity}`]],
    )
  })

  test('a reopened order shows its first state until it closes again, then the line added', async () => {
    const { check } = find(
      (closed, candidate) =>
        candidate.addedOnReopen &&
        closed.reclosedAt!.getTime() - closed.closedAt.getTime() > 0.75 * HOUR_MS &&
        closed.lines.every((line) => line.refundedAt === null && line.voidedAfterCloseAt === null),
    )
    const salesOf = (lines: PosSaleLine[]) => lines.filter((listed) => listed.checkId === orderId(check) && !listed.correctsLineId)
    const firstRound = check.lines.filter((line) => !line.voided && !line.addedOnReopen)
    const before = salesOf(await syncHourAround(check.closedAt))
    assert.equal(before.length, firstRound.length + firstRound.flatMap((line) => line.modifiers).length)
    const after = salesOf(await syncHourAround(check.reclosedAt!))
    assert.equal(after.length, before.length + 1, 'the line added on reopening')
    assert.ok(
      after.every((listed) => listed.soldAt.getTime() === check.reclosedAt!.getTime()),
      'dated at the new close',
    )
  })

  test('names the field when an order answers a shape SpotOn never documented', () => {
    const order = { id: 'o', deleted: false, closedAt: '2026-11-18T21:00:00Z', updatedAt: 'later', checks: [] } as unknown as SpotOnOrder
    assert.throws(
      () => toPosSaleLines([order]),
      (error: unknown) => error instanceof PosAdapterError && error.kind === 'invalid_response' && error.message.includes('order.updatedAt'),
    )
  })
})
