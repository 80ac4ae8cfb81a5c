import { randomBytes } from 'node:crypto'
import { cpus, totalmem } from 'node:os'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { type DatabaseHandle, openPglite, openPostgres } from '../src/platform/db/connect.js'
import { migrate } from '../src/platform/db/migrate.js'
import { newId } from '../src/platform/ids.js'
import type { PosSaleLine, SalesWindow } from '../src/pos/adapter.js'
import { insertSaleLines } from '../src/pos/sales.repository.js'
import { PosGateway } from '../src/pos/pos-gateway.js'
import { startSimulatorServer } from '../src/pos/simulation/simulator-server.js'
import { executeSyncRun } from '../src/pos/sync-runner.js'
import { claimNextRun, insertRunUnlessRunning } from '../src/pos/sync-runs.repository.js'
import { findVendor } from '../src/pos/vendor-registry.js'

/**
 * POS sync ingest, end to end: a vendor simulator on loopback serves the simulated bar's sales; one sync
 * run fetches them through the vendor adapter, stages them and commits the run. Reports lines a second
 * for the whole run, and for fetching alone (simulator + adapter, no database) to show where time goes.
 *
 *   node dist/bench/pos-ingest.js [--lines 200000] [--vendor square] [--db pglite|postgres]
 *
 * --db postgres uses DATABASE_URL and a scratch database it creates and drops. Loopback only.
 */

/** Lines the simulated bar sells a day on average (10,321 lines over 30 days, measured with seed 1). */
const LINES_PER_DAY = 344
const DAY_MS = 86_400_000
/** The sync runner's staging batch. */
const STAGE_BATCH = 5_000

const { values } = parseArgs({
  options: { lines: { type: 'string', default: '200000' }, vendor: { type: 'string', default: 'square' }, db: { type: 'string', default: 'pglite' } },
})

async function openScratchDatabase(kind: string): Promise<DatabaseHandle> {
  if (kind === 'pglite') return openPglite(undefined)
  const url = process.env.DATABASE_URL
  if (!url) throw new Error('--db postgres needs DATABASE_URL')
  const name = `barstock_bench_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const target = new URL(url)
  target.pathname = `/${name}`
  const handle = await openPostgres(target.toString(), 10)
  return {
    ...handle,
    async close() {
      await handle.close()
      const dropper = new pg.Client({ connectionString: url })
      await dropper.connect()
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await dropper.end()
    },
  }
}

async function main() {
  const vendor = findVendor(values.vendor)
  if (!vendor) throw new Error(`unknown vendor ${values.vendor}`)
  const days = Math.ceil(Number(values.lines) / LINES_PER_DAY)
  const now = new Date()
  const window: SalesWindow = { start: new Date(now.getTime() - days * DAY_MS), end: now }
  const simulator = await startSimulatorServer(vendor.createSimulator({ seed: 1, historyDays: days + 1, now: () => now }))
  const gateway = new PosGateway({ secretKey: randomBytes(32), dataDir: '/nonexistent', posBaseUrls: { [vendor.posType]: simulator.url } })

  const fetchStart = performance.now()
  const fetchedLines: PosSaleLine[] = []
  const adapter = vendor.createAdapter({ credentials: vendor.exampleCredentials, baseUrl: simulator.url })
  for await (const page of adapter.listSales(window)) fetchedLines.push(...page)
  const fetched = fetchedLines.length
  const fetchSeconds = (performance.now() - fetchStart) / 1000

  const database = await openScratchDatabase(values.db)
  try {
    await migrate(database)
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
    const run = await claimNextRun(db)
    if (!run) throw new Error('no run to claim')
    const start = performance.now()
    const failure = await executeSyncRun(db, gateway, run, window)
    const seconds = (performance.now() - start) / 1000
    if (failure) throw failure
    // The database's share alone: the same lines stored again under another connection, in the run's batches.
    const storeConnection = newId('pos')
    await db.insertInto('pos_connections').values({ ...(await db.selectFrom('pos_connections').selectAll().where('id', '=', connectionId).executeTakeFirstOrThrow()), id: storeConnection }).execute()
    const storeStart = performance.now()
    const source = { tenant: { accountId: 'acct_default', environment: 'production' as const }, connectionId: storeConnection, sourceId: 'bench' }
    for (let offset = 0; offset < fetchedLines.length; offset += STAGE_BATCH) {
      const rows = fetchedLines.slice(offset, offset + STAGE_BATCH).map((line) => ({
        lineId: line.lineId, locationId: 'main_bar', posItemId: line.posItemId, name: line.name, quantity: line.quantity, unitPrice: line.unitPrice,
        soldAt: line.soldAt, staffId: line.staffId, staffName: line.staffName, checkId: line.checkId, tip: line.tip, depleted: false,
      }))
      await insertSaleLines(db, source, rows)
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

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
