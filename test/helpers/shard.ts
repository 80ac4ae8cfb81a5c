import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { killChildren } from './server-process.js'
import { beginTestFile, keepSharedPgliteBetweenFiles } from './shared-pglite.js'

/**
 * `npm test` runs the test files in a few processes (shards) instead of one process each: a test process
 * costs about 2 s of CPU before its first test (loading the app's modules, compiling its schemas), and the
 * suite has over 80 files. Each file still runs in a suite of its own, so its top-level hooks and its
 * failures stay its own; its database is the process's one, emptied when the file opens it
 * (shared-pglite.ts), or a scratch database of its own on DATABASE_URL.
 */

/** A file's time limit: the slowest take about 40 s alone, several times that on a saturated machine. */
const FILE_TIMEOUT_MS = 600_000

const TEST_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * Seconds each slow file took in a whole CI run on this 2-core machine, on PGlite and on PostgreSQL (files
 * not named take about 1 s; a file that skips on PGlite, 0). They only spread the slow files over the
 * shards so that the shards end together (two run at a time, so the suite's time is about half the
 * shards' sum when they are even): a stale figure costs balance, never a test. Taken from a run's TAP
 * output (each file's `duration_ms`; session 20, a fresh-clone CI run at b918ee9, whose machine ran the
 * CLI's process tests about twice as slowly as session 16's).
 */
const SLOW_FILE_SECONDS: Record<string, [pglite: number, postgres: number]> = {
  'console/console': [53, 55],
  'cli/server-process': [60, 0],
  'pos/sync': [34, 25],
  'cli/cli-output': [55, 0],
  'analytics/report-cache': [28, 23],
  'platform/read-replica': [0, 50],
  'pos/sales-cli': [49, 0],
  'analytics/forecast': [21, 24],
  'platform/database-partition': [0, 45],
  'pos/vendors/ground-truth': [22, 19],
  'platform/fuzz': [26, 14],
  'platform/partitions': [21, 18],
  'pos/sync-resume': [21, 16],
  'platform/child-processes': [16, 16],
  'pos/sync-failures': [18, 10],
  'analytics/variance': [15, 12],
  'pos/sync-shutdown': [26, 0],
  'clients/schema-freshness': [13, 12],
  'pos/vendors/toast': [13, 11],
  'cli/backup': [24, 0],
  'analytics/costing': [18, 5],
  'inventory/export': [15, 7],
  'platform/logging': [22, 0],
  'platform/pgbouncer': [0, 22],
  'webhooks/worker-command': [10, 11],
  'analytics/categories': [16, 5],
  'platform/openapi': [9, 11],
  'webhooks/crash': [19, 0],
  'webhooks/retries': [6, 13],
  'pos/auto-map': [9, 8],
  'analytics/staff': [7, 9],
  'pos/sync-sale-time': [7, 9],
  'platform/rate-limit': [3, 13],
  'platform/metrics': [7, 9],
  'pos/back-dated-cancellations': [8, 7],
  'analytics/forecast-holidays': [9, 6],
  'webhooks/dispatcher': [7, 7],
  'pos/push': [4, 9],
  'ordering/purchase-order-dispatch': [3, 9],
  'pos/archived-months': [7, 5],
  'pos/vendors/simphony': [7, 5],
  'pos/bulk-write-turns': [0, 12],
  'pos/vendors/lightspeed': [6, 6],
  'analytics/variance-costs': [6, 6],
  'analytics/forecast-series': [8, 3],
  'pos/vendors/revel': [6, 5],
  'ordering/orders': [5, 5],
  'clients/webhook-signature': [4, 6],
  'pos/recipe-mappings': [4, 6],
  'pos/corrections': [3, 7],
  'clients/pos-client': [6, 4],
  'analytics/variance-operations': [2, 7],
  'pos/mappings-and-sales': [5, 4],
  'pos/mapping-usage': [3, 5],
  'pos/vendors/clover': [4, 5],
  'ordering/receiving': [4, 4],
  'webhooks/webhooks-api': [2, 6],
  'inventory/weights': [3, 5],
  'inventory/ledger': [3, 4],
  'analytics/performance': [3, 4],
  'inventory/transfer-race': [0, 7],
  'ordering/recommendations': [3, 4],
  'platform/database-loss': [0, 7],
  'platform/fifo-gate': [7, 0],
  'pos/vendors/square': [3, 4],
  'analytics/forecast-freshness': [2, 4],
  'pos/vendors/spoton': [3, 3],
  'pos/back-dated-corrections': [3, 3],
  'pos/connections': [3, 4],
  'webhooks/delivery': [3, 4],
  'ordering/receiving-cost': [2, 4],
  'clients/ordering-client': [4, 2],
  'clients/recipes-analytics-client': [3, 3],
  'inventory/list': [1, 5],
  'recipes/recipes': [2, 3],
  'pos/venue-depletion': [2, 4],
  'platform/bad-input': [1, 4],
  'analytics/forecast-transfers': [2, 3],
  'platform/boundaries': [3, 2],
  'analytics/variance-causes-report': [2, 3],
  'pos/connection-failures': [1, 4],
  'inventory/count-batch': [3, 3],
  'inventory/items': [2, 3],
  'analytics/staff-windows': [2, 3],
  'settings/settings': [1, 4],
  'inventory/transfers': [2, 3],
  'platform/number-limits': [1, 3],
  'webhooks/target-guard': [1, 3],
  'analytics/variance-scope': [1, 3],
  'clients/inventory-client': [1, 3],
  'platform/shutdown': [1, 3],
  'locations/locations': [1, 3],
  'ordering/distributors': [1, 3],
  'platform/idempotency': [1, 3],
  'platform/auth': [1, 3],
  'inventory/count-race': [0, 3],
}

/**
 * Files whose every database is an embedded one whatever the run's DATABASE_URL: their server and CLI
 * processes get `childEnv` (which drops DATABASE_URL) and a PGlite data dir, and what runs in the test
 * process opens a data dir of its own. On a DATABASE_URL run they would repeat the embedded run to the
 * byte (141 s of shard time in a quiet CI run), so that run skips them and says so.
 */
const EMBEDDED_ONLY_FILES = new Set(['cli/backup', 'cli/cli-output', 'cli/server-process', 'platform/logging', 'pos/sales-cli', 'pos/sync-shutdown', 'webhooks/crash'])
const EMBEDDED_ONLY_SKIP = 'its processes and data dirs are embedded PGlite whatever DATABASE_URL says: the run without DATABASE_URL covers it'

/** What a test file calls to open the run's own database (context.ts, pos-helpers.ts), or how it reads DATABASE_URL. */
const OPENS_RUN_DATABASE = /\b(createTestContext|createPosTestContext|openTestDatabase)\(|process\.env\.DATABASE_URL/

function skippedOnThisRun(file: string): boolean {
  return Boolean(process.env.DATABASE_URL) && EMBEDDED_ONLY_FILES.has(file.replace(/\.test\.js$/, ''))
}

function expectedSeconds(file: string): number {
  if (skippedOnThisRun(file)) return 0
  const seconds = SLOW_FILE_SECONDS[file.replace(/\.test\.js$/, '')]
  if (!seconds) return 1
  return process.env.DATABASE_URL ? seconds[1] : seconds[0]
}

/** Every compiled test file, in a stable order. */
function testFiles(): string[] {
  return (readdirSync(TEST_ROOT, { recursive: true }) as string[]).filter((file) => file.endsWith('.test.js')).sort()
}

/** The files of each of `count` shards: slowest first, each to the shard expected to end soonest. */
function shardFiles(count: number): string[][] {
  const shards = Array.from({ length: count }, () => ({ files: [] as string[], seconds: 0 }))
  const bySlowest = testFiles().sort((a, b) => expectedSeconds(b) - expectedSeconds(a) || a.localeCompare(b))
  for (const file of bySlowest) {
    const soonest = shards.reduce((best, shard) => (shard.seconds < best.seconds ? shard : best))
    soonest.files.push(file)
    soonest.seconds += expectedSeconds(file)
  }
  return shards.map((shard) => shard.files.sort())
}

/** Skips a file of EMBEDDED_ONLY_FILES, unless it has come to open the run's database: then it fails, so the list is fixed. */
function skipEmbeddedOnly(path: string): void {
  if (!OPENS_RUN_DATABASE.test(readFileSync(path, 'utf8'))) {
    describe(relative(TEST_ROOT, path), { skip: EMBEDDED_ONLY_SKIP }, () => {})
    return
  }
  test(`${relative(TEST_ROOT, path)} opens the run's database: take it off EMBEDDED_ONLY_FILES (test/helpers/shard.ts)`, () => {
    throw new Error('a file on EMBEDDED_ONLY_FILES opens the database of the run, which then skips it')
  })
}

/** Runs shard `index` (1-based) of `count`. A file runs alone with `node --test dist/test/<path>.test.js`. */
export async function runShard(index: number, count: number): Promise<void> {
  after(keepSharedPgliteBetweenFiles())
  for (const file of shardFiles(count)[index - 1]!) {
    const path = join(TEST_ROOT, file)
    if (skippedOnThisRun(file)) {
      skipEmbeddedOnly(path)
      continue
    }
    // The bound of a whole file, which each of its tests inherits unless it sets its own.
    describe(relative(TEST_ROOT, path), { timeout: FILE_TIMEOUT_MS }, async () => {
      before(beginTestFile)
      after(killChildren)
      await import(pathToFileURL(path).href)
    })
  }
}
