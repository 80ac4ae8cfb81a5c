import { mean, sum } from './baseline.model.js'
import { BACKTEST_PLAN, FIT_WINDOW_DAYS } from './demand-forecast.js'
import { WEEK_DAYS } from './mstl.model.js'
import { forecastProfileEts, SMOOTHED_LEVEL_ALPHA, SMOOTHING_START_POINTS, weeklyMeansOf } from './profile-ets.model.js'

/**
 * What a location's items share, measured across all of them at a refit (issue 22's third pass,
 * docs/forecast-accuracy.md): on real restaurant sales the items' errors move together, which no item's
 * own history shows.
 */
export interface LocationAdjustments {
  /** The smoothed level's weight for every item of the location (pooledSmoothingAlpha). */
  smoothingAlpha: number
  /** What every item's forecast is multiplied by (locationTrendFactor). */
  trendFactor: number
}

/** Adjustments that change nothing: the model as it forecasts one item alone. */
export const NO_LOCATION_ADJUSTMENTS: LocationAdjustments = { smoothingAlpha: SMOOTHED_LEVEL_ALPHA, trendFactor: 1 }

/** The smoothing weights pooledSmoothingAlpha chooses among. */
const POOLED_ALPHAS = [0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5]
/** Items with fewer days in the fit window are left out of the pooled choice (the model's weekly level needs 9 weeks). */
const MIN_POOLED_DAYS = 9 * WEEK_DAYS

/**
 * The location's adjustments from its items' daily series (oldest first, each ending on the same last
 * day, as the refit reads them).
 */
export function locationAdjustments(items: readonly (readonly number[])[]): LocationAdjustments {
  const windows = items.map((series) => series.slice(-FIT_WINDOW_DAYS))
  const total = new Array<number>(Math.max(0, ...windows.map((series) => series.length))).fill(0)
  for (const series of windows) {
    const offset = total.length - series.length
    series.forEach((value, day) => {
      total[offset + day] = (total[offset + day] ?? 0) + value
    })
  }
  return { smoothingAlpha: pooledSmoothingAlpha(windows), trendFactor: locationTrendFactor(total) }
}

/**
 * The smoothing weight whose one-step errors on the weekly means of the location's items (each item's
 * errors ÷ its mean, so a best seller does not decide alone) are least: one weight for all, since an
 * item's own weekly means are too few and too noisy to choose one by. Where the items' levels have just
 * moved together it answers a larger weight than the model's fixed 0.2; in quiet times a smaller one.
 * SMOOTHED_LEVEL_ALPHA without an item of 9 weeks that sold.
 */
function pooledSmoothingAlpha(items: readonly (readonly number[])[]): number {
  const weekly = items
    .filter((series) => series.length >= MIN_POOLED_DAYS)
    .map((series) => weeklyMeansOf(series))
    .filter((means) => mean(means) > 0)
  if (weekly.length === 0) return SMOOTHED_LEVEL_ALPHA
  let best = { alpha: SMOOTHED_LEVEL_ALPHA, error: Infinity }
  for (const alpha of POOLED_ALPHAS) {
    let error = 0
    for (const means of weekly) {
      const average = mean(means)
      // Started as the model's smoothed level is.
      let level = mean(means.slice(0, SMOOTHING_START_POINTS))
      for (const value of means) {
        error += ((value - level) / average) ** 2
        level += alpha * (value - level)
      }
    }
    if (error < best.error) best = { alpha, error }
  }
  return best.alpha
}

/**
 * The location's total demand (all its items) forecast with the Theta method's level ÷ forecast with the
 * model's (same weekday profile and clipping), over the back-test's horizon (14 days): what every item's
 * forecast is scaled by. On the total, far less noisy than an item, Theta's drift (half the slope of the
 * fit window's weekly means) keeps a steady growth that the model, on each item, reads as noise and
 * averages away; combined per item instead, Theta measured worse (docs/forecast-accuracy.md, "Third
 * pass"). 1 when the model does not fit the total on weekly means (under 9 weeks, or a level break).
 */
function locationTrendFactor(total: readonly number[]): number {
  const horizon = BACKTEST_PLAN.horizon
  const model = sum(forecastProfileEts(total, horizon))
  const theta = sum(forecastProfileEts(total, horizon, { level: 'theta' }))
  return model > 0 && theta > 0 ? theta / model : 1
}
