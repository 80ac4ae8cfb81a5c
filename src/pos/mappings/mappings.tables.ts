import type { Environment, Numeric, Timestamp } from '../../platform/db/database.js'

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

export interface PosStaffTable {
  connection_id: string
  staff_id: string
  account_id: string
  environment: Environment
  name: string
  role: string | null
  last_synced: Timestamp
}

declare module '../../platform/db/database.js' {
  interface Database {
    pos_items: PosItemTable
    pos_mappings: PosMappingTable
    pos_staff: PosStaffTable
  }
}
