import type { Environment, Numeric, Timestamp } from '../platform/db/database.js'
import type { Generated } from 'kysely'

/** Transfers and waste entries (migrations/20261127110000_transfers_waste.sql): headers and their item lines. */
export interface InventoryTransferTable {
  id: string
  account_id: string
  environment: Environment
  from_location: string
  to_location: string
  transferred_by: string
  transferred_at: Timestamp
  notes: string | null
  voided_at: Date | null
  created_at: Generated<Date>
}

export interface InventoryWasteTable {
  id: string
  account_id: string
  environment: Environment
  location_id: string
  recorded_by: string
  occurred_at: Timestamp
  voided_at: Date | null
  created_at: Generated<Date>
}

export type OperationLineKind = 'transfer_out' | 'transfer_in' | 'waste' | 'delivery'

/**
 * One item's side of a transfer line, a waste line, or a history delivery: what analytics reads, applied or
 * history. A delivery line is history only (migrations/20261127130000_history_deliveries.sql): a delivery
 * that took current stock is its ledger row.
 */
export interface StockOperationLineTable {
  sequence: Generated<string>
  account_id: string
  environment: Environment
  operation_id: string
  line_no: number
  kind: OperationLineKind
  item_id: string
  location_id: string
  /** Item units, positive. */
  quantity: Numeric
  unit_cost: Numeric
  reason: string | null
  entered_quantity: Numeric | null
  entered_unit: string | null
  notes: string | null
  occurred_at: Timestamp
  /** Took current stock (dated after the item's anchor); false: history only. */
  applied: boolean
  voided_at: Date | null
}

declare module '../platform/db/database.js' {
  interface Database {
    inventory_transfers: InventoryTransferTable
    inventory_waste: InventoryWasteTable
    stock_operation_lines: StockOperationLineTable
  }
}
