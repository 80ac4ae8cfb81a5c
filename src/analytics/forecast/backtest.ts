/** A forecaster: the next `horizon` days after `series`. */
export type Forecaster = (series: readonly number[], horizon: number) => number[]

export interface BacktestPlan {
  /** Days forecast from each origin and compared with what happened. */
  horizon: number
  /** Most origins, the latest first, each `step` days before the previous one. */
  origins: number
  step: number
  /** Origins leaving fewer days than this before them are skipped. */
  minTraining: number
  /** Days before each origin the forecaster sees (the most recent ones); Infinity for all. */
  window: number
}

export interface BacktestResult {
  /** Forecast minus actual, for every held-out day of every origin. */
  errors: number[]
  /** Σ forecast − Σ actual over each origin's `horizon` days: the error an order covering the horizon sees. */
  totalErrors: number[]
  absoluteError: number
  actualTotal: number
}

/** Where the back-test cuts `length` days: the latest origin leaves `horizon` days after it. */
export function backtestOrigins(length: number, plan: BacktestPlan): number[] {
  const origins: number[] = []
  for (let index = 0; index < plan.origins; index++) {
    const origin = length - plan.horizon - index * plan.step
    if (origin < plan.minTraining) break
    origins.push(origin)
  }
  return origins
}

/**
 * Rolling-origin back-test: at each origin the forecaster sees only the days before it and forecasts the
 * next `horizon` days; null when no origin leaves `minTraining` days.
 */
export function runBacktest(series: readonly number[], forecaster: Forecaster, plan: BacktestPlan): BacktestResult | null {
  const origins = backtestOrigins(series.length, plan)
  if (origins.length === 0) return null
  const errors: number[] = []
  const totalErrors: number[] = []
  let absoluteError = 0
  let actualTotal = 0
  for (const origin of origins) {
    const training = series.slice(Math.max(0, origin - plan.window), origin)
    const forecast = forecaster(training, plan.horizon)
    let totalError = 0
    for (let day = 0; day < plan.horizon; day++) {
      const actual = series[origin + day] ?? 0
      const error = (forecast[day] ?? 0) - actual
      errors.push(error)
      totalError += error
      absoluteError += Math.abs(error)
      actualTotal += actual
    }
    totalErrors.push(totalError)
  }
  return { errors, totalErrors, absoluteError, actualTotal }
}

/** Weighted absolute percentage error, Σ|error| / Σ actual; null when the actuals sum to 0. */
export function wapeOf(result: BacktestResult): number | null {
  return result.actualTotal > 0 ? result.absoluteError / result.actualTotal : null
}

/** Root mean square of the errors: their standard deviation about 0, so a bias counts too. */
export function rootMeanSquare(errors: readonly number[]): number {
  if (errors.length === 0) return 0
  return Math.sqrt(errors.reduce((sum, error) => sum + error * error, 0) / errors.length)
}
