import type { ColumnType, Generated } from 'kysely'
import type { Environment, Numeric, Timestamp } from '../../platform/db/database.js'
import type { HolidayEffect } from './index.js'

/** A date column, read as `YYYY-MM-DD` text (the repository casts it) and written as that text. */
type DateText = ColumnType<string, string, string>

/** The latest successful fit of one item's demand (docs/forecasts.md). */
export interface DemandForecastTable {
  account_id: string
  environment: Environment
  item_id: string
  /** 30 daily values, in the item's unit; the first is history_through + 1. */
  daily: ColumnType<string[], string[], string[]>
  backtest_wape: Numeric | null
  daily_error_stdev: Numeric
  /** Root mean square of the back-test's 14-day total errors; null for rows stored before it (20261127143000). */
  horizon_error_stdev: Numeric | null
  seasonality: 'weekly' | 'none'
  trend: 'increasing' | 'decreasing' | 'stable'
  model: string
  history_days: number
  history_through: DateText
  fitted_at: Date
  /** The holiday days of `daily` scaled by the location's past occurrences (20261127150000); written as JSON text. */
  holiday_effects: ColumnType<HolidayEffect[], string | undefined, string>
}

/** Per tenant: when its forecasts are next due, what the last refit saw, and the lease of a running one. */
export interface ForecastRefitTable {
  account_id: string
  environment: Environment
  /** Due on the workers' clock (the job columns of src/platform/jobs.ts). */
  next_attempt_at: Date
  fitted_as_of: Date | null
  seen_sequence: ColumnType<string, string | undefined, string>
  lease_expires_at: Date | null
  attempts: Generated<number>
  failures: ColumnType<number, number | undefined, number>
  last_error: string | null
  updated_at: Timestamp
}

declare module '../../platform/db/database.js' {
  interface Database {
    demand_forecasts: DemandForecastTable
    forecast_refits: ForecastRefitTable
  }
}
