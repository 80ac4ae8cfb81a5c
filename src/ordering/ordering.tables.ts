import type { Generated } from 'kysely'
import type { Environment, Numeric, Timestamp } from '../platform/db/database.js'

export interface DistributorTable {
  id: string
  account_id: string
  environment: Environment
  name: string
  distributor_code: string
  region: string
  contact_email: string
  min_order_amount: Numeric
  lead_time_days: number
  supported_categories: string[]
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: Date | null
}

export interface DistributorCatalogEntryTable {
  distributor_id: string
  inventory_item_id: string
  unit: string
  unit_price: Numeric
  available_quantity: Numeric | null
}

export const ORDER_STATUSES = ['draft', 'submitted', 'processing', 'shipped', 'delivered', 'cancelled'] as const
export type OrderStatus = (typeof ORDER_STATUSES)[number]

export interface OrderTable {
  id: string
  account_id: string
  environment: Environment
  distributor_id: string
  location_id: string
  status: OrderStatus
  notes: string | null
  total_amount: Numeric
  confirmation_number: string | null
  submitted_at: Date | null
  estimated_delivery: Date | null
  tracking_number: string | null
  carrier: string | null
  shipped_at: Date | null
  delivered_at: Date | null
  received_by: string | null
  cancelled_at: Date | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface OrderLineTable {
  order_id: string
  position: number
  inventory_item_id: string
  quantity: Numeric
  unit: string
  units_per_ordered_unit: Numeric
  unit_price: Numeric
  total: Numeric
  quantity_received: Numeric | null
  quantity_damaged: Numeric | null
  /** The damaged part in the item's own unit, as received. */
  units_damaged: Numeric | null
}

export const DISPATCH_STATUSES = ['pending', 'sending', 'sent', 'failed', 'skipped', 'cancelled'] as const
export type DispatchStatus = (typeof DISPATCH_STATUSES)[number]

export interface PurchaseOrderDispatchTable {
  id: string
  account_id: string
  environment: Environment
  order_id: string
  status: DispatchStatus
  attempts: Generated<number>
  last_error: string | null
  next_attempt_at: Timestamp
  /** The job lease (src/platform/jobs.ts): while 'sending', until when its worker holds it. */
  lease_expires_at: Date | null
  sent_at: Date | null
  created_at: Timestamp
  updated_at: Timestamp
}

declare module '../platform/db/database.js' {
  interface Database {
    distributors: DistributorTable
    distributor_catalog_entries: DistributorCatalogEntryTable
    orders: OrderTable
    order_lines: OrderLineTable
    purchase_order_dispatches: PurchaseOrderDispatchTable
  }
}
