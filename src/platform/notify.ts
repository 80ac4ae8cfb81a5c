import { type RawBuilder, sql } from 'kysely'
import type { Executor } from './db/database.js'

/**
 * The one way barstock sends a NOTIFY. In a transaction it is delivered when the transaction commits
 * (never for a rollback), so a listener woken by it finds the committed work. PostgreSQL folds identical
 * notifications of one transaction into one, so calling it per row costs one wake-up.
 */
export async function notify(db: Executor, channel: string, payload = ''): Promise<void> {
  await sql`SELECT ${notification(channel, payload)}`.execute(db)
}

/** The NOTIFY as an expression, for a statement that does more (one round trip instead of two). */
export function notification(channel: string, payload = ''): RawBuilder<unknown> {
  return sql<unknown>`pg_notify(${channel}, ${payload})`
}
