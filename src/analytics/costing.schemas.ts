import { type Static, Type } from 'typebox'
import { Nullable, PageQuery } from '../platform/http/schemas.js'
import { RecipeCategory } from '../recipes/recipes.schemas.js'


export const CostingQuery = Type.Object(
  {
    ...PageQuery,
    recipe_id: Type.Optional(Type.String({ minLength: 1, description: 'One recipe (404 recipe_not_found when there is no such live recipe)' })),
    category: Type.Optional(RecipeCategory),
  },
  { additionalProperties: false },
)
export type CostingQuery = Static<typeof CostingQuery>

export const CostedIngredient = Type.Object({
  inventory_item_id: Type.String(),
  name: Type.String({ description: 'The inventory item’s name (its last name once deleted)' }),
  quantity: Type.Number({ description: 'Amount in one serving, as the recipe gives it' }),
  unit: Type.String({ description: 'The unit of quantity, as the recipe gives it' }),
  cost: Type.Number({ description: 'quantity converted to the item’s unit × its cost_per_unit, in the account’s currency (2 decimals)' }),
})

export const RecipeCosting = Type.Object({
  recipe_id: Type.String(),
  name: Type.String(),
  category: Type.String({ description: 'The recipe’s drink category' }),
  selling_price: Type.Number({ description: 'Menu price of one serving' }),
  total_cost: Type.Number({ description: 'Σ ingredient costs of one serving' }),
  pour_cost_percentage: Nullable(
    Type.Number({ description: 'total_cost / selling_price × 100 (0 to 100 and beyond, 2 decimals); null when the selling price is 0' }),
  ),
  gross_margin: Type.Number({ description: 'selling_price − total_cost: money per serving (negative when a serving costs more than it sells for)' }),
  ingredients: Type.Array(CostedIngredient),
  optimization_suggestions: Type.Array(Type.String(), { description: 'Sentences from the rules in docs/costing.md, with their numbers' }),
})
export type RecipeCosting = Static<typeof RecipeCosting>
