import { mean } from './baseline.model.js'
import { MAD_TO_STANDARD_DEVIATION, median } from './demand-signals.js'
import { WEEK_DAYS } from './mstl.model.js'

/** The most recent weeks a break is looked for in: an older one, AutoETS's level has already followed. */
const BREAK_RECENT_WEEKS = 3
/** A new level must lie this many standard errors from the earlier weeks' mean and from their line. */
const BREAK_STANDARD_ERRORS = 5

/**
 * How many of the last weeks (1 to BREAK_RECENT_WEEKS, the fewest first) sit on a new level, or null:
 * their mean differs from the mean of the weeks before them, and from the line through those weeks
 * carried forward (so a steady trend is not a break), by more than BREAK_STANDARD_ERRORS standard errors
 * each, the same way. Exponential smoothing fitted on weekly means needs weeks to trust a new level; a
 * clear break (a new menu, a promotion, a season's end) should not wait for that.
 *
 * A weekly mean's standard deviation is the larger of a robust estimate, the median absolute difference
 * between successive weeks × 1.4826 ÷ √2 (a break or a trend moves few of those differences), and
 * Poisson's √(mean ÷ 7), so a series without noise or of a few units a week does not break on a small
 * change. On the forecast bench's 639 series it changed no stationary family's error and lowered the
 * level shifts' (docs/forecast-accuracy.md).
 */
export function recentLevelBreak(weeklyMeans: readonly number[]): number | null {
  const spread = weeklyStandardDeviation(weeklyMeans)
  if (spread === 0) return null
  for (let recentWeeks = 1; recentWeeks <= BREAK_RECENT_WEEKS; recentWeeks++) {
    const earlier = weeklyMeans.slice(0, -recentWeeks)
    if (earlier.length < 2) return null
    const recent = mean(weeklyMeans.slice(-recentWeeks))
    const standardError = spread * Math.sqrt(1 / recentWeeks + 1 / earlier.length)
    const fromMean = (recent - mean(earlier)) / standardError
    const line = leastSquaresLine(earlier)
    const carriedForward = mean(Array.from({ length: recentWeeks }, (_, week) => line(earlier.length + week)))
    const fromLine = (recent - carriedForward) / standardError
    if (Math.min(Math.abs(fromMean), Math.abs(fromLine)) > BREAK_STANDARD_ERRORS && Math.sign(fromMean) === Math.sign(fromLine)) {
      return recentWeeks
    }
  }
  return null
}

function weeklyStandardDeviation(weeklyMeans: readonly number[]): number {
  const differences = weeklyMeans.slice(1).map((value, week) => Math.abs(value - (weeklyMeans[week] ?? 0)))
  const robust = (MAD_TO_STANDARD_DEVIATION * median(differences)) / Math.SQRT2
  const poisson = Math.sqrt(Math.max(0, mean(weeklyMeans)) / WEEK_DAYS)
  return Math.max(robust, poisson)
}

/** The least-squares line through `values` at x = 0, 1, …, as a function of x. */
function leastSquaresLine(values: readonly number[]): (x: number) => number {
  const centre = (values.length - 1) / 2
  const average = mean(values)
  let covariance = 0
  let spread = 0
  values.forEach((value, x) => {
    covariance += (x - centre) * (value - average)
    spread += (x - centre) ** 2
  })
  const slope = spread > 0 ? covariance / spread : 0
  return (x) => average + slope * (x - centre)
}
