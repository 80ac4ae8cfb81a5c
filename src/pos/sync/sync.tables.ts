import type { Generated } from 'kysely'
import type { Environment, Timestamp } from '../../platform/db/database.js'

export type SyncType = 'full' | 'incremental' | 'sales_only'
export type SyncStatus = 'processing' | 'completed' | 'failed'

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

declare module '../../platform/db/database.js' {
  interface Database {
    pos_sync_runs: PosSyncRunTable
    pos_listing_checkpoints: PosListingCheckpointTable
  }
}
