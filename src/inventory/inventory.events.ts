/** The inventory events of the spec's Events table, with their exact `data` fields. */
export interface InventoryUpdatedData {
  item_id: string
  name: string
  previous_quantity: number
  new_quantity: number
  change: number
  location: string
  updated_by: string
}

export interface InventoryLowStockData {
  item_id: string
  name: string
  current_quantity: number
  reorder_point: number
  location: string
  recommended_order: number
}

export interface InventoryCountCompletedData {
  count_id: string
  location: string
  items_counted: number
  variance_detected: number
  counted_by: string
}

declare module '../platform/outbox.js' {
  interface EventCatalog {
    'inventory.updated': InventoryUpdatedData
    'inventory.low_stock': InventoryLowStockData
    'inventory.count_completed': InventoryCountCompletedData
  }
}
