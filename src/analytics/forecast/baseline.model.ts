import { WEEK_DAYS } from './mstl.model.js'

/** Days the trailing-mean forecast averages. */
export const MEAN_WINDOW_DAYS = 28

/** Forecasts `horizon` days by repeating the last observed week (seasonal naive). */
export function forecastSeasonalNaive(series: readonly number[], horizon: number): number[] {
  const lastWeek = series.slice(-WEEK_DAYS)
  return Array.from({ length: horizon }, (_, day) => lastWeek[day % lastWeek.length] ?? 0)
}

/** Forecasts `horizon` days as the mean of the last MEAN_WINDOW_DAYS days (fewer when shorter). */
export function forecastTrailingMean(series: readonly number[], horizon: number): number[] {
  const level = mean(series.slice(-MEAN_WINDOW_DAYS))
  return Array.from({ length: horizon }, () => level)
}

export function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0)
}

/** Arithmetic mean; 0 for no values. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return 0
  return sum(values) / values.length
}
