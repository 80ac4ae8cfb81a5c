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
  transfers_in: Numeric
  transfers_out: Numeric
  waste_units: Numeric
  waste_cost: Numeric
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

/** Unmapped sale lines per POS item, name and business day (migrations/20261126150000_analytics_unmapped_sale_days.sql), kept by a trigger. */
export interface AnalyticsUnmappedSaleDayTable {
  account_id: string
  environment: Environment
  location_id: string
  business_day: string
  connection_id: string
  pos_item_id: string
  name: string
  sale_lines: Numeric
  quantity: Numeric
}

/** A POS connection's revenue per location and business day (migrations/20261128130000_analytics_pos_location_days.sql). */
export interface AnalyticsPosLocationDayTable {
  account_id: string
  environment: Environment
  location_id: string
  business_day: string
  connection_id: string
  revenue: Numeric
  mapped_revenue: Numeric
}

/** Count windows' measured facts (migrations/20261122130000_analytics_count_windows.sql), forgotten by triggers. */
export interface AnalyticsCountWindowTable {
  account_id: string
  environment: Environment
  item_id: string
  opening_count_id: string
  closing_count_id: string
  opening_at: Date
  closing_at: Date
  deliveries: Numeric
  usage_units: Numeric
  sale_lines: Numeric
  lowest_net: Numeric | null
  transfers_in: Numeric
  transfers_out: Numeric
  waste_units: Numeric
  waste_cost: Numeric
}

declare module '../platform/db/database.js' {
  interface Database {
    analytics_item_days: AnalyticsItemDayTable
    analytics_pos_item_days: AnalyticsPosItemDayTable
    analytics_pos_location_days: AnalyticsPosLocationDayTable
    analytics_unmapped_sale_days: AnalyticsUnmappedSaleDayTable
    analytics_count_windows: AnalyticsCountWindowTable
  }
}
