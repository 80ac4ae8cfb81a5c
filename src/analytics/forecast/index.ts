export { initForecasting } from './augurs.js'
export {
  type DemandForecast,
  BACKTEST_PLAN,
  FIT_WINDOW_DAYS,
  FORECAST_HORIZON_DAYS,
  type ForecastOptions,
  forecastDemand,
  MIN_HISTORY_DAYS,
} from './demand-forecast.js'
export { type LocationAdjustments, locationAdjustments, NO_LOCATION_ADJUSTMENTS } from './location-pooling.js'
export { totalErrorStdDev } from './error-model.js'
export { holidayNames } from './holidays.js'
export { applyHolidayFactors, daysToRead, type HolidayEffect, holidayFactors, pastHolidays } from './holiday-effects.js'
