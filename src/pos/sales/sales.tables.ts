import type { Generated } from 'kysely'
import type { Environment, Numeric, Timestamp } from '../../platform/db/database.js'

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

declare module '../../platform/db/database.js' {
  interface Database {
    pos_sales: PosSaleTable
    pos_pending_corrections: PosPendingCorrectionTable
  }
}
