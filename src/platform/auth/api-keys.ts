import { createHash, randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import type { Environment, Executor } from '../db/database.js'
import { newId } from '../ids.js'
import { notify } from '../notify.js'
import type { Permission } from './permissions.js'

/** NOTIFY channel on which key revocations reach every instance's key cache. */
export const API_KEYS_CHANNEL = 'barstock_api_keys'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** 160 random bits in base62. */
function randomSecret(): string {
  let value = BigInt(`0x${randomBytes(20).toString('hex')}`)
  let text = ''
  while (value > 0n) {
    text = BASE62[Number(value % 62n)] + text
    value /= 62n
  }
  return text.padStart(28, '0')
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

export function keyPrefixFor(environment: Environment): string {
  return environment === 'production' ? 'bs_live_' : 'bs_test_'
}

export interface ApiKeyInfo {
  id: string
  account_id: string
  environment: Environment
  name: string
  permissions: Permission[]
  key_prefix: string
  created_at: string
  expires_at: string | null
  revoked_at: string | null
}

export interface CreatedApiKey extends ApiKeyInfo {
  /** The key itself: shown once, never stored. */
  key: string
}

/** What a verified key lets a request do. */
export interface AuthContext {
  keyId: string
  keyName: string
  accountId: string
  environment: Environment
  permissions: Permission[]
  expiresAt: Date | null
}

const iso = (value: Date | null) => (value === null ? null : value.toISOString())

function toInfo(row: {
  id: string
  account_id: string
  environment: Environment
  name: string
  permissions: string[]
  key_prefix: string
  created_at: Date
  expires_at: Date | null
  revoked_at: Date | null
}): ApiKeyInfo {
  return {
    id: row.id,
    account_id: row.account_id,
    environment: row.environment,
    name: row.name,
    permissions: row.permissions as Permission[],
    key_prefix: row.key_prefix,
    created_at: row.created_at.toISOString(),
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
  }
}

export interface NewApiKey {
  accountId: string
  environment: Environment
  name: string
  permissions: Permission[]
  expiresAt?: Date
}

/** Creates a key; only its hash is stored, and the key is returned this once. */
export async function createApiKey(db: Executor, input: NewApiKey): Promise<CreatedApiKey> {
  const key = keyPrefixFor(input.environment) + randomSecret()
  const row = await db
    .insertInto('api_keys')
    .values({
      id: newId('key'),
      account_id: input.accountId,
      environment: input.environment,
      name: input.name,
      permissions: input.permissions,
      key_hash: hashApiKey(key),
      key_prefix: key.slice(0, 12),
      expires_at: input.expiresAt ?? null,
      revoked_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  return { ...toInfo(row), key }
}

export async function listApiKeys(db: Executor, accountId?: string): Promise<ApiKeyInfo[]> {
  let query = db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id')
  if (accountId) query = query.where('account_id', '=', accountId)
  return (await query.execute()).map(toInfo)
}

/** Revokes a key at once on every instance; undefined when there is no such key. */
export async function revokeApiKey(db: Executor, id: string): Promise<ApiKeyInfo | undefined> {
  const row = await db.updateTable('api_keys').set({ revoked_at: sql`coalesce(revoked_at, now())` }).where('id', '=', id).returningAll().executeTakeFirst()
  if (row) await notify(db, API_KEYS_CHANNEL, id)
  return row ? toInfo(row) : undefined
}

/** The key's context when it exists, is not revoked and has not expired. */
export async function findActiveKey(db: Executor, key: string): Promise<AuthContext | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'name', 'account_id', 'environment', 'permissions', 'expires_at'])
    .where('key_hash', '=', hashApiKey(key))
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  if (!row || (row.expires_at && row.expires_at <= new Date())) return undefined
  return {
    keyId: row.id,
    keyName: row.name,
    accountId: row.account_id,
    environment: row.environment,
    permissions: row.permissions as Permission[],
    expiresAt: row.expires_at,
  }
}
