import { AutoETS } from '@bsull/augurs/ets'
import { initForecasting } from './augurs.js'
import { mean, sum } from './baseline.model.js'
import { MAD_TO_STANDARD_DEVIATION, median, recentSlope } from './demand-signals.js'
import { recentLevelBreak } from './level-break.js'
import { WEEK_DAYS } from './mstl.model.js'

/** Days either side of a day whose median deseasonalised demand is that day's local level (spike clipping). */
const LOCAL_LEVEL_RADIUS_DAYS = 10
/** A day above its expected demand by more than this many robust standard deviations is clipped to that bound. */
const SPIKE_DEVIATIONS = 3
/**
 * What a clipped day gives back to the forecast's average: its sales up to this many robust standard
 * deviations above expected (twice the clipping bound), so a recurring busy day counts at its rate while
 * a one-off huge spike (a party, a miscount) adds almost nothing.
 */
const RECURRING_SPIKE_DEVIATIONS = 2 * SPIKE_DEVIATIONS
/**
 * AutoETS's model search: additive errors (sales have zeros, which multiplicative errors cannot take),
 * the trend component left to the search, no season (the weekday profile has taken it out).
 */
const ETS_SPEC = 'AZN'

/**
 * Weeks of history from which the level is fitted on weekly means: AutoETS with a trend estimates 4
 * parameters and refuses 8 points or fewer.
 */
const MIN_WEEKS_FOR_WEEKLY_LEVEL = 9

/**
 * augurs' AutoETS cannot fit the trendless ANN model (every series gives "no model found"), so its
 * search always ends in a trend (AAN or damped), on noisy items as on trending ones. Where the slope of
 * the last SLOPE_WEEKS weekly means lies within SLOPE_STANDARD_ERRORS standard errors of 0, the level is
 * the average of AutoETS's forecast and simple exponential smoothing's level with this weight on the
 * newest weekly mean (docs/forecast-accuracy.md, "Real sales"), unless the caller gives one
 * (ProfileOptions.smoothingAlpha: the refit pools it across a location's items).
 */
export const SMOOTHED_LEVEL_ALPHA = 0.2
/** Weekly means whose mean starts the smoothed level. */
export const SMOOTHING_START_POINTS = 4
/** Weeks the slope is measured over, as for the trend label. */
const SLOPE_WEEKS = 8
/** A slope this many standard errors from 0 is a trend, as for the trend label. */
const SLOPE_STANDARD_ERRORS = 2

export interface ProfileOptions {
  /** The smoothed level's weight on the newest weekly mean; default SMOOTHED_LEVEL_ALPHA. */
  smoothingAlpha?: number
  /**
   * 'theta': the weekly level by the Theta method (thetaLevel) instead of AutoETS and the smoothing
   * average, for a location's total (locationTrendFactor); default 'ets'.
   */
  level?: 'ets' | 'theta'
}

/**
 * Forecasts `horizon` days after `series` as a weekday profile × a level: one-off spikes in the history
 * are clipped (clipSpikes), the multiplicative weekday profile of the clipped days is estimated, and
 * augurs' AutoETS forecasts the level (with a trend where its model search finds one) from the clipped
 * days' weekly means (forecastLevel); each forecast day is that level, plus the clipped spikes' average
 * rate, × its weekday's factor, never negative. A multiplicative week follows demand that grows or
 * shrinks (a busy Saturday stays twice a Monday), which MSTL's additive season does not.
 */
export function forecastProfileEts(series: readonly number[], horizon: number, options: ProfileOptions = {}): number[] {
  const rawProfile = weekdayProfile(series)
  if (rawProfile === null) return new Array<number>(horizon).fill(0)
  const bounds = spikeBounds(series, rawProfile)
  const clipped = clipAt(series, bounds, SPIKE_DEVIATIONS)
  const profile = weekdayProfile(clipped) ?? rawProfile
  // Clipping keeps a spike from moving the level, but busy days do recur: their average rate (up to
  // RECURRING_SPIKE_DEVIATIONS) is added back, or the forecast falls short by it (on real restaurant
  // sales the 14-day totals' bias went from -4.3 % to -2.4 %, docs/forecast-accuracy.md).
  const recurring = clipAt(series, bounds, RECURRING_SPIKE_DEVIATIONS)
  const clippedPerDay = (sum(recurring) - sum(clipped)) / series.length
  const level = forecastLevel(clipped, profile, horizon, options)
  return level.map((value, day) => Math.max(0, (value + clippedPerDay) * (profile[(series.length + day) % WEEK_DAYS] ?? 1)))
}

