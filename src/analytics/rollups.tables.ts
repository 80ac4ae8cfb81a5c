import type { Environment, Numeric } from '../platform/db/database.js'

/** Analytics' own daily rollups (migrations/20261122120000_analytics_rollups.sql), kept by triggers. */
export interface AnalyticsItemDayTable {
  account_id: string
  environment: Environment
  item_id: string
  location_id: string
  business_day: string
  usage_units: Numeric
  usage_cost: Numeric
  sale_lines: Numeric
  deliveries: Numeric
}

export interface AnalyticsPosItemDayTable {
  account_id: string
  environment: Environment
  connection_id: string
  pos_item_id: string
  location_id: string
  business_day: string
  name: string
  quantity: Numeric
  revenue: Numeric
  mapped_quantity: Numeric
  mapped_revenue: Numeric
}

declare module '../platform/db/database.js' {
  interface Database {
    analytics_item_days: AnalyticsItemDayTable
    analytics_pos_item_days: AnalyticsPosItemDayTable
  }
}
