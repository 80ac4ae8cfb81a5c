import { sql } from 'kysely'
import type { Executor, Tenant } from '../platform/db/database.js'
import { type Decimal, decimal, sum, ZERO } from '../platform/decimal.js'

/**
 * Demand per item per day, estimated from the sales' per-line usage (history sold before a count included: it is demand). This is the one piece a
 * real forecast (the Analytics domain) replaces: recommendations only need `DemandEstimator`.
 */
export interface DemandEstimate {
  /** Mean units used per day. */
  meanDaily: Decimal
  /** Sample standard deviation of daily use (days without sales count as 0). */
  stdDevDaily: Decimal
  /** Days of sales history the estimate rests on (at most WINDOW_DAYS). */
  daysUsed: number
}

export type DemandEstimator = (db: Executor, tenant: Tenant, itemIds: string[], asOf: Date) => Promise<Map<string, DemandEstimate>>

export const WINDOW_DAYS = 28
export const MIN_HISTORY_DAYS = 14

function estimateFrom(daily: Map<number, Decimal>, historyDays: number): DemandEstimate {
  const days = Math.min(historyDays, WINDOW_DAYS)
  const values = Array.from({ length: days }, (_, daysAgo) => daily.get(daysAgo) ?? ZERO)
  const mean = sum(values).div(days)
  const squares = sum(values.map((value) => value.minus(mean).pow(2)))
  return { meanDaily: mean, stdDevDaily: squares.div(days - 1).sqrt(), daysUsed: days }
}

/**
 * Mean and spread of daily use over the last 28 days (fewer when the item's first sale is more recent),
 * for items whose first sale lies at least 14 days back; other items are absent from the result. Days
 * are 24-hour periods counted back from `asOf`.
 */
export const estimateDemandFromSales: DemandEstimator = async (db, tenant, itemIds, asOf) => {
  if (itemIds.length === 0) return new Map()
  const daysAgo = sql<number>`floor(extract(epoch from (${asOf}::timestamptz - sold_at)) / 86400)::int`
  const sales = db
    .selectFrom('stock_sale_usage')
    .where('account_id', '=', tenant.accountId)
    .where('environment', '=', tenant.environment)
    .where('item_id', 'in', itemIds)
    .where('sold_at', '<=', asOf)
  const [firsts, buckets] = await Promise.all([
    sales.select(['item_id', sql<number>`max(${daysAgo})`.as('days_ago')]).groupBy('item_id').execute(),
    sales
      .select(['item_id', daysAgo.as('days_ago'), sql<string>`sum(units)`.as('used')])
      .where('sold_at', '>', new Date(asOf.getTime() - WINDOW_DAYS * 86_400_000))
      .groupBy(['item_id', 'days_ago'])
      .execute(),
  ])
  const daily = new Map<string, Map<number, Decimal>>()
  for (const bucket of buckets) {
    const perDay = daily.get(bucket.item_id) ?? new Map<number, Decimal>()
    perDay.set(Number(bucket.days_ago), decimal(bucket.used))
    daily.set(bucket.item_id, perDay)
  }
  const estimates = new Map<string, DemandEstimate>()
  for (const first of firsts) {
    // The day of the first sale counts as a day of history.
    const historyDays = Number(first.days_ago) + 1
    if (historyDays < MIN_HISTORY_DAYS) continue
    estimates.set(first.item_id, estimateFrom(daily.get(first.item_id) ?? new Map(), historyDays))
  }
  return estimates
}
