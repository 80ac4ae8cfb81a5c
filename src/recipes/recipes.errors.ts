import { defineError } from '../platform/errors.js'

export const recipeErrors = {
  recipeNotFound: defineError('recipe_not_found', 404, 'Recipe %s does not exist'),
}
