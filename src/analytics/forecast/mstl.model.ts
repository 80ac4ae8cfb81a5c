import { readFileSync } from 'node:fs'
import { initSync, MSTL } from '@bsull/augurs/mstl'

/** The weekly season of daily demand: business days repeat every 7 days. */
export const WEEK_DAYS = 7

let initialised = false

/**
 * Loads augurs' MSTL WebAssembly once, synchronously; later calls do nothing. The `.wasm` file is not in
 * the package's exports map, so it is read by path beside the module that is exported.
 */
export function initForecasting(): void {
  if (initialised) return
  const wasm = new URL('mstl_bg.wasm', import.meta.resolve('@bsull/augurs/mstl'))
  initSync({ module: readFileSync(wasm) })
  initialised = true
}

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
