import type { Generated } from 'kysely'
import type { Environment, Numeric, Timestamp } from '../platform/db/database.js'

export type ConnectionStatus = 'active' | 'inactive' | 'error'
export type SyncFrequency = 'realtime' | 'hourly' | 'daily'
export type SyncType = 'full' | 'incremental' | 'sales_only'
export type SyncStatus = 'processing' | 'completed' | 'failed'

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

export interface PosSyncRunTable {
  id: string
  account_id: string
  environment: Environment
  connection_id: string
  sync_type: SyncType
  status: SyncStatus
  triggered_by: string
  started_at: Timestamp
  estimated_completion: Date
  /** The job columns (src/platform/jobs.ts): due while processing and unleased; the worker's lease. */
  next_attempt_at: Generated<Date | null>
  lease_expires_at: Date | null
  attempts: Generated<number>
  completed_at: Date | null
  duration_ms: number | null
  sales_synced: number | null
  products_synced: number | null
  variance_detected: number | null
  error_code: string | null
  error_message: string | null
  retry_after: number | null
  /** Times a shutdown stopped the run and put it back in the queue. */
  interruptions: Generated<number>
}

export interface PosItemTable {
  connection_id: string
  pos_item_id: string
  account_id: string
  environment: Environment
  name: string
  category: string | null
  sku: string | null
  price: Numeric | null
  last_synced: Date | null
  suggested_item_id: string | null
  suggested_confidence: Numeric | null
  suggested_reason: string | null
  rejected_item_id: string | null
}

export interface PosMappingTable {
  connection_id: string
  pos_item_id: string
  account_id: string
  environment: Environment
  /** Exactly one of inventory_item_id and recipe_id is set. */
  inventory_item_id: string | null
  recipe_id: string | null
  /** An item mapping: amount of the item per POS unit; a recipe mapping: servings per POS unit. */
  conversion_factor: Numeric
  /** The unit of an item mapping's factor; null for a recipe mapping. */
  conversion_unit: string | null
  created_by: string
  created_at: Timestamp
  updated_at: Timestamp
}

export interface PosSaleTable {
  sequence: Generated<string>
  account_id: string
  environment: Environment
  connection_id: string
  line_id: string
  source_id: string
  location_id: string
  pos_item_id: string
  name: string
  quantity: Numeric
  unit_price: Numeric
  sold_at: Timestamp
  staff_id: string | null
  staff_name: string | null
  check_id: string | null
  tip: Numeric | null
  depleted: boolean
  /** A modifier's parent line (line_id). */
  parent_line_id: string | null
  /** A correction's original line (line_id); the row is dated (sold_at) to that line's sale. */
  corrects_line_id: string | null
  /** When a correction happened. */
  corrected_at: Timestamp | null
}

/** A correction whose original line is not stored yet. */
export interface PosPendingCorrectionTable {
  account_id: string
  environment: Environment
  connection_id: string
  line_id: string
  corrects_line_id: string
  source_id: string
  quantity: Numeric
  unit_price: Numeric
  corrected_at: Timestamp
}

/** Where a connection's listing stopped when a run failed part way; the next run starts there. */
export interface PosListingCheckpointTable {
  connection_id: string
  listing: 'sales'
  window_start: Timestamp
  window_end: Timestamp
  /** The adapter's own position text (SalesListingProgress). */
  position: string
  saved_by: string
  saved_at: Timestamp
}

/** The set-up request a vendor app's one push URL received last (Clover's verification code), per vendor. */
export interface PosAppPushSetupTable {
  pos_type: string
  verification_code: string
  verification_code_received_at: Timestamp
}

export interface PosStaffTable {
  connection_id: string
  staff_id: string
  account_id: string
  environment: Environment
  name: string
  role: string | null
  last_synced: Timestamp
}

declare module '../platform/db/database.js' {
  interface Database {
    pos_connections: PosConnectionTable
    pos_sync_runs: PosSyncRunTable
    pos_items: PosItemTable
    pos_mappings: PosMappingTable
    pos_sales: PosSaleTable
    pos_pending_corrections: PosPendingCorrectionTable
    pos_staff: PosStaffTable
    pos_listing_checkpoints: PosListingCheckpointTable
    pos_app_push_setups: PosAppPushSetupTable
  }
}
