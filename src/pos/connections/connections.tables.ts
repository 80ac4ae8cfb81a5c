import type { Environment, Timestamp } from '../../platform/db/database.js'

export type ConnectionStatus = 'active' | 'inactive' | 'error'
export type SyncFrequency = 'realtime' | 'hourly' | 'daily'

export interface PosConnectionTable {
  id: string
  account_id: string
  environment: Environment
  pos_type: string
  name: string
  location_id: string
  status: ConnectionStatus
  sync_frequency: SyncFrequency
  credentials: string
  /** Sealed like the credentials (src/pos/push-setup.ts); null for vendors without pushes. */
  push_secret: string | null
  /** The vendor's one-time webhook verification code, as it last arrived. */
  push_verification_code: string | null
  /** The vendor account (Clover merchant) as a keyed hash, for routing app-level pushes (push-setup.ts). */
  push_account_key: string | null
  sales_cursor: Date | null
  /** Hours incremental runs read again before the cursor; null: the vendor's default. */
  sales_reread_hours: number | null
  last_sync: Date | null
  next_sync_at: Date
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: Date | null
}

declare module '../../platform/db/database.js' {
  interface Database {
    pos_connections: PosConnectionTable
  }
}
