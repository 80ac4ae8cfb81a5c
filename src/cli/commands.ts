import { writeFileSync } from 'node:fs'
import type { DatabaseHandle } from '../platform/db/connect.js'
import type { Db, Environment } from '../platform/db/database.js'
import { createApiKey, listApiKeys, revokeApiKey } from '../platform/auth/api-keys.js'
import { parsePermissionList } from '../platform/auth/permissions.js'
import { newId } from '../platform/ids.js'
import { createDefaultLocations } from '../locations/locations.service.js'
import type { AdminCommand } from '../platform/admin-channel.js'
import { runSalesImportCommand, runSalesLocationsCommand } from './pos-commands.js'
import { runArchiveCommand } from './archive-command.js'

export const DEFAULT_ACCOUNT_ID = 'acct_default'

function text(args: Record<string, unknown>, name: string): string {
  const value = args[name]
  if (typeof value !== 'string' || value.trim() === '') throw new Error(`--${name} is required`)
  return value.trim()
}

async function ensureAccount(db: Db, id: string): Promise<void> {
  const account = await db.selectFrom('accounts').select('id').where('id', '=', id).executeTakeFirst()
  if (!account) throw new Error(`no account ${id}; see: barstock accounts list`)
}

/**
 * The administrative commands, as functions of the database. The CLI runs them directly when no server
 * holds the embedded database, and through the server's admin channel when one does.
 */
export function adminCommands(database: DatabaseHandle): Record<string, AdminCommand> {
  const { db } = database
  return {
    'sales.locations': (args) => runSalesLocationsCommand(db, args),
    backup: async (args) => {
      if (!database.snapshot) throw new Error('the database is PostgreSQL: back it up with pg_dump (docs/operations.md)')
      const path = text(args, 'out')
      const archive = await database.snapshot()
      // Every tenant's data: readable by the owner only.
      writeFileSync(path, archive, { mode: 0o600 })
      return { path, bytes: archive.length }
    },
    'sales.import': (args) => runSalesImportCommand(db, args),
    archive: (args) => runArchiveCommand(database, args),
    'keys.create': async (args) => {
      const accountId = typeof args.account === 'string' ? args.account : DEFAULT_ACCOUNT_ID
      await ensureAccount(db, accountId)
      const environment: Environment = args.sandbox === true ? 'sandbox' : 'production'
      let expiresAt: Date | undefined
      if (typeof args.expiresAt === 'string') {
        expiresAt = new Date(args.expiresAt)
        if (Number.isNaN(expiresAt.getTime()) || expiresAt <= new Date()) throw new Error('--expires-at must be a future ISO 8601 time')
      }
      return createApiKey(db, {
        accountId,
        environment,
        name: text(args, 'name'),
        permissions: parsePermissionList(text(args, 'permissions')),
        expiresAt,
      })
    },
    'keys.list': async (args) => listApiKeys(db, typeof args.account === 'string' ? args.account : undefined),
    'keys.revoke': async (args) => {
      const id = text(args, 'id')
      const revoked = await revokeApiKey(db, id)
      if (!revoked) throw new Error(`no key ${id}`)
      return revoked
    },
    'accounts.create': async (args) => {
      const name = text(args, 'name')
      return db.transaction().execute(async (trx) => {
        const account = await trx
          .insertInto('accounts')
          .values({ id: newId('acct'), name })
          .returning(['id', 'name', 'created_at'])
          .executeTakeFirstOrThrow()
        await createDefaultLocations(trx, account.id)
        return { ...account, created_at: account.created_at.toISOString() }
      })
    },
    'accounts.list': async () => {
      const rows = await db.selectFrom('accounts').select(['id', 'name', 'created_at']).orderBy('created_at').execute()
      return rows.map((row) => ({ ...row, created_at: row.created_at.toISOString() }))
    },
  }
}
