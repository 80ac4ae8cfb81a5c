import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import Big from 'big.js'
import {
  PosAdapterError,
  type PosAdapter,
  type PosAdapterOptions,
  type PosErrorKind,
  type PosSaleLine,
  type PosType,
  type PosVendor,
  type SimulatorOptions,
} from '../../../src/pos/vendors/adapter.js'
import type { Wait } from '../../../src/platform/background.js'
import { checksClosedBetween, MENU, menuEntry, MODIFIERS, soldAsOf, STAFF } from '../../../src/pos/simulation/bar-data.js'
import { startSimulatorServer, type RunningSimulator } from '../../../src/pos/simulation/simulator-server.js'
import { DAY_MS } from '../../../src/platform/zoned-time.js'

/**
 * How long a test's adapter waits for its simulator: the simulator answers from the test's own process,
 * which a busy machine can stall for seconds, so only the tests of timeouts themselves use a short one.
 */
export const SIMULATOR_TIMEOUT_MS = 60_000

/**
 * One contract for every vendor: its adapter, talking over real HTTP to its simulator, must return the
 * simulated bar exactly (menu, staff, and every sold line of a window with voids and refunds left out),
 * and must turn each failure switch into the right PosAdapterError.
 */

const NOW = new Date('2026-11-20T15:00:00.000Z')
const SEED = 7
const HISTORY_DAYS = 30

const running: RunningSimulator[] = []

/**
 * Closes the simulators started so far: after the contract's tests, and in a test file that starts its
 * own with startRecordingSimulator (`npm test` runs many files in one process, so a file closes what it opened).
 */
export async function closeStartedSimulators(): Promise<void> {
  await Promise.all(running.splice(0).map((simulator) => simulator.close()))
}

/** A vendor's simulator on loopback that records every request URL; closed by closeStartedSimulators. */
export async function startRecordingSimulator(vendor: PosVendor, options: SimulatorOptions): Promise<{ url: string; requests: URL[] }> {
  const handler = vendor.createSimulator(options)
  const requests: URL[] = []
  const server = await startSimulatorServer((req, res) => {
    requests.push(new URL(req.url ?? '/', 'http://simulator'))
    handler(req, res)
  })
  running.push(server)
  return { url: server.url, requests }
}

async function adapterFor(vendor: PosVendor, simulator: Partial<SimulatorOptions> = {}, adapter: Partial<PosAdapterOptions> = {}): Promise<PosAdapter> {
  const handler = vendor.createSimulator({ seed: SEED, historyDays: HISTORY_DAYS, now: () => NOW, ...simulator })
  const server = await startSimulatorServer(handler)
  running.push(server)
  return vendor.createAdapter({ credentials: vendor.exampleCredentials, baseUrl: server.url, timeoutMs: SIMULATOR_TIMEOUT_MS, wait: async () => {}, ...adapter })
}

/** The day before the simulators' yesterday. */
const DAY_WINDOW = { start: new Date(NOW.getTime() - 2 * DAY_MS), end: new Date(NOW.getTime() - DAY_MS) }

function lineIdsOf(lines: PosSaleLine[]): string[] {
  return lines.map((line) => line.lineId).sort()
}

/**
 * A listing of `window` from a fresh adapter and simulator, with the number of requests it took: the
 * last is a page of data (logging in comes first), which the drop tests cut.
 */
async function cleanListing(vendor: PosVendor, window: { start: Date; end: Date }): Promise<{ lineIds: string[]; requests: number }> {
  const adapter = await adapterFor(vendor)
  let requests = 0
  running.at(-1)?.server.on('request', () => requests++)
  const lineIds = lineIdsOf(await collectSales(adapter.listSales(window)))
  return { lineIds, requests }
}

/** A wait that answers at once and keeps what it was asked to wait, ms. */
function recordedWaits(): { wait: Wait; waits: number[] } {
  const waits: number[] = []
  return { waits, wait: async (ms) => void waits.push(ms) }
}

/** Every line of every page of a sales listing. */
export async function collectSales(lines: AsyncIterable<PosSaleLine[]>): Promise<PosSaleLine[]> {
  const all: PosSaleLine[] = []
  for await (const page of lines) all.push(...page)
  return all
}

async function assertFailsWith(kind: PosErrorKind, action: () => Promise<unknown>): Promise<PosAdapterError> {
  try {
    await action()
  } catch (error) {
    assert.ok(error instanceof PosAdapterError, `expected a PosAdapterError, got ${(error as Error).stack}`)
    assert.equal(error.kind, kind, error.message)
    return error
  }
  assert.fail(`expected ${kind}, but the call succeeded`)
}

/**
 * The vendors whose listings report where they got to, so a failed run's next one resumes there; the
 * others start over, for the reasons docs/pos.md gives.
 */
const RESUMABLE: ReadonlySet<PosType> = new Set(['revel', 'square', 'spoton', 'simphony'])

