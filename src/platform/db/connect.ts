import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, PostgresDialect, sql } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import pg from 'pg'
import type { Database, Db, Trx } from './database.js'

export type Listener = (payload: string) => void

/** An open database: Kysely for queries, plus LISTEN/NOTIFY, which Kysely does not cover. */
export interface DatabaseHandle {
  readonly kind: 'pglite' | 'postgres'
  readonly db: Db
  /** Subscribes to a NOTIFY channel; resolves to an unsubscribe function. */
  listen(channel: string, listener: Listener): Promise<() => Promise<void>>
  /** Runs a multi-statement SQL script (a migration) inside the open transaction `trx`. */
  executeScript(trx: Trx, script: string): Promise<void>
  close(): Promise<void>
}

// int8 counts come back as JS numbers (they stay far below 2^53); numeric stays a string for big.js.
pg.types.setTypeParser(20, (value: string) => Number(value))

export function pgliteDirectory(dataDir: string): string {
  return join(dataDir, 'pgdata')
}

/** Opens the embedded PGlite in `<dataDir>/pgdata`, or an in-memory one when dataDir is undefined. */
export async function openPglite(dataDir: string | undefined): Promise<DatabaseHandle> {
  let location = 'memory://'
  if (dataDir !== undefined) {
    location = pgliteDirectory(dataDir)
    mkdirSync(location, { recursive: true })
  }
  const pglite = await PGlite.create(location)
  const db: Db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) })
  return {
    kind: 'pglite',
    db,
    async listen(channel, listener) {
      const unsubscribe = await pglite.listen(channel, listener)
      return () => unsubscribe()
    },
    // PGlite's extended protocol takes one statement per query; exec takes a script. PGlite has a single
    // session, so exec runs inside the transaction Kysely holds open on it.
    async executeScript(_trx, script) {
      await pglite.exec(script)
    },
    // Destroying Kysely closes PGlite too (the dialect owns the instance).
    close: () => db.destroy(),
  }
}

export type ErrorReporter = (error: Error, context: string) => void

const reportToStderr: ErrorReporter = (error, context) => {
  process.stderr.write(`barstock: ${context}: ${error.message}\n`)
}

const LISTEN_RECONNECT_MS = 1000

/**
 * A LISTEN on its own connection that survives the server dropping it: it reconnects, and then calls the
 * listener once with an empty payload, since notifications sent meanwhile were lost.
 */
async function resilientListen(
  connectionString: string,
  channel: string,
  listener: Listener,
  reportError: ErrorReporter,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined
  let closed = false
  let retry: NodeJS.Timeout | undefined
  const connect = async () => {
    const next = new pg.Client({ connectionString })
    next.on('notification', (message) => {
      if (message.channel === channel) listener(message.payload ?? '')
    })
    next.on('error', (error) => {
      reportError(error, `LISTEN ${channel} connection failed; reconnecting`)
      if (client === next) reconnectSoon()
    })
    await next.connect()
    await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
    client = next
  }
  const reconnectSoon = () => {
    client = undefined
    if (closed || retry) return
    retry = setTimeout(() => {
      retry = undefined
      connect()
        .then(() => listener(''))
        .catch((error: Error) => {
          reportError(error, `LISTEN ${channel} reconnect failed`)
          reconnectSoon()
        })
    }, LISTEN_RECONNECT_MS)
  }
  await connect()
  return async () => {
    closed = true
    clearTimeout(retry)
    const current = client
    client = undefined
    await current?.end().catch(() => undefined)
  }
}

export async function openPostgres(
  connectionString: string,
  poolSize: number,
  reportError: ErrorReporter = reportToStderr,
): Promise<DatabaseHandle> {
  const pool = new pg.Pool({ connectionString, max: poolSize })
  // An idle pooled connection can be dropped by the server; without a listener that would crash the process.
  pool.on('error', (error) => reportError(error, 'idle database connection failed'))
  const db: Db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  const listeners = new Set<() => Promise<void>>()
  return {
    kind: 'postgres',
    db,
    async listen(channel, listener) {
      const stop = await resilientListen(connectionString, channel, listener, reportError)
      listeners.add(stop)
      return async () => {
        listeners.delete(stop)
        await stop()
      }
    },
    // Without parameters pg uses the simple query protocol, which accepts several statements.
    async executeScript(trx, script) {
      await sql.raw(script).execute(trx)
    },
    async close() {
      await Promise.all([...listeners].map((stop) => stop()))
      await db.destroy()
    },
  }
}
