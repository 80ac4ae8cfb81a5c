import { readdirSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { describe } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'

/**
 * `npm test` runs the test files in a few processes (shards) instead of one process each: a test process
 * costs about 2 s of CPU before its first test (loading the app's modules, compiling its schemas), and the
 * suite has over 80 files. Each file still runs in a suite of its own, so its top-level hooks, its
 * database (one per file, from createTestContext) and its failures stay its own.
 */

/** A file's time limit: the slowest take about 40 s alone, several times that on a saturated machine. */
const FILE_TIMEOUT_MS = 600_000

const TEST_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

/** Every compiled test file, in a stable order. */
function testFiles(): string[] {
  return (readdirSync(TEST_ROOT, { recursive: true }) as string[]).filter((file) => file.endsWith('.test.js')).sort()
}

/**
 * Runs shard `index` (1-based) of `count`: every count-th file from the index-th, so each shard takes files
 * from every folder. A file runs alone with `node --test dist/test/<path>.test.js`.
 */
export async function runShard(index: number, count: number): Promise<void> {
  const files = testFiles().filter((_, position) => position % count === index - 1)
  for (const file of files) {
    const path = join(TEST_ROOT, file)
    // The bound of a whole file, which each of its tests inherits unless it sets its own.
    describe(relative(TEST_ROOT, path), { timeout: FILE_TIMEOUT_MS }, async () => {
      await import(pathToFileURL(path).href)
    })
  }
}
