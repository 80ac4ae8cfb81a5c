import type { Environment, Numeric, Timestamp } from '../platform/db/database.js'
import type { ColumnType, Generated } from 'kysely'

export interface InventoryItemTable {
  id: string
  account_id: string
  environment: Environment
  location_id: string
  name: string
  sku: string
  category: string
  quantity: Numeric
  unit: string
  size_ml: number | null
  case_size: number | null
  reorder_point: Numeric
  cost_per_unit: Numeric
  /** A full and an empty container's weight in grams (both or neither): partial containers are counted by weight. */
  full_weight_g: Numeric | null
  empty_weight_g: Numeric | null
  /** The quantity the item is stocked up to; null without a par. */
  par_level: Numeric | null
  created_at: Timestamp
  last_updated: Timestamp
  /** When the item's latest absolute quantity stands: sales sold at or before it are history. */
  anchored_at: Timestamp
  deleted_at: Date | null
}

export interface StockMovementTable {
  sequence: Generated<string>
  account_id: string
  environment: Environment
  item_id: string
  kind: MovementKind
  delta: Numeric
  quantity_before: Numeric
  quantity_after: Numeric
  actor: string
  reference_id: string | null
  occurred_at: Timestamp
  recorded_at: Timestamp
  location_id: string
  unit_cost: Numeric
  /** An absolute quantity (count, starting stock, PUT or batch quantity): anchor_quantity is what it set at occurred_at. */
  anchor: ColumnType<boolean, boolean | undefined, boolean>
  anchor_quantity: Numeric | null
}

export interface StockSaleUsageTable {
  sequence: Generated<string>
  account_id: string
  environment: Environment
  /** The depleted item and its location: where the stock was taken. */
  item_id: string
  location_id: string
  /** Where the line was sold: another location than location_id when that one does not stock the SKU. */
  sale_location_id: string
  sale_line: Numeric
  recipe_id: string | null
  sold_at: Timestamp
  units: Numeric
  unit_cost: Numeric
  applied: boolean
  batch_id: string
  recorded_at: Timestamp
}

/** An item's cost from a moment on (migrations/20261127141000_item_cost_history.sql; item-costs.ts). */
export interface InventoryItemCostTable {
  sequence: Generated<string>
  account_id: string
  environment: Environment
  item_id: string
  /** -infinity for the cost an item was created with. */
  effective_at: Timestamp
  unit_cost: Numeric
  source: 'created' | 'delivery' | 'updated'
  reference_id: string | null
  recorded_at: Generated<Date>
}

export type MovementKind = 'count' | 'adjustment' | 'batch' | 'delivery' | 'sale' | 'transfer' | 'waste'

export interface InventoryCountTable {
  id: string
  account_id: string
  environment: Environment
  location_id: string
  counted_by: string
  counted_at: Timestamp
  items_updated: number
  created_at: Timestamp
}

export interface InventoryCountLineTable {
  count_id: string
  item_id: string
  expected: Numeric
  actual: Numeric
  notes: string | null
  /** The open containers' weights in grams the line was counted from; null when counted by eye. */
  weights_g: ColumnType<string[] | null, string[] | null | undefined, string[] | null>
  /** The count's counted_at and created_at, copied so an item's counts read in time order from one index. */
  counted_at: Timestamp
  recorded_at: Timestamp
}

declare module '../platform/db/database.js' {
  interface Database {
    inventory_items: InventoryItemTable
    stock_movements: StockMovementTable
    inventory_counts: InventoryCountTable
    inventory_count_lines: InventoryCountLineTable
    stock_sale_usage: StockSaleUsageTable
    inventory_item_costs: InventoryItemCostTable
  }
}
