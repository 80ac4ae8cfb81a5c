import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { BackgroundLoop } from '../../src/platform/background.js'
import { startSimulatorServer, type RunningSimulator } from '../../src/pos/simulation/simulator-server.js'
import { lightspeedVendor } from '../../src/pos/vendors/lightspeed/index.js'
import { json, type TestContext } from '../helpers/context.js'
import { createPosTestContext, runSync, startWorker, waitForSync } from './pos-helpers.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

/**
 * Lightspeed dates back-office cancellations to the original transaction: an incremental run reads the
 * last two days again (the vendor's incrementalRereadMs) so that such a correction, filed in a window
 * already read, is still seen. Other vendors keep the 10-minute overlap.
 */

let ctx: TestContext
let worker: BackgroundLoop
let simulator: RunningSimulator
const financialsPaths: string[] = []

before(async () => {
  const handler = lightspeedVendor.createSimulator({ seed: 3, historyDays: 10 })
  simulator = await startSimulatorServer((req, res) => {
    if (req.url?.includes('/financials/')) financialsPaths.push(req.url.split('?')[0] as string)
    handler(req, res)
  })
  ctx = await createPosTestContext({ env: { BARSTOCK_POS_BASE_URLS: `lightspeed=${simulator.url}` } })
  worker = await startWorker(ctx)
})
after(async () => {
  await worker.stop()
  await ctx.close()
  await simulator.close()
})

test('an incremental Lightspeed run reads from two days before its cursor', async () => {
  const caller = await ctx.newCaller({ environment: 'production' })
  const created = await ctx.request('POST', '/v1/pos/connections', {
    key: caller.key,
    body: { pos_type: 'lightspeed', name: 'K-Series bar', credentials: lightspeedVendor.exampleCredentials, initial_sync: 'incremental' },
  })
  assert.equal(created.statusCode, 201, created.body)
  const { id: connectionId, first_sync_id: firstSyncId } = json(created).data
  assert.equal((await waitForSync(ctx, caller, firstSyncId)).status, 'completed')
  const cursor = await ctx.database.db.selectFrom('pos_connections').select('sales_cursor').where('id', '=', connectionId).executeTakeFirstOrThrow()
  financialsPaths.length = 0
  assert.equal((await runSync(ctx, caller, connectionId, 'incremental')).status, 'completed')
  const from = decodeURIComponent(financialsPaths[0]?.split('/financials/')[1]?.split('/')[0] ?? '')
  assert.equal(from, new Date(cursor.sales_cursor!.getTime() - 2 * DAY_MS).toISOString())
})
