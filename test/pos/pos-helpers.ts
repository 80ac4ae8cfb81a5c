import { randomBytes } from 'node:crypto'
import { after, before } from 'node:test'
import type { BackgroundLoop, Wait } from '../../src/platform/background.js'
import type { PosType } from '../../src/pos/vendors/adapter.js'
import { PosGateway } from '../../src/pos/connections/pos-gateway.js'
import type { Config } from '../../src/platform/config.js'
import { type Caller, type ContextOptions, createTestContext, json, type TestContext } from '../helpers/context.js'
import { startPosSyncWorker } from '../../src/pos/sync/sync-worker.js'
import { startSimulatorServer } from '../../src/pos/simulation/simulator-server.js'
import { squareVendor } from '../../src/pos/vendors/square/index.js'

/** A test context whose POS credentials are sealed under a throwaway secret key; polling needs more than 100 requests a minute. */
export async function createPosTestContext(options: ContextOptions = {}): Promise<TestContext> {
  return createTestContext({
    ...options,
    env: { BARSTOCK_SECRET_KEY: randomBytes(32).toString('hex'), BARSTOCK_RATE_LIMIT_SANDBOX: '100000', BARSTOCK_RATE_LIMIT_PRODUCTION: '100000', ...options.env },
  })
}

export const SQUARE_CREDENTIALS = { access_token: 'EAAAlSimulatedBarAccessTokenForTheSandbox0000000000000000000000', location_id: 'L8SIMBAR0001' }

export async function createConnection(ctx: TestContext, caller: Caller, body: Record<string, unknown> = {}) {
  const response = await ctx.request('POST', '/v1/pos/connections', {
    key: caller.key,
    body: { pos_type: 'square', name: 'Front bar Square', credentials: SQUARE_CREDENTIALS, sync_frequency: 'hourly', ...body },
  })
  if (response.statusCode !== 201) throw new Error(`connection create failed: ${response.statusCode} ${response.body}`)
  return json(response).data as { id: string; first_sync_id: string | null; [key: string]: unknown }
}

/** A connection whose create asked for its first sync (`initial_sync`, incremental unless `body` says otherwise): first_sync_id names it. */
export async function createSyncedConnection(ctx: TestContext, caller: Caller, body: Record<string, unknown> = {}) {
  const connection = await createConnection(ctx, caller, { initial_sync: 'incremental', ...body })
  if (!connection.first_sync_id) throw new Error(`initial_sync queued no run: ${JSON.stringify(connection)}`)
  return { ...connection, first_sync_id: connection.first_sync_id }
}

/** A vendor simulator a test file serves: where it listens and how it stops. */
export interface ServedSimulator {
  url: string
  close(): Promise<void>
}

/** What usePosFixture made, filled in before the file's first test. */
export interface PosFixture<S> {
  ctx: TestContext
  /** Each vendor's simulator, as its starter made it. */
  simulators: S
}

/**
 * A test file's POS set-up, made before its tests and closed after them: one simulator per vendor
 * (started by `start`, each vendor's calls sent to its own by BARSTOCK_POS_BASE_URLS), a test context
 * with `env` added, and the real sync worker on `clock`, waiting out vendors' Retry-After by `wait`,
 * taking its vendors' adapters from `gateway` when given (a scripted vendor).
 */
export function usePosFixture<S extends Partial<Record<PosType, ServedSimulator>>>(
  start: { [K in keyof S]: () => Promise<S[K]> },
  options: { clock?: () => Date; wait?: Wait; env?: Record<string, string>; gateway?: (config: Config) => PosGateway } = {},
): PosFixture<S> {
  const fixture = { simulators: {} } as PosFixture<S>
  let worker: BackgroundLoop | undefined
  before(async () => {
    const baseUrls: string[] = []
    for (const posType of Object.keys(start) as (keyof S & string)[]) {
      const simulator = (await start[posType]()) as S[keyof S & string]
      fixture.simulators[posType] = simulator
      baseUrls.push(`${posType}=${(simulator as ServedSimulator).url}`)
    }
    fixture.ctx = await createPosTestContext({ env: { BARSTOCK_POS_BASE_URLS: baseUrls.join(','), ...options.env } })
    worker = await startWorker(fixture.ctx, options.clock, options.wait, options.gateway?.(fixture.ctx.config))
  })
  after(async () => {
    await worker?.stop()
    await fixture.ctx?.close()
    await Promise.all(Object.values<ServedSimulator | undefined>(fixture.simulators).flatMap((simulator) => (simulator ? [simulator.close()] : [])))
  })
  return fixture
}

