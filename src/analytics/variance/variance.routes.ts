import { tenantOf } from '../../platform/auth/auth-plugin.js'
import { cachedReport } from '../../platform/http/report-cache.js'
import { envelope } from '../../platform/http/schemas.js'
import type { App } from '../../platform/http/types.js'
import { locationErrors } from '../../locations/index.js'
import { analyticsErrors } from '../analytics.errors.js'
import { VarianceQuery, VarianceReport } from './variance.schemas.js'
import { refreshableVarianceReport } from './variance.service.js'
import { reportPeriod } from '../report-period.js'

export async function varianceRoutes(app: App) {
  app.get(
    '/variance',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Variance report: how much stock went missing, where and why',
        description:
          'Per item with two counts: the window from its opening count (latest at or before the start of date_from, else its earliest inside the period) to its closing count (latest at or before the end of date_to); actual usage = opening + deliveries − closing, expected usage = Σ mapped sales in the window converted to item units (recipes per ingredient); variance = actual − expected (positive: a loss), variance_percentage = variance / expected × 100, estimated_loss = variance × the cost in force at the closing count (summed over the parts of a window in which the cost changed: never revalued at today’s cost). Items above the threshold carry ranked potential_causes with their evidence. Computed from the data as it stands. Formulas with worked examples: docs/analytics.md.',
        querystring: VarianceQuery,
        response: { 200: envelope(VarianceReport) },
      },
      config: {
        readReplica: true,
        permission: 'analytics:read',
        errors: [analyticsErrors.invalidDateRange, analyticsErrors.insufficientData, locationErrors.locationNotFound],
      },
    },
    async (request, reply) => {
      // One clock for the key and the report: "today" resolved once.
      const now = new Date()
      const period = reportPeriod(request.query, now)
      const { location, category, threshold } = request.query
      return cachedReport(request, reply, {
        key: [period.from, period.to, location, category, threshold],
        compute: () => refreshableVarianceReport(app.db, tenantOf(request), request.query, now),
        schema: VarianceReport,
        list: 'items',
      })
    },
  )
}
