import { existsSync, readdirSync } from 'node:fs'
import type { Config } from '../platform/config.js'
import { type DatabaseHandle, openPglite, openPostgres } from '../platform/db/connect.js'
import { DataDirLockedError, lockDataDir, lockHolder } from '../platform/db/data-dir-lock.js'
import { migrate } from '../platform/db/migrate.js'
import { type AdminChannel, type AdminSession, adminSocketPath, callAdminChannel, startAdminChannel } from '../platform/admin-channel.js'
import { adminCommands } from './commands.js'

/** How long the CLI waits for a server on the port to answer /healthz. */
const HEALTH_PROBE_MS = 1_000

export interface OpenDatabase {
  handle: DatabaseHandle
  /** Closes the database and releases the data dir. */
  close(): Promise<void>
}

/**
 * Opens the configured database, migrated: PostgreSQL with DATABASE_URL, else the embedded PGlite in the
 * data dir, which this process then holds (a second holder is refused).
 */
export async function openDatabase(config: Config): Promise<OpenDatabase> {
  if (config.databaseUrl) {
    const handle = await openPostgres(config.databaseUrl, config.databasePoolSize, undefined, config.databaseTimeouts, config.directDatabaseUrl, config.replica)
    await migrate(handle)
    return { handle, close: () => handle.close() }
  }
  const release = lockDataDir(config.dataDir)
  try {
    const handle = await openPglite(config.dataDir, config.pgliteQueueLimit, undefined, config.databaseTimeouts.probeMs)
    await migrate(handle)
    return {
      handle,
      close: async () => {
        await handle.close()
        release()
      },
    }
  } catch (error) {
    release()
    throw error
  }
}

/**
 * Serves the admin commands (keys, accounts, backup…) on the embedded database this process holds, on a
 * socket in its data dir, so the CLI reaches it while the server or `barstock worker` runs; nothing on
 * PostgreSQL, which the CLI opens itself.
 */
export async function serveAdminChannel(config: Config, database: OpenDatabase): Promise<AdminChannel | undefined> {
  if (database.handle.kind !== 'pglite') return undefined
  return startAdminChannel(adminSocketPath(config.dataDir), adminCommands(database.handle))
}

/** The URL without its password, to name the database in messages. */
function withoutPassword(databaseUrl: string): string {
  const url = new URL(databaseUrl)
  url.password = ''
  return url.toString()
}

/** Whether a barstock server answers on the configured port of this machine (the wrong-data-dir hint). */
async function serverAnswersOnPort(config: Config): Promise<string | undefined> {
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(HEALTH_PROBE_MS) })
    const body = (await response.json()) as { status?: unknown }
    return body.status === 'ok' ? url : undefined
  } catch {
    return undefined
  }
}

/** A data dir that holds no database yet: missing or empty. */
function isNewDataDir(dataDir: string): boolean {
  return !existsSync(dataDir) || readdirSync(dataDir).length === 0
}

/**
 * Says on stderr (stdout stays the command's output) which database a command uses, and warns when the
 * data dir is free while a server answers on the port: that server uses other data, the usual cause
 * being a relative ./data read from another directory.
 */
async function announceDatabase(config: Config, serverPid: number | undefined): Promise<void> {
  if (config.databaseUrl) {
    process.stderr.write(`barstock: database ${withoutPassword(config.databaseUrl)}\n`)
    return
  }
  if (serverPid !== undefined) {
    process.stderr.write(`barstock: data dir ${config.dataDir} (through the server running as pid ${serverPid})\n`)
    return
  }
  process.stderr.write(`barstock: data dir ${config.dataDir}\n`)
  if (isNewDataDir(config.dataDir)) {
    process.stderr.write(
      `barstock: warning: the data dir ${config.dataDir} is new: this command creates a database there, which no running server uses ` +
        '(a key made here reaches no server). To reach a running server, set BARSTOCK_DATA_DIR to its data dir or DATABASE_URL to its database.\n',
    )
  }
  const server = await serverAnswersOnPort(config)
  if (server) {
    process.stderr.write(
      `barstock: warning: a barstock server answers on ${server} but does not hold ${config.dataDir}: ` +
        "this command does not change that server's data. Set BARSTOCK_DATA_DIR to its data dir (a relative ./data depends on the directory you run from).\n",
    )
  }
}

/**
 * Opens the configured database for a migration and says which one it is. An embedded data dir another
 * process holds is refused before anything is said of it: that process is not "another server".
 */
export async function openDatabaseForCommand(config: Config): Promise<OpenDatabase> {
  const holder = config.databaseUrl ? undefined : lockHolder(config.dataDir)
  if (holder !== undefined) throw new DataDirLockedError(config.dataDir, holder)
  await announceDatabase(config, undefined)
  return openDatabase(config)
}

/**
 * Opens a session of admin commands wherever the database is: through the running server's channel
 * when a server holds the embedded data dir, else on a database this process opens until `close`.
 * Names the database on stderr first.
 */
export async function openAdminSession(config: Config): Promise<AdminSession> {
  const serverPid = config.databaseUrl ? undefined : lockHolder(config.dataDir)
  await announceDatabase(config, serverPid)
  if (serverPid !== undefined) {
    const socket = adminSocketPath(config.dataDir)
    return { run: (name, args) => callAdminChannel(socket, name, args), close: async () => {} }
  }
  const database = await openDatabase(config)
  const commands = adminCommands(database.handle)
  return {
    async run(name, args) {
      const command = commands[name]
      if (!command) throw new Error(`unknown command ${name}`)
      return command(args)
    },
    close: () => database.close(),
  }
}

/** Runs one admin command in a session of its own. */
export async function runAdminCommand(config: Config, name: string, args: Record<string, unknown>): Promise<unknown> {
  const session = await openAdminSession(config)
  try {
    return await session.run(name, args)
  } finally {
    await session.close()
  }
}
