/** Analytics' front door, for the wiring alone (no domain imports analytics): its routes, workers, events and what it hands other rooms. */
export { costingRoutes } from './reports/costing.routes.js'
export { metricsRoutes } from './reports/metrics.routes.js'
export { forecastRoutes } from './forecast/forecast.routes.js'
export { varianceRoutes } from './variance/variance.routes.js'
export { analyticsEvents } from './analytics.events.js'
export { startForecastWorker } from './forecast/forecast-refit.js'
// Handed to inventory (the count observer) and ordering (the demand forecaster) by the wiring.
export { emitCountVariance } from './variance/count-variance.js'
export { PREVIOUS_WINDOWS } from './variance/variance-windows.js'
export { storedDemandForecasts } from './forecast/forecast.service.js'