/**
 * Each weekday's mean demand ÷ the mean of the seven weekday means (so the factors average 1), indexed
 * by day % 7 of `series`, shrunk towards 1 by how much of their spread sampling noise alone would give
 * (empirical Bayes: weight = 1 − noise variance ÷ observed variance of the factors, at least 0), so a
 * flat or sparse item is not given a week its noise drew; null when nothing sold.
 */
export function weekdayProfile(series: readonly number[]): number[] | null {
  const weekdays = Array.from({ length: WEEK_DAYS }, (_, weekday) => series.filter((_, day) => day % WEEK_DAYS === weekday))
  const weekdayMeans = weekdays.map((values) => mean(values))
  const overall = mean(weekdayMeans)
  if (overall <= 0) return null
  const factors = weekdayMeans.map((value) => value / overall)
  const squaredDeviations = weekdays.flatMap((values, weekday) => values.map((value) => (value - (weekdayMeans[weekday] ?? 0)) ** 2))
  const withinVariance = squaredDeviations.reduce((sum, value) => sum + value, 0) / Math.max(1, series.length - WEEK_DAYS)
  const noiseVariance = mean(weekdays.map((values) => withinVariance / Math.max(1, values.length))) / overall ** 2
  const observedVariance = mean(factors.map((factor) => (factor - 1) ** 2))
  const weight = observedVariance > 0 ? Math.max(0, 1 - noiseVariance / observedVariance) : 0
  return factors.map((factor) => 1 + weight * (factor - 1))
}

/**
 * The series with one-off spikes (an event, a party, a miscount) cut down: a day's expected demand is
 * its local level (the median deseasonalised demand within LOCAL_LEVEL_RADIUS_DAYS) × its weekday
 * factor, and a day above it by more than SPIKE_DEVIATIONS standard deviations is set to that bound. The
 * standard deviation is the robust one of all days' deviations, at least Poisson's √expected, so a
 * low-volume item whose usual deviation is 0 keeps its ordinary sales. Only the training data is
 * clipped: the back-test still scores forecasts against what sold.
 */
export function clipSpikes(series: readonly number[], profile: readonly number[]): number[] {
  return clipAt(series, spikeBounds(series, profile), SPIKE_DEVIATIONS)
}

/** Each day's expected demand and standard deviation, as clipSpikes measures them. */
interface SpikeBounds {
  expected: number[]
  deviation: number[]
}

function spikeBounds(series: readonly number[], profile: readonly number[]): SpikeBounds {
  const deseasonalised = deseasonalise(series, profile)
  const expected = series.map((_, day) => {
    const neighbours = deseasonalised.slice(Math.max(0, day - LOCAL_LEVEL_RADIUS_DAYS), day + LOCAL_LEVEL_RADIUS_DAYS + 1)
    return median(neighbours) * (profile[day % WEEK_DAYS] ?? 1)
  })
  const spread = MAD_TO_STANDARD_DEVIATION * median(series.map((value, day) => Math.abs(value - (expected[day] ?? 0))))
  return { expected, deviation: expected.map((usual) => Math.max(spread, Math.sqrt(Math.max(usual, 1)))) }
}

/** The series with each day cut to its expected demand + `deviations` standard deviations. */
function clipAt(series: readonly number[], bounds: SpikeBounds, deviations: number): number[] {
  return series.map((value, day) => Math.min(value, (bounds.expected[day] ?? 0) + deviations * (bounds.deviation[day] ?? 0)))
}

/**
 * Demand ÷ its weekday factor. A factor of 0 (a weekday that sold nothing, in a week without noise to
 * shrink it) says nothing about the level: its days repeat the previous deseasonalised value (the first
 * known one at the start), which leaves exponential smoothing's level where it was.
 */
function deseasonalise(series: readonly number[], profile: readonly number[]): number[] {
  const known = series.map((value, day) => {
    const factor = profile[day % WEEK_DAYS] ?? 0
    return factor > 0 ? value / factor : null
  })
  let previous = known.find((value) => value !== null) ?? 0
  return known.map((value) => (previous = value ?? previous))
}

/**
 * The level's next `horizon` days (demand per day with the week taken out). With
 * MIN_WEEKS_FOR_WEEKLY_LEVEL full weeks, AutoETS is fitted on the weekly means of the days themselves
 * (the last week ending on the last day; a partial first week is left out) and each forecast week's
 * level holds for its seven days. A week's factors add up to 7, so its mean demand is its level: no
 * division by factors is needed, and dividing each day by its estimated factor first made the level
 * biased low (a day of high sales raises its own weekday's factor, so dividing by it shrinks that day:
 * -4.9 % on real sales, against -0.1 % for the plain mean) and noisier (a quiet weekday's small factor
 * magnifies its noise). A weekly mean also carries a seventh of a day's noise variance, so the model
 * search reads less noise as trend. When the last weeks broke clearly from the ones before
 * (recentLevelBreak), the level is the mean of the days since the break, flat, rather than a smoothing
 * that would take weeks to follow it. Shorter histories are fitted day by day on the deseasonalised days.
 */
