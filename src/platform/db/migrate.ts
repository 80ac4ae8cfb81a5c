import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'kysely'
import type { DatabaseHandle } from './connect.js'
import { projectPath } from '../paths.js'

export const MIGRATIONS_DIR = projectPath('migrations')

// Any 64-bit constant: every instance takes the same lock, so only one migrates at a time.
const MIGRATION_LOCK = 7_362_514_401

/**
 * Applies, in name order, every migrations/*.sql file not yet recorded in schema_migrations. All pending
 * files run in one transaction: a failing migration leaves the schema as it was.
 */
export async function migrate(handle: DatabaseHandle, directory = MIGRATIONS_DIR): Promise<string[]> {
  const files = readdirSync(directory)
    .filter((name) => name.endsWith('.sql'))
    .sort()
  return handle.db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx)
    await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`.execute(trx)
    const done = await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(trx)
    const applied = new Set(done.rows.map((row) => row.name))
    const pending = files.filter((name) => !applied.has(name))
    for (const name of pending) {
      await handle.executeScript(trx, readFileSync(join(directory, name), 'utf8'))
      await sql`INSERT INTO schema_migrations (name) VALUES (${name})`.execute(trx)
    }
    return pending
  })
}
