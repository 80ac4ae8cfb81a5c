import { randomBytes } from 'node:crypto'
import { cpus, totalmem } from 'node:os'
import { parseArgs } from 'node:util'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import { type DatabaseHandle, openPglite } from '../src/platform/db/connect.js'
import { migrate } from '../src/platform/db/migrate.js'
import { newId } from '../src/platform/ids.js'
import type { PosSaleLine, SalesWindow } from '../src/pos/vendors/adapter.js'
import { stageSaleLines } from '../src/pos/sales/sales.repository.js'
import { PosGateway } from '../src/pos/connections/pos-gateway.js'
import { type RunningSimulator, startSimulatorServer } from '../src/pos/simulation/simulator-server.js'
import { executeSyncRun, RUN_LEASE_MS } from '../src/pos/sync/sync-runner.js'
import { claimNextRun, insertRunUnlessRunning } from '../src/pos/sync/sync-runs.repository.js'
import { findVendor } from '../src/pos/vendors/vendor-registry.js'
import { openScratchPostgres } from '../test/helpers/context.js'
import { DAY_MS } from '../src/platform/zoned-time.js'

/**
 * POS sync ingest, end to end: a vendor simulator on loopback serves the simulated bar's sales; one sync
 * run fetches them through the vendor adapter, stages them and commits the run. Reports lines a second
 * for the whole run, and for fetching alone (simulator + adapter, no database) and storing alone to
 * show where time goes. The window is `--days` long (a full sync's 30 by default) and the simulated bar
 * busier (`volume`) to reach `--lines`. The simulator serves from its own thread, as a vendor's API runs
 * on the vendor's machines (`--simulator inline` runs it on the sync's thread instead).
 *
 *   node dist/bench/pos-ingest.js [--lines 200000] [--vendor square] [--db pglite|postgres] [--days 30] [--simulator thread|inline]
 *
 * --db postgres uses DATABASE_URL and a scratch database it creates and drops. Loopback only.
 */

/** Lines the simulated bar sells a day on average at volume 1 (10,321 lines over 30 days, measured with seed 1). */
const LINES_PER_DAY = 344
/** The sync runner's staging batch. */
const STAGE_BATCH = 5_000
/** The sync run reads seed 1's bar, the fetch-only pass seed 2's: each starts with cold simulator caches. */
const SYNC_SEED = 1
const FETCH_SEED = 2

const { values } = parseArgs({
  options: {
    lines: { type: 'string', default: '200000' },
    vendor: { type: 'string', default: 'square' },
    db: { type: 'string', default: 'pglite' },
    days: { type: 'string', default: '30' },
    simulator: { type: 'string', default: 'thread' },
  },
})

/** What a simulator serves; a plain object, so it can be handed to a simulator thread. */
interface SimulatorSpec {
  posType: string
  seed: number
  historyDays: number
  nowMs: number
  volume: number
}

async function serveSimulator(spec: SimulatorSpec): Promise<RunningSimulator> {
  const vendor = findVendor(spec.posType)
  if (!vendor) throw new Error(`unknown vendor ${spec.posType}`)
  const now = new Date(spec.nowMs)
  return startSimulatorServer(vendor.createSimulator({ seed: spec.seed, historyDays: spec.historyDays, now: () => now, volume: spec.volume }))
}

/** A simulator on a thread of its own, which answers with its URL once it listens. */
async function startSimulator(spec: SimulatorSpec): Promise<{ url: string; close(): Promise<void> }> {
  if (values.simulator === 'inline') return serveSimulator(spec)
  const worker = new Worker(new URL(import.meta.url), { workerData: spec })
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('message', resolve)
    worker.once('error', reject)
  })
  return { url, close: async () => void (await worker.terminate()) }
}

async function openScratchDatabase(kind: string): Promise<DatabaseHandle> {
  if (kind === 'pglite') {
    const handle = await openPglite(undefined)
    await migrate(handle)
    return handle
  }
  const url = process.env.DATABASE_URL
  if (!url) throw new Error('--db postgres needs DATABASE_URL')
  return openScratchPostgres(url, 'barstock_bench')
}

