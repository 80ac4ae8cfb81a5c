import type { Environment, Numeric, Timestamp } from '../platform/db/database.js'

/** One row per tenant once it has saved settings; a null column stands for the default. */
export interface SettingsTable {
  account_id: string
  environment: Environment
  currency: string | null
  variance_threshold: Numeric | null
  target_pour_cost: Numeric | null
  target_variance_rate: Numeric | null
  target_inventory_turnover: Numeric | null
  target_gross_margin: Numeric | null
  created_at: Timestamp
  updated_at: Timestamp
}

declare module '../platform/db/database.js' {
  interface Database {
    settings: SettingsTable
  }
}
