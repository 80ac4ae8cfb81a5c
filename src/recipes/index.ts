/** Recipes' front door: all that other rooms (and the wiring) may use of recipes. */
export { type Recipe, RecipeCategory } from './recipes.schemas.js'
export { findRecipeNames, getRecipe, ingredientsPerServing, listRecipesForCosting } from './recipes.service.js'
export { recipeErrors } from './recipes.errors.js'

// For the wiring.
export { recipeRoutes } from './recipes.routes.js'
