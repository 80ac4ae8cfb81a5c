import { tenantOf } from '../platform/auth/auth-plugin.js'
import { envelope } from '../platform/http/schemas.js'
import type { App } from '../platform/http/types.js'
import { locationErrors } from '../locations/locations.errors.js'
import { analyticsErrors } from './analytics.errors.js'
import { DemandForecastReport, ForecastQuery } from './forecast.schemas.js'
import { getDemandForecast } from './forecast.service.js'

const tags = ['Analytics']

export async function forecastRoutes(app: App) {
  app.get(
    '/forecast',
    {
      schema: {
        tags,
        summary: 'Forecast demand per item',
        description:
          'Reads the stored forecasts (refitted in the background when a business day closes or sales history changes; never fitted on request). ' +
          'Items with under 14 days of sales history have none and are left out; forecast_unavailable when no item in scope has one. ' +
          'forecasted_demand sums the first days_ahead stored days; confidence is 1 − the back-test WAPE; events are the public holidays of the location’s country in the horizon. See docs/forecasts.md.',
        querystring: ForecastQuery,
        response: { 200: envelope(DemandForecastReport) },
      },
      config: { permission: 'analytics:read', errors: [analyticsErrors.forecastUnavailable, locationErrors.locationNotFound] },
    },
    async (request) => ({ data: await getDemandForecast(app.db, tenantOf(request), request.query) }),
  )
}
