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
 * output (each file's `duration_ms`; session 16, at 046df36 + docs).
 */
const SLOW_FILE_SECONDS: Record<string, [pglite: number, postgres: number]> = {
  'cli/cli-output': [37, 45],
  'cli/server-process': [29, 43],
  'pos/sales-cli': [23, 40],
  'platform/database-partition': [0, 39],
  'pos/sync': [34, 12],
  'platform/read-replica': [0, 32],
  'console/console': [29, 30],
  'analytics/performance': [22, 4],
  'analytics/forecast': [20, 19],
  'pos/sync-resume': [19, 16],
  'cli/backup': [17, 14],
  'pos/vendors/ground-truth': [17, 13],
  'analytics/variance': [15, 10],
  'platform/logging': [9, 15],
  'pos/sync-shutdown': [14, 15],
  'analytics/categories': [14, 3],
  'platform/pgbouncer': [0, 14],
  'webhooks/crash': [14, 11],
  'platform/partitions': [13, 12],
  'platform/rate-limit': [3, 13],
  'clients/schema-freshness': [6, 12],
  'platform/child-processes': [12, 11],
  'pos/sync-failures': [12, 8],
  'platform/fuzz': [11, 8],
  'analytics/costing': [7, 9],
  'analytics/report-cache': [6, 9],
  'inventory/export': [9, 7],
  'webhooks/worker-command': [6, 9],
  'pos/vendors/toast': [8, 6],
  'pos/auto-map': [7, 5],
  'pos/sync-sale-time': [7, 6],
  'pos/vendors/lightspeed': [7, 4],
  'webhooks/dispatcher': [7, 7],
  'webhooks/retries': [7, 7],
  'analytics/forecast-freshness': [6, 4],
  'analytics/forecast-holidays': [3, 6],
  'clients/pos-client': [3, 6],
  'ordering/purchase-order-dispatch': [3, 6],
  'platform/metrics': [5, 6],
  'platform/openapi': [6, 5],
  'pos/back-dated-cancellations': [6, 5],
  'pos/vendors/revel': [4, 6],
  'pos/archived-months': [5, 3],
  'pos/bulk-write-turns': [0, 5],
  'pos/venue-depletion': [3, 5],
  'webhooks/webhooks-api': [2, 5],
  'analytics/staff': [4, 4],
  'analytics/variance-costs': [4, 4],
  'inventory/ledger': [4, 3],
  'ordering/orders': [3, 4],
  'platform/database-loss': [0, 4],
  'platform/fifo-gate': [4, 0],
  'pos/back-dated-corrections': [3, 4],
  'pos/connection-failures': [1, 4],
  'pos/corrections': [2, 4],
  'pos/mappings-and-sales': [4, 3],
  'pos/push': [4, 4],
  'pos/recipe-mappings': [2, 4],
  'pos/vendors/simphony': [4, 4],
  'pos/vendors/spoton': [4, 3],
  'pos/vendors/square': [4, 2],
  'analytics/forecast-series': [1, 3],
  'analytics/forecast-transfers': [2, 3],
  'analytics/staff-windows': [3, 3],
  'analytics/variance-causes-report': [2, 3],
  'analytics/variance-operations': [2, 3],
  'clients/ordering-client': [2, 3],
  'clients/recipes-analytics-client': [2, 3],
  'inventory/transfer-race': [0, 3],
  'inventory/transfers': [2, 3],
  'ordering/receiving-cost': [3, 2],
  'ordering/receiving': [3, 2],
  'ordering/recommendations': [2, 3],
  'pos/mapping-usage': [2, 3],
  'pos/vendors/clover': [3, 3],
  'webhooks/delivery': [2, 3],
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
