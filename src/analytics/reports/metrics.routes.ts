import { tenantOf } from '../../platform/auth/auth-plugin.js'
import { pageRequest, paginate } from '../../platform/http/pagination.js'
import { envelope, listEnvelope } from '../../platform/http/schemas.js'
import type { App } from '../../platform/http/types.js'
import { locationErrors } from '../../locations/index.js'
import { analyticsErrors } from '../analytics.errors.js'
import { categoryAnalysis } from './categories.service.js'
import { CategoriesQuery, CategoryAnalysis, PerformanceQuery, PerformanceReport, StaffPerformance, StaffQuery } from './metrics.schemas.js'
import { performanceReport } from './performance.service.js'
import { staffPerformance } from './staff.service.js'

const tags = ['Analytics']

/** Performance metrics, staff performance and category analysis (docs/metrics.md). */
export async function metricsRoutes(app: App) {
  app.get(
    '/performance',
    {
      schema: {
        tags,
        summary: 'Performance metrics against their targets, with trends',
        description:
          'pour_cost = cost of expected usage / revenue × 100 and gross_margin = (revenue − cost of expected usage) / revenue × 100, over the mapped sale lines sold in the period (each line’s usage costed at the unit cost stored with it; unmapped lines are left out of both); variance_rate = Σ variance cost / Σ expected cost × 100 and inventory_turnover = usage cost per 30 days / average counted value, over the items’ count windows as the variance report measures them. status: on_target within 5 % of the settings’ target, else above_target or below_target (no_data when the value is null). trends: against the previous period of the same length; a change under 5 % of the previous value is stable. 400 insufficient_data when the period has neither mapped sales nor an item with two counts. Worked examples: docs/metrics.md.',
        querystring: PerformanceQuery,
        response: { 200: envelope(PerformanceReport) },
      },
      config: {
        readReplica: true,
        permission: 'analytics:read',
        errors: [analyticsErrors.invalidDateRange, analyticsErrors.insufficientData, locationErrors.locationNotFound],
      },
    },
    async (request) => ({ data: await performanceReport(app.db, tenantOf(request), request.query) }),
  )

  app.get(
    '/staff',
    {
      schema: {
        tags,
        summary: 'Staff performance: variance, drinks, ticket and tips per staff member',
        description:
          'Every staff id on the sale lines of the period (names and roles from the POS’s employee list, else the lines’ staff_name), busiest first. variance_rate shares each item’s count-window variance cost by the member’s share of the item’s sold units in the window, over the member’s expected usage cost; drinks_served = Σ quantity; average_ticket = revenue / distinct checks (a line without check_id is its own check); customer_satisfaction = tips / revenue × 100 over lines whose POS reported a tip, null when none did. comparison: differences from the mean of all members in the period, and a rating from variance_rate against the settings’ target and drinks against the mean. A known staff_id without lines in the period answers an empty list. Names are personal data. See docs/metrics.md.',
        querystring: StaffQuery,
        response: { 200: listEnvelope(StaffPerformance) },
      },
      config: { readReplica: true, permission: 'analytics:read', errors: [analyticsErrors.invalidDateRange, analyticsErrors.staffNotFound] },
    },
    async (request) => {
      const page = pageRequest(request.query)
      const { staff, total } = await staffPerformance(app.db, tenantOf(request), request.query, page)
      return { data: staff, pagination: paginate(request, page, total) }
    },
  )

  app.get(
    '/categories',
    {
      schema: {
        tags,
        summary: 'Category analysis: sales, cost, pour cost and variance per inventory category',
        description:
          'Per inventory category with sales or a count window in the period, highest revenue first: total_sales (revenue of the mapped lines that used its items; a line that used several items, a recipe, is split by their share of its usage cost), total_cost (cost of expected usage), pour_cost, variance and variance_percentage over its items’ count windows as the variance report measures them; top_performers by margin (sales − cost) and underperformers by positive variance cost, up to 5 each. See docs/metrics.md.',
        querystring: CategoriesQuery,
        response: { 200: listEnvelope(CategoryAnalysis) },
      },
      config: { readReplica: true, permission: 'analytics:read', errors: [analyticsErrors.invalidDateRange] },
    },
    async (request) => {
      const page = pageRequest(request.query)
      const { categories, total } = await categoryAnalysis(app.db, tenantOf(request), request.query, page)
      return { data: categories, pagination: paginate(request, page, total) }
    },
  )
}