/** Units sold per menu item name, from a list of normalised lines. */
function unitsByName(lines: PosSaleLine[]): Map<string, string> {
  const totals = new Map<string, Big>()
  for (const line of lines) totals.set(line.name, (totals.get(line.name) ?? new Big(0)).plus(line.quantity))
  return new Map([...totals].map(([name, total]) => [name, total.toString()]))
}

/** What the simulated bar sold in [start, end) as a POS reports it at NOW: each line and modifier still sold then. */
function expectedSold(start: Date, end: Date): { units: Map<string, string>; revenue: string } {
  const units = new Map<string, Big>()
  let revenue = new Big(0)
  const add = (itemKey: string, quantity: number, unitPrice: string) => {
    const name = menuEntry(itemKey).name
    units.set(name, (units.get(name) ?? new Big(0)).plus(quantity))
    revenue = revenue.plus(new Big(unitPrice).times(quantity))
  }
  for (const check of checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS })) {
    for (const line of check.lines) {
      if (!soldAsOf(check, line, NOW)) continue
      add(line.itemKey, line.quantity, line.unitPrice)
      for (const modifier of line.modifiers) add(modifier.itemKey, modifier.quantity, modifier.unitPrice)
    }
  }
  return { units: new Map([...units].filter(([, total]) => !total.eq(0)).map(([name, total]) => [name, total.toString()])), revenue: revenue.toFixed(2) }
}

/** Net units per name: sales, modifiers and (negative) corrections together. */
function netUnitsByName(lines: PosSaleLine[]): Map<string, string> {
  const totals = unitsByName(lines)
  return new Map([...totals].filter(([, total]) => !new Big(total).eq(0)))
}

