import { MSTL } from '@bsull/augurs/mstl'
import { initForecasting } from './augurs.js'

/** The weekly season of daily demand: business days repeat every 7 days. */
export const WEEK_DAYS = 7

/**
 * Forecasts `horizon` days after `series` with MSTL (weekly season, AutoETS on the trend), negative
 * points clamped to 0; the series needs two full weeks, as STL does.
 */
export function forecastMstlEts(series: readonly number[], horizon: number): number[] {
  initForecasting()
  const model = MSTL.ets([WEEK_DAYS])
  try {
    model.fit(Float64Array.from(series))
    return model.predict(horizon).point.map((value) => Math.max(0, value))
  } finally {
    // The model lives in WebAssembly memory, which the garbage collector does not see.
    model.free()
  }
}
