export { initForecasting } from './augurs.js'
export {
  type DemandForecast,
  type ForecastOptions,
  type ModelName,
  BACKTEST_PLAN,
  DEFAULT_MODELS,
  FIT_WINDOW_DAYS,
  FORECAST_HORIZON_DAYS,
  forecastDemand,
  MIN_HISTORY_DAYS,
  TREND_CHANGE_THRESHOLD,
  WEEKLY_STRENGTH_THRESHOLD,
} from './demand-forecast.js'
export { totalErrorStdDev } from './error-model.js'
export { holidayNames } from './holidays.js'
