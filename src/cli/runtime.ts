import type { Config } from '../platform/config.js'
import { type DatabaseHandle, openPglite, openPostgres } from '../platform/db/connect.js'
import { lockDataDir, lockHolder } from '../platform/db/data-dir-lock.js'
import { migrate } from '../platform/db/migrate.js'
import { adminSocketPath, callAdminChannel } from '../platform/admin-channel.js'
import { adminCommands } from './commands.js'

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
    const handle = await openPostgres(config.databaseUrl, config.databasePoolSize, undefined, config.databaseTimeouts)
    await migrate(handle)
    return { handle, close: () => handle.close() }
  }
  const release = lockDataDir(config.dataDir)
  try {
    const handle = await openPglite(config.dataDir)
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
 * Runs an admin command wherever the database is: through the running server's channel when a server
 * holds the embedded data dir, else on a database this process opens for the command.
 */
export async function runAdminCommand(config: Config, name: string, args: Record<string, unknown>): Promise<unknown> {
  if (!config.databaseUrl && lockHolder(config.dataDir) !== undefined) {
    return callAdminChannel(adminSocketPath(config.dataDir), name, args)
  }
  const database = await openDatabase(config)
  try {
    const command = adminCommands(database.handle)[name]
    if (!command) throw new Error(`unknown command ${name}`)
    return await command(args)
  } finally {
    await database.close()
  }
}
