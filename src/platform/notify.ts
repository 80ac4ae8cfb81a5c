import { sql } from 'kysely'
import type { Executor } from './db/database.js'

/**
 * The one way barstock's code sends a NOTIFY (the webhooks' fan-out trigger sends its own). In a
 * transaction it is delivered when the transaction commits (never for a rollback), so a listener woken by
 * it finds the committed work. PostgreSQL folds identical notifications of one transaction into one, so
 * calling it per row costs one wake-up.
 */
export async function notify(db: Executor, channel: string, payload = ''): Promise<void> {
  await sql`SELECT pg_notify(${channel}, ${payload})`.execute(db)
}