function forecastLevel(series: readonly number[], profile: readonly number[], horizon: number, options: ProfileOptions): number[] {
  if (Math.floor(series.length / WEEK_DAYS) < MIN_WEEKS_FOR_WEEKLY_LEVEL) return fitEts(deseasonalise(series, profile), horizon)
  const weeklyMeans = weeklyMeansOf(series)
  const breakWeeks = recentLevelBreak(weeklyMeans)
  if (breakWeeks !== null) return new Array<number>(horizon).fill(mean(series.slice(-breakWeeks * WEEK_DAYS)))
  const forecastWeeks = Math.ceil(horizon / WEEK_DAYS)
  if (options.level === 'theta') {
    const theta = thetaLevel(weeklyMeans, forecastWeeks)
    return Array.from({ length: horizon }, (_, day) => theta[Math.floor(day / WEEK_DAYS)] ?? 0)
  }
  const weekly = fitEts(weeklyMeans, forecastWeeks)
  const slope = recentSlope(series, SLOPE_WEEKS)
  const trendIsNoise = Math.abs(slope.perDay) <= SLOPE_STANDARD_ERRORS * slope.standardError
  // Where the recent slope is within noise of 0, the trend AutoETS carries forward is mostly noise: the
  // level is averaged with a smoothed level that carries none.
  const smoothed = trendIsNoise ? exponentiallySmoothedLevel(weeklyMeans, options.smoothingAlpha ?? SMOOTHED_LEVEL_ALPHA) : null
  return Array.from({ length: horizon }, (_, day) => {
    const level = weekly[Math.floor(day / WEEK_DAYS)] ?? 0
    return smoothed === null ? level : (level + smoothed) / 2
  })
}

/** The mean of each full week of `series`, the last week ending on its last day (a partial first week left out). */
export function weeklyMeansOf(series: readonly number[]): number[] {
  const weeks = Math.floor(series.length / WEEK_DAYS)
  const firstDay = series.length - weeks * WEEK_DAYS
  return Array.from({ length: weeks }, (_, week) => mean(series.slice(firstDay + week * WEEK_DAYS, firstDay + (week + 1) * WEEK_DAYS)))
}

/**
 * Simple exponential smoothing's level after `values` (started at the mean of the first
 * SMOOTHING_START_POINTS): with `alpha` 0.2 on weekly means, a week's weight halves in about 3 weeks.
 */
function exponentiallySmoothedLevel(values: readonly number[], alpha: number): number {
  let level = mean(values.slice(0, SMOOTHING_START_POINTS))
  for (const value of values) level += alpha * (value - level)
  return level
}

/** Smoothing weights the Theta method's level is chosen among (least squared one-step error). */
const THETA_ALPHAS = Array.from({ length: 19 }, (_, step) => (step + 1) * 0.05)

/**
 * The Theta method (Assimakopoulos and Nikolopoulos; Hyndman and Billah's form, simple exponential
 * smoothing with drift) for `weeks` points after `values`: the smoothed level (the weight of least
 * squared one-step error, started at the first value) carried forward with half the least-squares slope
 * of all the values as drift.
 */
function thetaLevel(values: readonly number[], weeks: number): number[] {
  let best = { squaredError: Infinity, alpha: SMOOTHED_LEVEL_ALPHA, level: values[0] ?? 0 }
  for (const alpha of THETA_ALPHAS) {
    let level = values[0] ?? 0
    let squaredError = 0
    for (const value of values.slice(1)) {
      squaredError += (value - level) ** 2
      level += alpha * (value - level)
    }
    if (squaredError < best.squaredError) best = { squaredError, alpha, level }
  }
  const centre = (values.length - 1) / 2
  const average = mean(values)
  const spread = values.reduce((total, _, x) => total + (x - centre) ** 2, 0)
  const slope = spread > 0 ? values.reduce((total, value, x) => total + (x - centre) * (value - average), 0) / spread : 0
  const { alpha, level } = best
  return Array.from({ length: weeks }, (_, ahead) => level + (slope / 2) * (ahead + 1 / alpha - (1 - alpha) ** values.length / alpha))
}

/** AutoETS (ETS_SPEC) forecast of `horizon` points after `values`. */
function fitEts(values: readonly number[], horizon: number): number[] {
  initForecasting()
  const model = new AutoETS(1, ETS_SPEC)
  try {
    model.fit(Float64Array.from(values))
    return model.predict(horizon).point
  } finally {
    // The model lives in WebAssembly memory, which the garbage collector does not see.
    model.free()
  }
}
