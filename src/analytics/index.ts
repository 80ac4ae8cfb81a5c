/** Analytics' front door, for the wiring alone (no domain imports analytics): its routes, workers, events and what it hands other rooms. */
export { costingRoutes } from './costing.routes.js'
export { forecastRoutes } from './forecast.routes.js'
export { metricsRoutes } from './metrics.routes.js'
export { varianceRoutes } from './variance.routes.js'
export { analyticsEvents } from './analytics.events.js'
export { startForecastWorker } from './forecast-refit.js'
// Handed to inventory (the count observer) and ordering (the demand forecaster) by the wiring.
export { emitCountVariance } from './count-variance.js'
export { storedDemandForecasts } from './forecast.service.js'
