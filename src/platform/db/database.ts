import type { ColumnType, Generated, Kysely, Transaction } from 'kysely'

/** The two environments every row belongs to, beside its account. */
export type Environment = 'production' | 'sandbox'

/** Whose data a request may see: one account in one environment. */
export interface Tenant {
  readonly accountId: string
  readonly environment: Environment
}

/** A timestamp column: the database fills it, we read a Date and may write a Date or ISO string. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
/**
 * Whether a time (milliseconds since the epoch) can be written to a timestamp column: from year 1 to the
 * end of year 9999. The pg driver writes year 0 (1 BC) as `0000`, which PostgreSQL refuses, and a year past
 * 9999 has no ISO 8601 form; NaN (an invalid Date) is neither.
 */
export function isStorableTime(time: number): boolean {
  return time >= EARLIEST_STORABLE_TIME && time <= LATEST_STORABLE_TIME
}
const EARLIEST_STORABLE_TIME = Date.parse('0001-01-01T00:00:00.000Z')
const LATEST_STORABLE_TIME = Date.parse('9999-12-31T23:59:59.999Z')

/** A numeric column: read as a decimal string, written as a string or number. */
export type Numeric = ColumnType<string, string | number, string | number>

export interface AccountTable {
  id: string
  name: string
  created_at: Timestamp
}

export interface ApiKeyTable {
  id: string
  account_id: string
  environment: Environment
  name: string
  permissions: string[]
  key_hash: string
  key_prefix: string
  created_at: Timestamp
  expires_at: Date | null
  revoked_at: Date | null
}

export interface IdempotencyRecordTable {
  api_key_id: string
  idempotency_key: string
  fingerprint: string
  status_code: number
  response_body: ColumnType<unknown, string, string>
  created_at: Timestamp
}

export interface OutboxEventTable {
  id: string
  account_id: string
  environment: Environment
  kind: string
  data: ColumnType<Record<string, unknown>, string, string>
  created_at: Timestamp
  sequence: Generated<string>
}

/**
 * The whole schema as Kysely sees it. Each domain adds its own tables to this interface with
 * declaration merging (`declare module '../platform/db/database.js'`), so the platform never imports a
 * domain.
 */
export interface Database {
  accounts: AccountTable
  api_keys: ApiKeyTable
  idempotency_records: IdempotencyRecordTable
  outbox_events: OutboxEventTable
}

export type Db = Kysely<Database>
export type Trx = Transaction<Database>
/** Read-only functions accept either the pool or an open transaction. */
export type Executor = Db | Trx
