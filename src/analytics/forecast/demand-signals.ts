import { mean } from './baseline.model.js'
import { WEEK_DAYS } from './mstl.model.js'

/**
 * Strength of the weekly season, 1 − Var(remainder) / Var(season + remainder) (Hyndman's F_S, floored
 * at 0), from a classical decomposition: a centred 7-day moving average is the trend, the mean
 * detrended value of each weekday the season. 0 for under two weeks or a constant series.
 */
export function weeklySeasonalStrength(series: readonly number[]): number {
  if (series.length < 2 * WEEK_DAYS) return 0
  const half = Math.floor(WEEK_DAYS / 2)
  // Detrended values for the days whose centred week lies inside the series.
  const detrended: { weekday: number; value: number }[] = []
  for (let day = half; day < series.length - half; day++) {
    const trend = mean(series.slice(day - half, day + half + 1))
    detrended.push({ weekday: day % WEEK_DAYS, value: (series[day] ?? 0) - trend })
  }
  const weekdayMeans = Array.from({ length: WEEK_DAYS }, (_, weekday) => mean(detrended.filter((point) => point.weekday === weekday).map((point) => point.value)))
  const seasonalPlusRemainder = detrended.map((point) => point.value)
  const remainder = detrended.map((point) => point.value - (weekdayMeans[point.weekday] ?? 0))
  const total = variance(seasonalPlusRemainder)
  if (total === 0) return 0
  return Math.max(0, 1 - variance(remainder) / total)
}

export interface RecentSlope {
  /** Theil–Sen slope (median of pairwise slopes, robust to a spike) of the weekly means, units per day. */
  perDay: number
  /** Its standard error from the weekly means' scatter about the line (as for least squares), units per day. */
  standardError: number
}

/**
 * The slope of the weekly means of the last `weeks` full weeks (weekly means cancel the weekly season);
 * 0 ± 0 with fewer than three weeks.
 */
export function recentSlope(series: readonly number[], weeks: number): RecentSlope {
  const fullWeeks = Math.min(weeks, Math.floor(series.length / WEEK_DAYS))
  if (fullWeeks < 3) return { perDay: 0, standardError: 0 }
  const start = series.length - fullWeeks * WEEK_DAYS
  const weekly = Array.from({ length: fullWeeks }, (_, week) => mean(series.slice(start + week * WEEK_DAYS, start + (week + 1) * WEEK_DAYS)))
  const slopes: number[] = []
  for (let later = 1; later < weekly.length; later++) {
    for (let earlier = 0; earlier < later; earlier++) {
      slopes.push(((weekly[later] ?? 0) - (weekly[earlier] ?? 0)) / (later - earlier))
    }
  }
  const slope = median(slopes)
  const centre = (fullWeeks - 1) / 2
  const intercept = mean(weekly) - slope * centre
  const residuals = weekly.map((value, week) => value - (intercept + slope * week))
  const spread = weekly.reduce((sum, _, week) => sum + (week - centre) ** 2, 0)
  const residualVariance = residuals.reduce((sum, value) => sum + value * value, 0) / (fullWeeks - 2)
  return { perDay: slope / WEEK_DAYS, standardError: Math.sqrt(residualVariance / spread) / WEEK_DAYS }
}

/** Scale of the median absolute deviation that estimates a normal standard deviation. */
export const MAD_TO_STANDARD_DEVIATION = 1.4826

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

function variance(values: readonly number[]): number {
  const average = mean(values)
  return mean(values.map((value) => (value - average) ** 2))
}
