import { type Static, Type } from 'typebox'
import { Nullable, PageQuery } from '../../platform/http/schemas.js'
import { RecipeCategory } from '../../recipes/index.js'

export const CostingQuery = Type.Object(
  {
    ...PageQuery,
    recipe_id: Type.Optional(
      Type.String({ minLength: 1, description: 'One recipe (404 recipe_not_found when there is no such live recipe)', examples: ['rcp_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
    ),
    category: Type.Optional(RecipeCategory),
  },
  { additionalProperties: false },
)
export type CostingQuery = Static<typeof CostingQuery>

export const CostedIngredient = Type.Object({
  inventory_item_id: Type.String({ description: 'The inventory item', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  name: Type.String({ description: 'The inventory item’s name (its last name once deleted)', examples: ['Espolòn Blanco Tequila 750ml'] }),
  quantity: Type.Number({ description: 'Amount in one serving, as the recipe gives it', examples: [2] }),
  unit: Type.String({ description: 'The unit of quantity, as the recipe gives it', examples: ['oz'] }),
  cost: Type.Number({ description: 'quantity converted to the item’s unit × its cost_per_unit, in the account’s currency (2 decimals)', examples: [1.89] }),
})

export const RecipeCosting = Type.Object({
  recipe_id: Type.String({ description: 'The recipe', examples: ['rcp_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  name: Type.String({ description: 'Its name', examples: ['Margarita'] }),
  category: Type.String({ description: 'The recipe’s drink category', examples: ['cocktail'] }),
  selling_price: Type.Number({ description: 'Menu price of one serving, in the account currency', examples: [12] }),
  total_cost: Type.Number({ description: 'Σ ingredient costs of one serving, in the account currency', examples: [2.64] }),
  pour_cost_percentage: Nullable(
    Type.Number({ description: 'total_cost / selling_price × 100 (0 to 100 and beyond, 2 decimals); null when the selling price is 0', examples: [22] }),
  ),
  gross_margin: Type.Number({ description: 'selling_price − total_cost: money per serving (negative when a serving costs more than it sells for)', examples: [9.36] }),
  ingredients: Type.Array(CostedIngredient, { description: 'What one serving takes, each costed' }),
  optimization_suggestions: Type.Array(Type.String(), {
    description: 'Sentences from the rules in docs/costing.md, with their numbers',
    examples: [['Pour cost 22 % is above the 20 % target: a price of 13.20 would meet it.']],
  }),
})
export type RecipeCosting = Static<typeof RecipeCosting>
