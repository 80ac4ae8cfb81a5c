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

export async function openPostgres(connectionString: string, poolSize: number): Promise<DatabaseHandle> {
  const pool = new pg.Pool({ connectionString, max: poolSize })
  const db: Db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  const listenClients = new Set<pg.Client>()
  return {
    kind: 'postgres',
    db,
    async listen(channel, listener) {
      // A dedicated connection: a pooled one would be handed to other queries between notifications.
      const client = new pg.Client({ connectionString })
      await client.connect()
      client.on('notification', (message) => {
        if (message.channel === channel) listener(message.payload ?? '')
      })
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
      listenClients.add(client)
      return async () => {
        listenClients.delete(client)
        await client.end()
      }
    },
    // Without parameters pg uses the simple query protocol, which accepts several statements.
    async executeScript(trx, script) {
      await sql.raw(script).execute(trx)
    },
    async close() {
      await Promise.all([...listenClients].map((client) => client.end()))
      await db.destroy()
    },
  }
}
