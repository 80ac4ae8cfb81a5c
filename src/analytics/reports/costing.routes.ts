import { tenantOf } from '../../platform/auth/auth-plugin.js'
import { pageRequest, paginate } from '../../platform/http/pagination.js'
import { listEnvelope } from '../../platform/http/schemas.js'
import type { App } from '../../platform/http/types.js'
import { recipeErrors } from '../../recipes/index.js'
import { CostingQuery, RecipeCosting } from './costing.schemas.js'
import { recipeCosting } from './costing.service.js'

const tags = ['Analytics']

export async function costingRoutes(app: App) {
  app.get(
    '/costing',
    {
      schema: {
        tags,
        summary: 'Recipe costing',
        description:
          'Live recipes by name, each costed from its ingredients’ current cost_per_unit: total_cost, pour_cost_percentage (null when the selling price is 0), gross_margin per serving, and optimization_suggestions (price to reach the settings’ pour-cost target, a cheaper item of the same category saving at least 10 % of an ingredient’s cost, an ingredient whose cost rose since its last delivery, a deleted ingredient item). Money in the account’s currency. `recipe_id` keeps one recipe, `category` one drink category. See docs/costing.md.',
        querystring: CostingQuery,
        response: { 200: listEnvelope(RecipeCosting) },
      },
      config: { readReplica: true, permission: 'analytics:read', errors: [recipeErrors.recipeNotFound] },
    },
    async (request) => {
      const page = pageRequest(request.query)
      const { recipes, total } = await recipeCosting(app.db, tenantOf(request), request.query, page)
      return { data: recipes, pagination: paginate(request, page, total) }
    },
  )
}
