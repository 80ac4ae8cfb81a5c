import { sql } from 'kysely'
import { type DatabaseHandle, openPglite } from '../../src/platform/db/connect.js'
import { migratedPgliteImage } from './pglite-image.js'

/**
 * One embedded database per test process, handed to each test file as if it were new. Starting a PGlite from
 * the migrated image costs about 1 s of CPU; emptying the tables again costs about 0.1 s, and a shard
 * process runs over 20 files. A file's first database handle therefore finds every table as the migrations
 * left it: truncated, identities restarted, the migrations' own rows (the default account and its
 * locations) put back. Handles open at the same time (a file with two contexts) share the database, as
 * tenancy already separates what each test sees.
 */
interface SharedDatabase {
  handle: DatabaseHandle
  /** Every table but the migrations' own record. */
  tables: string[]
  /** The rows the migrations wrote, per table, as a JSON array. */
  seeds: { table: string; rows: string }[]
}

let shared: Promise<SharedDatabase> | undefined
let openHandles = 0
let emptied: Promise<void> = Promise.resolve()
/** Set by a shard process, which runs many files and closes the database once, after the last. */
let keptBetweenFiles = false

/** A handle on the process's embedded database, emptied first unless another handle is open. */
export async function openSharedPglite(): Promise<DatabaseHandle> {
  shared ??= startSharedDatabase()
  const current = shared
  const database = await current
  if (openHandles++ === 0) emptied = emptyToMigrated(database)
  await emptied
  let closed = false
  return {
    ...database.handle,
    async close() {
      // A handle on a database beginTestFile left behind no longer counts.
      if (closed || shared !== current) return
      closed = true
      if (--openHandles === 0 && !keptBetweenFiles) await closeSharedPglite()
    },
  }
}

/**
 * Called as each file of a shard begins. A file that ended with a handle still open, or with a statement
 * or transaction still holding the database (a test cancelled by its time limit in the middle of one),
 * leaves it behind: the next file gets a new database instead of waiting behind it.
 */
export async function beginTestFile(): Promise<void> {
  if (!shared) return
  const { handle } = await shared
  const usage = handle.poolUsage()
  if (openHandles === 0 && usage.idle === 1 && usage.waiting === 0) return
  shared = undefined
  openHandles = 0
  // Not awaited: closing waits for what holds the database, which may never end.
  void handle.close().catch(() => undefined)
}

/** Keeps the database open between files until the returned function closes it (the shard's last hook). */
export function keepSharedPgliteBetweenFiles(): () => Promise<void> {
  keptBetweenFiles = true
  return closeSharedPglite
}

async function closeSharedPglite(): Promise<void> {
  const closing = shared
  shared = undefined
  if (closing) await (await closing).handle.close()
}

async function startSharedDatabase(): Promise<SharedDatabase> {
  const handle = await openPglite(undefined, undefined, await migratedPgliteImage())
  const { rows } = await sql<{ tablename: string }>`
    SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY tablename
  `.execute(handle.db)
  const tables = rows.map((row) => row.tablename)
  const seeds: SharedDatabase['seeds'] = []
  for (const table of tables) {
    const {
      rows: [found],
    } = await sql<{ rows: string | null }>`SELECT json_agg(t)::text AS rows FROM ${sql.table(table)} t`.execute(handle.db)
    if (found?.rows) seeds.push({ table, rows: found.rows })
  }
  return { handle, tables, seeds }
}

async function emptyToMigrated({ handle, tables, seeds }: SharedDatabase): Promise<void> {
  await handle.db.transaction().execute(async (trx) => {
    await sql`TRUNCATE ${sql.join(tables.map((table) => sql.table(table)))} RESTART IDENTITY`.execute(trx)
    // Put back as they were, without the foreign-key checks and triggers that would want a different order;
    // SET LOCAL ends with the transaction, so a failed insert cannot leave them off for the files after.
    await sql`SET LOCAL session_replication_role = replica`.execute(trx)
    for (const { table, rows } of seeds) {
      await sql`INSERT INTO ${sql.table(table)} OVERRIDING SYSTEM VALUE
        SELECT * FROM json_populate_recordset(NULL::${sql.table(table)}, ${rows}::json)`.execute(trx)
    }
    await sql`SELECT pg_advisory_unlock_all()`.execute(trx)
  })
}
