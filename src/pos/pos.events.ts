/** The POS events of the spec's Events table, with their exact `data` fields. */
export interface PosSyncCompletedData {
  connection_id: string
  pos_type: string
  sync_id: string
  sync_type: string
  duration_seconds: number
  sales_synced: number
  products_synced: number
  variance_detected: number
  status: 'success'
}

export interface PosSyncFailedData {
  connection_id: string
  pos_type: string
  sync_id: string
  error_code: string
  error_message: string
  /** Seconds until the scheduler tries again (or the vendor's Retry-After, when later). */
  retry_after: number
}

declare module '../platform/outbox.js' {
  interface EventCatalog {
    'pos.sync_completed': PosSyncCompletedData
    'pos.sync_failed': PosSyncFailedData
  }
}
