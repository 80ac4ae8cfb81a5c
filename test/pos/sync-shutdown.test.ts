import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { test } from 'node:test'
import { startSimulatorServer } from '../../src/pos/simulation/simulator-server.js'
import { squareVendor } from '../../src/pos/vendors/square/index.js'
import { logLines, runCli, type ServerProcess, startServerProcess, waitForOutput } from '../helpers/server-process.js'
import { migratedDataDir } from '../helpers/pglite-image.js'
import { SQUARE_CREDENTIALS } from './pos-helpers.js'

const dir = await migratedDataDir()

/**
 * A Square simulator that holds every sales search while `holding` is on (never answering it) and
 * tells the test when the first one arrives: a run that is surely in the middle of its work.
 */
async function startHoldingSquare() {
  const simulator = squareVendor.createSimulator({ seed: 11 })
  const state = { holding: true }
  let salesSearchArrived: () => void = () => undefined
  const arrived = new Promise<void>((resolve) => (salesSearchArrived = resolve))
  const server = await startSimulatorServer((req: IncomingMessage, res: ServerResponse) => {
    if (state.holding && req.url?.startsWith('/v2/orders/search')) return salesSearchArrived()
    simulator(req, res)
  })
  return { url: server.url, state, arrived, close: () => server.close() }
}

test('a sync stopped by SIGTERM goes back in the queue and completes after the restart, under the same sync_id, not as connection_failed', async (t) => {
  const square = await startHoldingSquare()
  t.after(() => square.close())
  const env = {
    BARSTOCK_DATA_DIR: dir,
    BARSTOCK_SECRET_KEY: randomBytes(32).toString('hex'),
    BARSTOCK_POS_BASE_URLS: `square=${square.url}`,
    BARSTOCK_RATE_LIMIT_PRODUCTION: '100000',
  }
  const key = JSON.parse((await runCli(['keys', 'create', '--name', 'pos', '--permissions', '*', '--json'], env)).stdout).key as string
  const call = async (server: ServerProcess, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    })
    return { status: response.status, body: (await response.json()) as { data: Record<string, unknown>; error?: { details: { sync_id: string } } } }
  }
  const started: ServerProcess[] = []
  t.after(() => started.forEach((server) => server.child.kill('SIGKILL')))

  const first = await startServerProcess(env)
  started.push(first)
  const created = await call(first, 'POST', '/v1/pos/connections', {
    pos_type: 'square',
    name: 'Front bar',
    credentials: SQUARE_CREDENTIALS,
    sync_frequency: 'daily',
    initial_sync: 'incremental',
  })
  assert.equal(created.status, 201, JSON.stringify(created.body))
  const connectionId = created.body.data.id as string
  // The create asked for a first run: the worker takes it at once.
  const syncId = created.body.data.first_sync_id as string
  await square.arrived

  first.child.kill('SIGTERM')
  assert.equal(await first.exited, 0, first.output())
  const stopped = logLines(first.output())
  assert.ok(
    stopped.some((line) => line.sync_id === syncId && line.msg === 'POS sync run interrupted by the shutdown; it runs again at the next start'),
    first.output(),
  )
  assert.ok(!stopped.some((line) => line.msg === 'POS sync run failed'), first.output())

  square.state.holding = false
  const second = await startServerProcess(env)
  started.push(second)
  const completedLine = (output: string) => logLines(output).find((line) => line.sync_id === syncId && line.msg === 'POS sync run completed')
  const output = await waitForOutput(second, (text) => completedLine(text) !== undefined, 120_000)
  const logged = completedLine(output)!
  assert.equal(logged.connection_id, connectionId)
  assert.equal(typeof logged.duration_ms, 'number')
  assert.ok((logged.sales_synced as number) > 0 && (logged.products_synced as number) > 0, JSON.stringify(logged))

  const run = (await call(second, 'GET', `/v1/pos/syncs/${syncId}`)).body.data
  assert.equal(run.status, 'completed')
  assert.equal(run.error, null)
  assert.equal(run.interruptions, 1)
  assert.deepEqual(run.results, { sales_synced: logged.sales_synced, products_synced: logged.products_synced, variance_detected: logged.variance_detected })
  const stats = (await call(second, 'GET', `/v1/pos/connections/${connectionId}`)).body.data.sync_stats as { failed_syncs: number }
  assert.equal(stats.failed_syncs, 0)
  second.child.kill('SIGTERM')
  assert.equal(await second.exited, 0)
})
