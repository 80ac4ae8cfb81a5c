import { tenantOf } from '../platform/auth/auth-plugin.js'
import { runWrite } from '../platform/idempotency.js'
import { pageRequest, paginate } from '../platform/http/pagination.js'
import { Deleted, envelope, listEnvelope } from '../platform/http/schemas.js'
import type { App } from '../platform/http/types.js'
import { inventoryErrors } from '../inventory/index.js'
import { recipeErrors } from './recipes.errors.js'
import { CreateRecipeBody, ListRecipesQuery, Recipe, RecipeParams, UpdateRecipeBody } from './recipes.schemas.js'
import { createRecipe, deleteRecipe, getRecipe, listRecipes, updateRecipe } from './recipes.service.js'

const tags = ['Recipes']
const { itemNotFound, invalidQuantity, invalidUnit } = inventoryErrors
const { recipeNotFound } = recipeErrors
const ingredientErrors = [itemNotFound, invalidQuantity, invalidUnit]

export async function recipeRoutes(app: App) {
  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'List recipes',
        description: 'Live recipes by name, each with its ingredients; `category` keeps one category.',
        querystring: ListRecipesQuery,
        response: { 200: listEnvelope(Recipe) },
      },
      config: { permission: 'inventory:read' },
    },
    async (request) => {
      const page = pageRequest(request.query)
      const { recipes, total } = await listRecipes(app.db, tenantOf(request), request.query, page)
      return { data: recipes, pagination: paginate(request, page, total) }
    },
  )

  app.post(
    '/',
    {
      schema: {
        tags,
        summary: 'Create a recipe',
        description:
          'What one serving of a drink takes from stock: 1 to 50 ingredients, each an inventory item (once) with a quantity in a unit that converts to the item’s unit (oz of a 750 ml bottle item; not of an item without size_ml). A POS item mapped to the recipe depletes every ingredient.',
        body: CreateRecipeBody,
        response: { 201: envelope(Recipe) },
      },
      config: { permission: 'inventory:write', errors: ingredientErrors },
    },
    (request, reply) => runWrite(app.db, request, reply, 201, (trx) => createRecipe(trx, tenantOf(request), request.body)),
  )

  app.get(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Get a recipe',
        description: 'A live recipe with its ingredients and each item’s name.',
        params: RecipeParams,
        response: { 200: envelope(Recipe) },
      },
      config: { permission: 'inventory:read', errors: [recipeNotFound] },
    },
    async (request) => ({ data: await getRecipe(app.db, tenantOf(request), request.params.id) }),
  )

  app.put(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Update a recipe',
        description: 'Replaces the fields given; `ingredients`, when given, replaces the whole list.',
        params: RecipeParams,
        body: UpdateRecipeBody,
        response: { 200: envelope(Recipe) },
      },
      config: { permission: 'inventory:write', errors: [recipeNotFound, ...ingredientErrors] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => updateRecipe(trx, tenantOf(request), request.params.id, request.body)),
  )

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Delete a recipe',
        description: 'The recipe leaves lists and costing; POS mappings and past sales keep pointing at it.',
        params: RecipeParams,
        response: { 200: envelope(Deleted('id')) },
      },
      config: { permission: 'inventory:write', errors: [recipeNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => deleteRecipe(trx, tenantOf(request), request.params.id)),
  )
}
