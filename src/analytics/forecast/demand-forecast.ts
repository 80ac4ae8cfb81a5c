import { forecastSeasonalNaive, forecastTrailingMean, mean } from './baseline.model.js'
import { type BacktestPlan, type Forecaster, rootMeanSquare, runBacktest, wapeOf } from './backtest.js'
import { recentSlope, weeklySeasonalStrength } from './demand-signals.js'
import { forecastMstlEts } from './mstl.model.js'
import { forecastProfileEts } from './profile-ets.model.js'

export interface DemandForecast {
  /** Forecast daily demand for the next FORECAST_HORIZON_DAYS (30) days, first = the day after the last observed day; never negative. */
  daily: number[]
  /** Rolling-origin back-test: weighted absolute percentage error (Σ|error| / Σ actual) over the held-out days; null when the back-test could not run (too short) or actuals sum to 0. */
  backtestWape: number | null
  /** Standard deviation of one day's back-test error (same units as the series), for safety stock. */
  dailyErrorStdDev: number
  /**
   * Root mean square of the back-test's errors of BACKTEST_PLAN.horizon-day totals (one per origin): what
   * an order covering that many days misses by, with the errors that persist from day to day (a level
   * off for the whole horizon) that dailyErrorStdDev × √days leaves out. Without a back-test,
   * dailyErrorStdDev × √horizon.
   */
  horizonErrorStdDev: number
  seasonality: 'weekly' | 'none'
  trend: 'increasing' | 'decreasing' | 'stable'
  /** Which model produced `daily` (e.g. 'profile_ets', 'mstl_ets', 'seasonal_naive', 'mean'), for docs and debugging. */
  model: ModelName
}

export type ModelName = 'profile_ets' | 'mstl_ets' | 'seasonal_naive' | 'mean'

export interface ForecastOptions {
  /**
   * Candidate models, in order of preference: the one with the least back-test error wins, an earlier
   * one on a tie or when the back-test cannot run. Default DEFAULT_MODELS.
   */
  models?: readonly ModelName[]
  /** profile_ets's smoothed level weight (the refit pools one per location: locationAdjustments); default SMOOTHED_LEVEL_ALPHA. */
  smoothingAlpha?: number
}

export const MIN_HISTORY_DAYS = 14
export const FORECAST_HORIZON_DAYS = 30
/**
 * Recent days the models are fitted on: 24 weeks. 16 weeks before 2026-11-27; 24 gave the weekly level and
 * the weekday profile more weeks and lowered the error of 14-day totals on the synthetic bench (0.681 →
 * 0.659 × seasonal naive's, each replicate lower) and on real sales (docs/forecast-accuracy.md).
 */
export const FIT_WINDOW_DAYS = 168
/** The back-test: 4 origins a week apart, each forecasting 14 days from the days before it. */
export const BACKTEST_PLAN: BacktestPlan = { horizon: 14, origins: 4, step: 7, minTraining: MIN_HISTORY_DAYS, window: FIT_WINDOW_DAYS }
/** Weekly seasonality is reported from this strength of the weekly component (0 to 1) upwards. */
export const WEEKLY_STRENGTH_THRESHOLD = 0.4
/** A trend is reported when the recent slope changes demand over the 30-day horizon by more than this share of the level. */
export const TREND_CHANGE_THRESHOLD = 0.1
/** A slope counts as a trend only this many standard errors away from 0. */
export const TREND_SIGNIFICANCE = 2
/** Weeks the trend slope is measured over. */
export const TREND_WEEKS = 8
/**
 * The weekday profile × AutoETS model alone: choosing per item among it, MSTL, seasonal naive and the
 * 28-day mean by the back-test measured worse (mean WAPE 32.4 % vs 31.7 %, docs/forecast-accuracy.md),
 * since 4 origins of 14 days pick by noise as often as by fit.
 */
export const DEFAULT_MODELS: readonly ModelName[] = ['profile_ets']

function forecastersFor(options: ForecastOptions): Record<ModelName, Forecaster> {
  return {
    profile_ets: (series, horizon) => forecastProfileEts(series, horizon, { smoothingAlpha: options.smoothingAlpha }),
    mstl_ets: forecastMstlEts,
    seasonal_naive: forecastSeasonalNaive,
    mean: forecastTrailingMean,
  }
}

/**
 * Fits a daily demand series (oldest first, one value per business day, zeros for days without sales).
 * Throws if shorter than MIN_HISTORY_DAYS.
 */
export function forecastDemand(series: number[], options: ForecastOptions = {}): DemandForecast {
  if (series.length < MIN_HISTORY_DAYS) {
    throw new RangeError(`a demand forecast needs ${MIN_HISTORY_DAYS} days of history, got ${series.length}`)
  }
  const models = options.models ?? DEFAULT_MODELS
  const forecasters = forecastersFor(options)
  const chosen = chooseModel(series, models, forecasters)
  const recent = series.slice(-FIT_WINDOW_DAYS)
  // Without a back-test, the spread of demand itself: what a forecast that knew only the level would miss by.
  const dailyErrorStdDev = chosen.backtest ? rootMeanSquare(chosen.backtest.errors) : standardDeviation(recent)
  return {
    daily: forecasters[chosen.model](recent, FORECAST_HORIZON_DAYS),
    backtestWape: chosen.backtest ? wapeOf(chosen.backtest) : null,
    dailyErrorStdDev,
    horizonErrorStdDev: chosen.backtest ? rootMeanSquare(chosen.backtest.totalErrors) : dailyErrorStdDev * Math.sqrt(BACKTEST_PLAN.horizon),
    seasonality: weeklySeasonalStrength(recent) >= WEEKLY_STRENGTH_THRESHOLD ? 'weekly' : 'none',
    trend: trendOf(series),
    model: chosen.model,
  }
}

/** The candidate with the least back-test absolute error (the first on a tie or without a back-test). */
function chooseModel(series: readonly number[], models: readonly ModelName[], forecasters: Record<ModelName, Forecaster>) {
  const [first] = models
  if (first === undefined) throw new RangeError('forecastDemand needs at least one model')
  let best = { model: first, backtest: runBacktest(series, forecasters[first], BACKTEST_PLAN) }
  if (best.backtest === null) return best
  for (const model of models.slice(1)) {
    const backtest = runBacktest(series, forecasters[model], BACKTEST_PLAN)
    if (backtest && backtest.absoluteError < (best.backtest?.absoluteError ?? Infinity)) best = { model, backtest }
  }
  return best
}

/**
 * 'increasing' or 'decreasing' when the recent slope moves demand over the horizon by more than
 * TREND_CHANGE_THRESHOLD of the last 28 days' level and lies over TREND_SIGNIFICANCE standard errors
 * from 0 (so noise at a low level is not read as a trend); else 'stable'.
 */
export function trendOf(series: readonly number[]): DemandForecast['trend'] {
  const level = mean(series.slice(-28))
  const slope = recentSlope(series, TREND_WEEKS)
  if (level <= 0 || Math.abs(slope.perDay) <= TREND_SIGNIFICANCE * slope.standardError) return 'stable'
  const change = (slope.perDay * FORECAST_HORIZON_DAYS) / level
  if (change > TREND_CHANGE_THRESHOLD) return 'increasing'
  if (change < -TREND_CHANGE_THRESHOLD) return 'decreasing'
  return 'stable'
}

function standardDeviation(values: readonly number[]): number {
  const average = mean(values)
  return Math.sqrt(mean(values.map((value) => (value - average) ** 2)))
}
