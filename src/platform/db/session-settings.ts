import { sql } from 'kysely'
import pg from 'pg'
import type { Db } from './database.js'

/** The server-side timeouts every connection of the service must carry, in milliseconds. */
export interface SessionTimeouts {
  statementMs: number
  idleInTransactionMs: number
}

/** The PostgreSQL settings behind SessionTimeouts, and the variables that set them. */
const SETTINGS = [
  { name: 'statement_timeout', of: (timeouts: SessionTimeouts) => timeouts.statementMs, variable: 'BARSTOCK_DB_STATEMENT_TIMEOUT_MS' },
  {
    name: 'idle_in_transaction_session_timeout',
    of: (timeouts: SessionTimeouts) => timeouts.idleInTransactionMs,
    variable: 'BARSTOCK_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS',
  },
] as const

/** The advisory lock that serializes applyRoleTimeouts across instances (any constant of our own). */
const ROLE_SETTINGS_LOCK = 7_263_514_001

/** The service cannot use the database as configured; the message says what to change. */
export class DatabaseSetupError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'DatabaseSetupError'
  }
}

/**
 * Makes the timeouts the defaults of this role in this database, on the direct connection at
 * `directUrl`: behind a transaction-mode pooler, a connection's startup parameters never reach the
 * server sessions it borrows (PgBouncer refuses them, or drops them when told to ignore them), but the
 * sessions the pooler opens take their role's defaults. Sessions it opened before keep their settings
 * until they reconnect.
 */
export async function applyRoleTimeouts(directUrl: string, timeouts: SessionTimeouts): Promise<void> {
  const client = new pg.Client({ connectionString: directUrl })
  await client.connect()
  try {
    // Instances starting at once would fail each other's catalog update ("tuple concurrently updated").
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock($1)', [ROLE_SETTINGS_LOCK])
    const { rows } = await client.query<{ database: string }>('SELECT current_database() AS database')
    const database = pg.escapeIdentifier(rows[0]!.database)
    for (const setting of SETTINGS) {
      await client.query(`ALTER ROLE CURRENT_USER IN DATABASE ${database} SET ${setting.name} = ${setting.of(timeouts)}`)
    }
    await client.query('COMMIT')
  } catch (error) {
    throw new DatabaseSetupError(
      `could not make the database timeouts the defaults of this role (${(error as Error).message}): ` +
        'an administrator can run ALTER ROLE <role> IN DATABASE <database> SET statement_timeout = …, idle_in_transaction_session_timeout = …',
      { cause: error },
    )
  } finally {
    await client.end()
  }
}

/**
 * The timeouts a connection of `db` really has that differ from `timeouts`, as "name is X ms, not Y
 * (VARIABLE)"; empty when they hold. A pooler refusing the startup parameters that set them is named.
 */
export async function sessionTimeoutMismatches(db: Db, timeouts: SessionTimeouts): Promise<string[]> {
  let rows: { name: string; setting: string }[]
  try {
    rows = (await sql<{ name: string; setting: string }>`SELECT name, setting FROM pg_settings WHERE name IN (${sql.join(SETTINGS.map((setting) => setting.name))})`.execute(db))
      .rows
  } catch (error) {
    const message = (error as Error).message
    if (!/unsupported startup parameter/.test(message)) throw error
    throw new DatabaseSetupError(
      `DATABASE_URL leads to a pooler that refuses the session settings barstock sends (${message}): ` +
        'set BARSTOCK_DIRECT_DATABASE_URL to a direct connection to the same database (docs/operations.md, "Behind PgBouncer")',
      { cause: error },
    )
  }
  const actual = new Map(rows.map((row) => [row.name, Number(row.setting)]))
  return SETTINGS.filter((setting) => actual.get(setting.name) !== setting.of(timeouts)).map(
    (setting) => `${setting.name} is ${actual.get(setting.name)} ms, not ${setting.of(timeouts)} (${setting.variable})`,
  )
}