/** Starts the real sync worker on the test database, on `clock`, `wait` and `gateway` when given. */
export async function startWorker(ctx: TestContext, clock?: () => Date, wait?: Wait, gateway?: PosGateway): Promise<BackgroundLoop> {
  const deps = { config: ctx.config, database: ctx.database, logger: ctx.app.log, clock, wait, metrics: ctx.metrics }
  return gateway ? startPosSyncWorker(deps, gateway) : startPosSyncWorker(deps)
}

/** Polls a sync run until it leaves processing (through any app that answers `ctx.request`). */
export async function waitForSync(ctx: Pick<TestContext, 'request'>, caller: Pick<Caller, 'key'>, syncId: string, timeoutMs = 240_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const run = json(await ctx.request('GET', `/v1/pos/syncs/${syncId}`, { key: caller.key })).data
    if (run.status !== 'processing') return run
    if (Date.now() > deadline) throw new Error(`sync ${syncId} still processing after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Runs the first sync a connection's creation queued, on a worker of its own (on `clock` when given): for tests that keep no worker running. */
export async function runFirstSync(ctx: TestContext, caller: Caller, connection: { first_sync_id: string }, clock?: () => Date) {
  const worker = await startWorker(ctx, clock)
  try {
    return await waitForSync(ctx, caller, connection.first_sync_id)
  } finally {
    await worker.stop()
  }
}

export async function runSync(ctx: TestContext, caller: Caller, connectionId: string, syncType = 'incremental') {
  const response = await ctx.request('POST', `/v1/pos/connections/${connectionId}/sync`, { key: caller.key, body: { sync_type: syncType } })
  if (response.statusCode !== 201) throw new Error(`sync trigger failed: ${response.statusCode} ${response.body}`)
  return waitForSync(ctx, caller, json(response).data.sync_id)
}

export type SwitchMode = 'ok' | 'drop_sales' | 'unauthorized' | 'rate_limit_sales'

/**
 * A real Square simulator behind a switch a test flips: `drop_sales` cuts the connection on sales
 * searches after the first few (a network failure mid-run), `unauthorized` answers Square's 401 to everything,
 * `rate_limit_sales` answers the next `rateLimitsLeft` sales searches 429 with `retryAfterSeconds`.
 */
export async function startSwitchableSquare(seed = 7, now?: () => Date) {
  const simulator = squareVendor.createSimulator({ seed, now })
  // salesPagesServed counts sales searches; `drop_sales` cuts those after the first salesPagesBeforeDrop.
  const state = { mode: 'ok' as SwitchMode, salesPagesBeforeDrop: 0, salesPagesServed: 0, rateLimitsLeft: 0, retryAfterSeconds: 1 }
  const server = await startSimulatorServer((req, res) => {
    if (state.mode === 'unauthorized') {
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ errors: [{ category: 'AUTHENTICATION_ERROR', code: 'UNAUTHORIZED', detail: 'This request could not be authorized.' }] }))
      return
    }
    if (req.url?.startsWith('/v2/orders/search') && state.mode === 'rate_limit_sales' && state.rateLimitsLeft > 0) {
      state.rateLimitsLeft--
      res
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': String(state.retryAfterSeconds) })
        .end(JSON.stringify({ errors: [{ category: 'RATE_LIMIT_ERROR', code: 'RATE_LIMITED', detail: 'Rate limited.' }] }))
      return
    }
    if (req.url?.startsWith('/v2/orders/search') && state.mode === 'drop_sales' && state.salesPagesServed++ >= state.salesPagesBeforeDrop) {
      req.socket.destroy()
      return
    }
    simulator(req, res)
  })
  return { url: server.url, state, close: () => server.close() }
}

/** The tenant's ledger rows, oldest first. */
export async function ledgerOf(ctx: TestContext, itemId: string) {
  return ctx.database.db.selectFrom('stock_movements').selectAll().where('item_id', '=', itemId).orderBy('sequence').execute()
}

export async function itemQuantity(ctx: TestContext, caller: Caller, itemId: string): Promise<number> {
  return json(await ctx.request('GET', `/v1/inventory/items/${itemId}`, { key: caller.key })).data.quantity
}
