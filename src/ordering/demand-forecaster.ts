import type { Executor, Tenant } from '../platform/db/database.js'
import type { Decimal } from '../platform/decimal.js'

/**
 * What recommendations need of an item's demand forecast. Ordering does not make forecasts: the app
 * passes in an implementation (analytics' stored forecasts) when it registers the order routes.
 */
export interface ItemDemandForecast {
  /** Forecast demand per business day in the item's unit, from the current business day on (30 days). */
  daily: Decimal[]
  /**
   * Standard deviation of the forecast's error over a total of `days` days from its first day, in the
   * item's unit (for safety stock): larger than one day's × √days where errors persist across days.
   */
  totalErrorStdDev: (days: number) => number
  /** 0..1, 2 decimals. */
  confidence: number
}

/** The forecasts of those items that have one (others are absent from the map). */
export type DemandForecaster = (db: Executor, tenant: Tenant, itemIds: string[]) => Promise<Map<string, ItemDemandForecast>>
