import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { PosVendor, SimulatorHandler } from '../../../src/pos/vendors/adapter.js'
import type { BackgroundLoop } from '../../../src/platform/background.js'
import { startSimulatorServer, type RunningSimulator } from '../../../src/pos/simulation/simulator-server.js'
import { supportedPosTypes, findVendor } from '../../../src/pos/vendors/vendor-registry.js'
import { type Caller, json, type TestContext } from '../../helpers/context.js'
import { createPosTestContext, runSync, startWorker, waitForSync } from '../pos-helpers.js'
import { groundTruth, mapEveryPosItem, unitsTaken } from './ground-truth-helpers.js'
import { DAY_MS } from '../../../src/platform/zoned-time.js'

/**
 * Every vendor, end to end: a simulated week and a half synced through the API in two runs (the second
 * brings refunds and voids of the first run's sales, and lines added to reopened checks) with every POS
 * item and modifier mapped one to one, must leave each item's stock at minus the simulator's own ground
 * truth of what the bar sold, to 4 decimals.
 */

const NOON_MS = 12 * 3_600_000
const SEED = 23
const HISTORY_DAYS = 7
/** Where the simulated bar starts trading: after the items exist, so every sale takes stock. */
let historyStart = 0
/** The clock both the simulators and the sync worker read. */
let clockMs = 0
const clock = () => new Date(clockMs)

const simulators: RunningSimulator[] = []
/** Each vendor's simulator as of the clock: the bar's history runs from historyStart to the clock. */
const handlers = new Map<string, SimulatorHandler>()
let ctx: TestContext
let worker: BackgroundLoop

/** Moves the clock, and every simulator's history with it (never before historyStart). */
function setClock(at: number): void {
  clockMs = at
  const historyDays = Math.max(clockMs - historyStart, 1) / DAY_MS
  for (const posType of supportedPosTypes()) {
    handlers.set(posType, (findVendor(posType) as PosVendor).createSimulator({ seed: SEED, historyDays, now: clock }))
  }
}

before(async () => {
  const baseUrls: string[] = []
  for (const posType of supportedPosTypes()) {
    const simulator = await startSimulatorServer((req, res) => handlers.get(posType)?.(req, res))
    simulators.push(simulator)
    baseUrls.push(`${posType}=${simulator.url}`)
  }
  ctx = await createPosTestContext({ env: { BARSTOCK_POS_BASE_URLS: baseUrls.join(',') } })
  worker = await startWorker(ctx, clock)
})
after(async () => {
  await worker.stop()
  await ctx.close()
  await Promise.all(simulators.map((simulator) => simulator.close()))
})

/** Creates the connection at the first clock, reads the menu, and maps each POS item to an item of its own (1 each). */
async function connectAndMapEverything(caller: Caller, vendor: PosVendor): Promise<Map<string, string>> {
  // The bar has sold nothing yet: the connection and the first run see the menu only.
  setClock(historyStart)
  const created = await ctx.request('POST', '/v1/pos/connections', {
    key: caller.key,
    body: { pos_type: vendor.posType, name: `${vendor.posType} bar`, credentials: vendor.exampleCredentials, sync_frequency: 'daily', initial_sync: 'incremental' },
  })
  assert.equal(created.statusCode, 201, created.body)
  const { id: connectionId, first_sync_id: firstSyncId } = json(created).data as { id: string; first_sync_id: string }
  assert.equal((await waitForSync(ctx, caller, firstSyncId)).status, 'completed')
  return Object.assign(await mapEveryPosItem(ctx, caller, connectionId, vendor.posType), { connectionId })
}

for (const posType of supportedPosTypes()) {
  describe(`${posType}: depletion equals the simulated bar's ground truth`, () => {
    test("two runs, the second bringing the first one's refunds, voids after close and reopened checks", async () => {
      const vendor = findVendor(posType) as PosVendor
      const caller = await ctx.newCaller({ environment: 'production' })
      // The items are created within ten minutes; the history starts at the next noon UTC after that, so
      // every run ends at noon, when the simulated bar (16:00 to 02:00 UTC) is closed and no vendor is
      // still holding back the last minutes of trade (SpotOn exports nothing from its last 5 minutes).
      historyStart = Math.ceil((Date.now() + 10 * 60_000 - NOON_MS) / DAY_MS) * DAY_MS + NOON_MS
      const items = await connectAndMapEverything(caller, vendor)
      const connectionId = (items as unknown as { connectionId: string }).connectionId

      setClock(historyStart + (HISTORY_DAYS - 2) * DAY_MS)
      assert.equal((await runSync(ctx, caller, connectionId, 'incremental')).status, 'completed')
      setClock(historyStart + HISTORY_DAYS * DAY_MS)
      assert.equal((await runSync(ctx, caller, connectionId, 'incremental')).status, 'completed')

      assert.deepEqual(await unitsTaken(ctx, caller, items), groundTruth(SEED, new Date(historyStart), clock(), HISTORY_DAYS))
    })
  })
}