async function main() {
  const vendor = findVendor(values.vendor)
  if (!vendor) throw new Error(`unknown vendor ${values.vendor}`)
  const days = Number(values.days)
  const volume = Number(values.lines) / (LINES_PER_DAY * days)
  const now = new Date()
  const window: SalesWindow = { start: new Date(now.getTime() - days * DAY_MS), end: now }
  const simulatorOf = (seed: number) => startSimulator({ posType: vendor.posType, seed, historyDays: days + 1, nowMs: now.getTime(), volume })
  const simulator = await simulatorOf(SYNC_SEED)
  const gateway = new PosGateway({
    secretKey: randomBytes(32),
    dataDir: '/nonexistent',
    posBaseUrls: { [vendor.posType]: simulator.url },
    posRetryWaitMs: 5_000,
    posRequestTimeoutMs: 10_000,
    posRunBudgetMs: 1_800_000,
    posOAuthApps: {},
    webhookAllowPrivate: false,
  })
  const database = await openScratchDatabase(values.db)
  try {
    const { db } = database
    const connectionId = newId('pos')
    await db
      .insertInto('pos_connections')
      .values({
        id: connectionId,
        account_id: 'acct_default',
        environment: 'production',
        pos_type: vendor.posType,
        name: 'bench',
        location_id: 'main_bar',
        status: 'active',
        sync_frequency: 'daily',
        credentials: gateway.seal(connectionId, vendor.exampleCredentials),
        next_sync_at: new Date(now.getTime() + DAY_MS),
      })
      .execute()
    await db.transaction().execute((trx) =>
      insertRunUnlessRunning(trx, {
        id: newId('sync'),
        accountId: 'acct_default',
        environment: 'production',
        connectionId,
        syncType: 'sales_only',
        triggeredBy: 'bench',
        estimatedCompletion: now,
      }),
    )
    const run = await claimNextRun(db, RUN_LEASE_MS)
    if (!run) throw new Error('no run to claim')
    const start = performance.now()
    const outcome = await executeSyncRun(db, gateway, run, { window })
    const seconds = (performance.now() - start) / 1000
    if (outcome.status === 'failed') throw outcome.error

    const fetchSimulator = await simulatorOf(FETCH_SEED)
    const fetchStart = performance.now()
    const fetchedLines: PosSaleLine[] = []
    const adapter = vendor.createAdapter({ credentials: vendor.exampleCredentials, baseUrl: fetchSimulator.url })
    for await (const page of adapter.listSales(window)) for (const line of page) fetchedLines.push(line)
    const fetched = fetchedLines.length
    const fetchSeconds = (performance.now() - fetchStart) / 1000
    await fetchSimulator.close()

    // The database's share alone: the same lines stored again under another connection, in the run's batches.
    const storeConnection = newId('pos')
    await db
      .insertInto('pos_connections')
      .values({ ...(await db.selectFrom('pos_connections').selectAll().where('id', '=', connectionId).executeTakeFirstOrThrow()), id: storeConnection })
      .execute()
    const storeStart = performance.now()
    const source = { tenant: { accountId: 'acct_default', environment: 'production' as const }, connectionId: storeConnection, sourceId: 'bench' }
    for (let offset = 0; offset < fetchedLines.length; offset += STAGE_BATCH) {
      const rows = fetchedLines.slice(offset, offset + STAGE_BATCH).map((line) => ({
        lineId: line.lineId,
        locationId: 'main_bar',
        posItemId: line.posItemId,
        name: line.name,
        quantity: line.quantity,
        unitPrice: line.unitPrice,
        soldAt: line.soldAt,
        staffId: line.staffId,
        staffName: line.staffName,
        checkId: line.checkId,
        tip: line.tip,
        depleted: false,
        parentLineId: line.parentLineId ?? null,
      }))
      await stageSaleLines(db, source, rows)
    }
    const storeSeconds = (performance.now() - storeStart) / 1000
    const done = await db.selectFrom('pos_sync_runs').select(['status', 'sales_synced']).where('id', '=', run.id).executeTakeFirstOrThrow()
    const lines = done.sales_synced ?? 0
    console.log(
      JSON.stringify({
        vendor: vendor.posType,
        database: database.kind,
        status: done.status,
        sale_lines: lines,
        days,
        volume: Number(volume.toFixed(2)),
        simulator: values.simulator,
        sync_seconds: Number(seconds.toFixed(2)),
        lines_per_second: Math.round(lines / seconds),
        fetch_only_seconds: Number(fetchSeconds.toFixed(2)),
        fetch_only_lines_per_second: Math.round(fetched / fetchSeconds),
        store_only_seconds: Number(storeSeconds.toFixed(2)),
        store_only_lines_per_second: Math.round(fetched / storeSeconds),
        machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memory_gb: Math.round(totalmem() / 2 ** 30), node: process.version },
      }),
    )
  } finally {
    await database.close()
    await simulator.close()
  }
}

if (isMainThread) {
  main().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
} else {
  // The simulator thread: serve until the main thread terminates it.
  void serveSimulator(workerData as SimulatorSpec).then((simulator) => parentPort?.postMessage(simulator.url))
}
