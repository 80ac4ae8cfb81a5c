import type { Environment, Numeric, Timestamp } from '../platform/db/database.js'

export interface RecipeTable {
  id: string
  account_id: string
  environment: Environment
  name: string
  category: string
  selling_price: Numeric
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: Date | null
}

/** One ingredient of a recipe, in the unit the recipe gives it (converted to the item's unit when read). */
export interface RecipeIngredientTable {
  recipe_id: string
  account_id: string
  environment: Environment
  position: number
  inventory_item_id: string
  quantity: Numeric
  unit: string
}

declare module '../platform/db/database.js' {
  interface Database {
    recipes: RecipeTable
    recipe_ingredients: RecipeIngredientTable
  }
}
