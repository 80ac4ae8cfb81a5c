import assert from 'node:assert/strict'
import Big from 'big.js'
import { test } from 'node:test'
import type { SimulatorHandler } from '../../src/pos/vendors/adapter.js'
import { checksClosedBetween, menuEntry, type SimCheck } from '../../src/pos/simulation/bar-data.js'
import { startSimulatorServer } from '../../src/pos/simulation/simulator-server.js'
import { lightspeedVendor } from '../../src/pos/vendors/lightspeed/index.js'
import { createLightspeedSimulator, DEFAULT_LOCATION_SETUP } from '../../src/pos/vendors/lightspeed/lightspeed.simulator.js'
import { type Caller, json } from '../helpers/context.js'
import { groundTruth, mapEveryPosItem, unitsTaken } from './vendors/ground-truth-helpers.js'
import { runSync, usePosFixture, waitForSync } from './pos-helpers.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

/**
 * K-Series dates a back-office cancellation to the original sale and has no listing by the time it was
 * filed (financials v1 and v2 select by close time), so a run finds it only by reading that day again.
 * A cancellation filed four days after its sale is missed with Lightspeed's default re-read of 48 hours,
 * and taken back on a connection whose sales_reread_hours reaches it.
 */

const HOUR_MS = 3_600_000
const NOON_MS = 12 * HOUR_MS
const SEED = 41
const FILED_AFTER_MS = 4 * DAY_MS

let historyStart = 0
let clockMs = 0
const clock = () => new Date(clockMs)
const cancellations = new Map<string, Date>()
let handler: SimulatorHandler

const historyDays = () => Math.max(clockMs - historyStart, 1) / DAY_MS

function setClock(at: number): void {
  clockMs = at
  handler = createLightspeedSimulator({ seed: SEED, historyDays: historyDays(), now: clock }, { ...DEFAULT_LOCATION_SETUP, backOfficeCancellations: cancellations })
}

const pos = usePosFixture({ lightspeed: () => startSimulatorServer((req, res) => handler(req, res)) }, { clock })

async function connect(extra: Record<string, unknown>): Promise<{ id: string; caller: Caller; items: Map<string, string> }> {
  const caller = await pos.ctx.newCaller({ environment: 'production' })
  const created = await pos.ctx.request('POST', '/v1/pos/connections', {
    key: caller.key,
    body: { pos_type: 'lightspeed', name: 'K-Series bar', credentials: lightspeedVendor.exampleCredentials, sync_frequency: 'daily', initial_sync: 'incremental', ...extra },
  })
  assert.equal(created.statusCode, 201, created.body)
  const connection = json(created).data as { id: string; first_sync_id: string; sales_reread_hours: number | null }
  assert.equal(connection.sales_reread_hours, extra.sales_reread_hours ?? null)
  assert.equal((await waitForSync(pos.ctx, caller, connection.first_sync_id)).status, 'completed')
  return { id: connection.id, caller, items: await mapEveryPosItem(pos.ctx, caller, connection.id, 'lightspeed') }
}

/** A check of the first night with nothing refunded, voided or reopened: its cancellation takes back exactly its lines. */
function plainCheckOfFirstNight(): SimCheck {
  const checks = checksClosedBetween(SEED, new Date(historyStart), new Date(historyStart + DAY_MS), { now: new Date(historyStart + 10 * DAY_MS), historyDays: 10 })
  const check = checks.find((candidate) => !candidate.reclosedAt && candidate.lines.every((line) => !line.voided && !line.refunded && !line.voidedAfterCloseAt))
  assert.ok(check, 'the first night has a plain check')
  return check
}

/** Units per POS name minus the check's lines and modifiers, to 4 decimals (zeros left out). */
function withoutCheck(units: Map<string, string>, check: SimCheck): Map<string, string> {
  const result = new Map([...units].map(([name, value]) => [name, new Big(value)]))
  for (const line of check.lines) {
    for (const { itemKey, quantity } of [line, ...line.modifiers]) {
      const name = menuEntry(itemKey).name
      result.set(name, (result.get(name) ?? new Big(0)).minus(quantity))
    }
  }
  return new Map([...result].map(([name, value]) => [name, value.toFixed(4)] as const).filter(([, value]) => value !== '0.0000'))
}

test('a cancellation filed four days after its sale is taken back only where sales_reread_hours reaches its day', async () => {
  historyStart = Math.ceil((Date.now() + 10 * 60_000 - NOON_MS) / DAY_MS) * DAY_MS + NOON_MS
  const cancelled = plainCheckOfFirstNight()
  cancellations.set(cancelled.checkId, new Date(cancelled.closedAt.getTime() + FILED_AFTER_MS))
  setClock(historyStart)
  const byDefault = await connect({})
  // A refresh token of its own: K-Series refresh tokens are single-use.
  const reaching = await connect({ sales_reread_hours: 120, credentials: { ...lightspeedVendor.exampleCredentials, refresh_token: 'second-bar-refresh-token-0002' } })

  // A run just before the cancellation is filed, and one just after it.
  for (const at of [FILED_AFTER_MS - HOUR_MS, FILED_AFTER_MS + HOUR_MS]) {
    setClock(cancelled.closedAt.getTime() + at)
    for (const { id, caller } of [byDefault, reaching]) assert.equal((await runSync(pos.ctx, caller, id, 'incremental')).status, 'completed')
  }

  const truth = groundTruth(SEED, new Date(historyStart), clock(), historyDays())
  assert.deepEqual(await unitsTaken(pos.ctx, byDefault.caller, byDefault.items), truth, 'the default 48 hours miss the cancellation')
  assert.deepEqual(await unitsTaken(pos.ctx, reaching.caller, reaching.items), withoutCheck(truth, cancelled), '120 hours take it back')
})
