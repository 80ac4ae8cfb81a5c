import { readdirSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { after, before, describe } from 'node:test'
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
 * Seconds each slow file took in a whole run on this 2-core machine (files not named take about 1 s). They
 * only spread the slow files over the shards, so that the shards end together; a stale figure costs balance,
 * never a test.
 */
const SLOW_FILE_SECONDS: Record<string, number> = {
  'cli/server-process': 27,
  'pos/sales-cli': 22,
  'cli/cli-output': 22,
  'pos/sync': 18,
  'pos/vendors/ground-truth': 15,
  'webhooks/crash': 15,
  'platform/child-processes': 14,
  'cli/backup': 14,
  'platform/logging': 14,
  'console/console': 12,
  'analytics/variance': 12,
  'pos/sync-shutdown': 11,
  'pos/sync-failures': 9,
  'pos/sync-resume': 9,
  'analytics/costing': 9,
  'clients/schema-freshness': 8,
  'platform/fuzz': 8,
  'webhooks/retries': 7,
  'inventory/export': 7,
  'pos/vendors/toast': 6,
  'pos/auto-map': 6,
  'analytics/forecast': 6,
  'analytics/categories': 5,
  'webhooks/worker-command': 5,
  'webhooks/dispatcher': 5,
  'analytics/performance': 5,
  'pos/sync-sale-time': 5,
  // Measured alone on PostgreSQL (on PGlite they skip): a 10 s partition, a failover, a stranded LISTEN; PgBouncer;
  // a primary and a standby started by the test (read replicas).
  'platform/database-partition': 60,
  'platform/pgbouncer': 37,
  'platform/read-replica': 45,
}

function expectedSeconds(file: string): number {
  return SLOW_FILE_SECONDS[file.replace(/\.test\.js$/, '')] ?? 1
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

/** Runs shard `index` (1-based) of `count`. A file runs alone with `node --test dist/test/<path>.test.js`. */
export async function runShard(index: number, count: number): Promise<void> {
  after(keepSharedPgliteBetweenFiles())
  for (const file of shardFiles(count)[index - 1]!) {
    const path = join(TEST_ROOT, file)
    // The bound of a whole file, which each of its tests inherits unless it sets its own.
    describe(relative(TEST_ROOT, path), { timeout: FILE_TIMEOUT_MS }, async () => {
      before(beginTestFile)
      after(killChildren)
      await import(pathToFileURL(path).href)
    })
  }
}
