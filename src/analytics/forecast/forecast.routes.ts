import { tenantOf } from '../../platform/auth/auth-plugin.js'
import { cachedReport } from '../../platform/http/report-cache.js'
import { envelope } from '../../platform/http/schemas.js'
import type { App } from '../../platform/http/types.js'
import { inventoryErrors } from '../../inventory/index.js'
import { locationErrors } from '../../locations/index.js'
import { analyticsErrors } from '../analytics.errors.js'
import { DemandForecastReport, FORECAST_HISTORY_DAYS, ForecastQuery, ItemForecastParams, ItemForecastSeries } from './forecast.schemas.js'
import { getItemForecastSeries, refreshableDemandForecast } from './forecast.service.js'

const tags = ['Analytics']

export interface ForecastRouteOptions {
  /** BARSTOCK_FORECAST_REFIT_DELAY_SECONDS, in milliseconds: when a history change is refitted (forecast_unavailable tells it). */
  refitDelayMs: number
}

export async function forecastRoutes(app: App, { refitDelayMs }: ForecastRouteOptions) {
  app.get(
    '/forecast',
    {
      schema: {
        tags,
        summary: 'Forecast demand per item',
        description:
          'Reads the stored forecasts (refitted in the background when a business day closes, and at most BARSTOCK_FORECAST_REFIT_DELAY_SECONDS (default 60) after the first change of sales history not yet reflected; never fitted on request). ' +
          'Items with under 14 days of sales history have none and are left out; forecast_unavailable when no item in scope has one, with details.next_refit_at: when the next refit is due. ' +
          'forecasted_demand sums the first days_ahead stored days; confidence is 1 − the back-test WAPE; events are the public holidays of the location’s country in the horizon, forecast as ordinary days unless listed in holiday_effects (scaled by the location’s sales on their past occurrences: 0 where it was closed). See docs/forecasts.md.',
        querystring: ForecastQuery,
        response: { 200: envelope(DemandForecastReport) },
      },
      config: { readReplica: true, permission: 'analytics:read', errors: [analyticsErrors.forecastUnavailable, locationErrors.locationNotFound] },
    },
    // The answer reads no clock: stored forecasts, stock and holidays from each forecast's first day.
    async (request, reply) => {
      const { days_ahead, location, category } = request.query
      return cachedReport(request, reply, {
        key: [days_ahead, location, category],
        compute: () => refreshableDemandForecast(app.db, tenantOf(request), request.query, refitDelayMs),
        schema: DemandForecastReport,
        list: 'forecasts',
      })
    },
  )

  app.get(
    '/forecast/items/:id',
    {
      schema: {
        tags,
        summary: 'One item’s daily usage and forecast with its band',
        description:
          `The last ${FORECAST_HISTORY_DAYS} business days of the item’s usage, then its 30 stored forecast days, each with a band of ±1.96 × the back-test’s daily error spread (about 95 % of days if errors were normal). ` +
          'For a chart: the console’s forecast screen draws it. forecast_unavailable when the item has no stored forecast (details.next_refit_at: when the next refit is due). See docs/forecasts.md.',
        params: ItemForecastParams,
        response: { 200: envelope(ItemForecastSeries) },
      },
      config: { readReplica: true, permission: 'analytics:read', errors: [inventoryErrors.itemNotFound, analyticsErrors.forecastUnavailable] },
    },
    async (request) => ({ data: await getItemForecastSeries(app.db, tenantOf(request), request.params.id, refitDelayMs) }),
  )
}