export function describeAdapterContract(vendor: PosVendor): void {
  describe(`${vendor.posType} adapter against its simulator`, () => {
    after(closeStartedSimulators)
    test('verifies the example credentials', async () => {
      await (await adapterFor(vendor)).verify()
    })

    test('rejects a secret starting with "invalid" as invalid_credentials', async () => {
      const credentials = { ...vendor.exampleCredentials, [vendor.secretField]: 'invalid-secret-value' }
      const adapter = await adapterFor(vendor, {}, { credentials })
      await assertFailsWith('invalid_credentials', () => adapter.verify())
    })

    test('lists the whole menu and the modifiers that use stock, with names, categories and prices', async () => {
      const products = await (await adapterFor(vendor)).listProducts()
      const catalog = [...MENU, ...MODIFIERS]
      assert.deepEqual(products.map((product) => product.name).sort(), catalog.map((entry) => entry.name).sort())
      for (const product of products) {
        const entry = catalog.find((candidate) => candidate.name === product.name)!
        assert.ok(product.posItemId.length > 0)
        assert.equal(new Big(product.price ?? '0').toFixed(2), entry.price, `price of ${product.name}`)
      }
      assert.equal(new Set(products.map((product) => product.posItemId)).size, products.length, 'ids are unique')
    })

    test('lists the history net of refunds and voids after close, with modifiers and lines added on reopening', async () => {
      const start = new Date(NOW.getTime() - HISTORY_DAYS * DAY_MS)
      const end = NOW
      const products = await (await adapterFor(vendor)).listProducts()
      const lines = await collectSales((await adapterFor(vendor)).listSales({ start, end }))
      const expected = expectedSold(start, end)
      assert.deepEqual(netUnitsByName(lines), expected.units)
      const revenue = lines.reduce((sum, line) => sum.plus(new Big(line.unitPrice).times(line.quantity)), new Big(0))
      assert.equal(revenue.toFixed(2), expected.revenue)
      const lineIds = new Set(lines.map((line) => line.lineId))
      assert.equal(lineIds.size, lines.length, 'line ids are unique')
      const productIds = new Set(products.map((product) => product.posItemId))
      for (const line of lines) {
        assert.ok(productIds.has(line.posItemId), `line item ${line.posItemId} is on the menu`)
        assert.ok(line.soldAt >= start && line.soldAt < end, `sold at ${line.soldAt.toISOString()} inside the window`)
        if (line.parentLineId) assert.ok(lineIds.has(line.parentLineId), `modifier ${line.lineId} names a listed parent`)
        if (line.correctsLineId) {
          assert.ok(lineIds.has(line.correctsLineId), `correction ${line.lineId} names a listed line`)
          assert.ok(new Big(line.quantity).lt(0), `correction ${line.lineId} takes units back`)
        }
      }
      assert.ok(
        lines.some((line) => line.parentLineId),
        'modifiers are listed',
      )
      assert.ok(
        lines.some((line) => line.correctsLineId),
        'corrections are listed',
      )
    })

    test('returns the same line ids when the same window is read twice', async () => {
      const end = new Date(NOW.getTime() - DAY_MS)
      const start = new Date(end.getTime() - DAY_MS)
      const first = await collectSales((await adapterFor(vendor)).listSales({ start, end }))
      const second = await collectSales((await adapterFor(vendor)).listSales({ start, end }))
      assert.deepEqual(first.map((line) => line.lineId).sort(), second.map((line) => line.lineId).sort())
    })

    test(
      RESUMABLE.has(vendor.posType)
        ? 'a listing stopped part way and given back the last position it reported lists the rest, missing nothing'
        : 'a listing reports no position: a stopped one starts over',
      async () => {
        const end = new Date(NOW.getTime() - DAY_MS)
        const window = { start: new Date(end.getTime() - 20 * DAY_MS), end }
        const whole = await collectSales((await adapterFor(vendor)).listSales(window))
        // Each position with the lines taken when it was reported: it is reached once the caller asks for the page after.
        const positions: { position: string; after: number }[] = []
        const taken: PosSaleLine[] = []
        const reached = (position: string) => positions.push({ position, after: taken.length })
        for await (const page of (await adapterFor(vendor)).listSales(window, { reached })) {
          // Stopped once a third of the lines are in: lines taken just before a position may come again after
          // it (Simphony answers a reopened check again on the date it closed again), so fewer prove nothing.
          if (positions.some((entry) => entry.after >= whole.length / 3)) break
          taken.push(...page)
        }
        if (!RESUMABLE.has(vendor.posType)) return assert.deepEqual(positions, [])
        const rest = await collectSales((await adapterFor(vendor)).listSales(window, { from: positions.at(-1)?.position, reached: () => undefined }))
        assert.ok(rest.length < whole.length, `resumed with ${rest.length} of ${whole.length} lines left`)
        const ids = (lines: PosSaleLine[]) => [...new Set(lines.map((line) => line.lineId))].sort()
        assert.deepEqual(ids([...taken, ...rest]), ids(whole))
      },
    )

    test('lists the staff', async () => {
      const staff = await (await adapterFor(vendor)).listStaff()
      const names = staff.map((member) => member.name).sort()
      assert.deepEqual(names, STAFF.map((member) => `${member.firstName} ${member.lastName}`).sort())
    })

    test('waits out a short 429 and then succeeds', async () => {
      const { wait, waits } = recordedWaits()
      const adapter = await adapterFor(vendor, { failure: { mode: 'rate_limit', retryAfterSeconds: 1, times: 1 } }, { wait })
      assert.equal((await adapter.listProducts()).length, MENU.length + MODIFIERS.length)
      assert.deepEqual(waits, [1_000])
    })

    test('gives up on a lasting 429 with rate_limited and the Retry-After', async () => {
      const adapter = await adapterFor(vendor, { failure: { mode: 'rate_limit', retryAfterSeconds: 120 } }, { maxRetryWaitMs: 500 })
      const error = await assertFailsWith('rate_limited', () => adapter.listProducts())
      assert.equal(error.retryAfterSeconds, 120)
    })

    test('maps a 5xx to connection_failed after two retries', async () => {
      const { wait, waits } = recordedWaits()
      const adapter = await adapterFor(vendor, { failure: { mode: 'server_error' } }, { wait })
      await assertFailsWith('connection_failed', () => adapter.listProducts())
      assert.deepEqual(waits, [250, 500])
    })

    test('retries a 5xx twice also after a 429: rate limits and server errors are counted apart', async () => {
      const { wait, waits } = recordedWaits()
      const adapter = await adapterFor(vendor, { failure: { mode: 'statuses', statuses: [429, 503, 503] } }, { wait })
      assert.equal((await adapter.listProducts()).length, MENU.length + MODIFIERS.length)
      assert.deepEqual(waits, [1_000, 250, 500])
    })

    test('maps an unreadable answer to invalid_response', async () => {
      const adapter = await adapterFor(vendor, { failure: { mode: 'garbage' } })
      await assertFailsWith('invalid_response', () => adapter.listProducts())
    })

    test('maps a connection that keeps dropping mid-page to connection_failed after two retries', async () => {
      const clean = await cleanListing(vendor, DAY_WINDOW)
      const { wait, waits } = recordedWaits()
      const adapter = await adapterFor(vendor, { failure: { mode: 'drop_mid_page', page: clean.requests } }, { wait })
      await assertFailsWith('connection_failed', () => collectSales(adapter.listSales(DAY_WINDOW)))
      assert.deepEqual(waits, [250, 500])
    })

    test('asks again for a page whose connection dropped once, and lists every line', async () => {
      const clean = await cleanListing(vendor, DAY_WINDOW)
      const { wait, waits } = recordedWaits()
      const adapter = await adapterFor(vendor, { failure: { mode: 'drop_mid_page', page: clean.requests, times: 1 } }, { wait })
      assert.deepEqual(lineIdsOf(await collectSales(adapter.listSales(DAY_WINDOW))), clean.lineIds)
      assert.deepEqual(waits, [250])
    })

    test('maps a timeout to connection_failed', async () => {
      const adapter = await adapterFor(vendor, { failure: { mode: 'slow', delayMs: 1500 } }, { timeoutMs: 200 })
      await assertFailsWith('connection_failed', () => adapter.listProducts())
    })

    test('maps an unreachable host to connection_failed', async () => {
      const adapter = vendor.createAdapter({ credentials: vendor.exampleCredentials, baseUrl: 'http://127.0.0.1:9', timeoutMs: 1000 })
      await assertFailsWith('connection_failed', () => adapter.verify())
    })
  })
}
