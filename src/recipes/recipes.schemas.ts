import { type Static, Type } from 'typebox'
import { domainMinimum, PageQuery, Timestamp } from '../platform/http/schemas.js'
import { UNITS } from '../inventory/units.js'

export const MAX_INGREDIENTS = 50

export const RecipeCategory = Type.String({
  pattern: '^[a-z][a-z0-9_]{0,31}$',
  description:
    'A lowercase slug you choose (a letter, then letters, digits or _, up to 32 characters), e.g. cocktail, shot, highball, beer, wine; costing filters by it',
  examples: ['cocktail'],
})
const Name = Type.String({ minLength: 1, maxLength: 200, examples: ['Margarita'] })
const SellingPrice = Type.Number({
  minimum: 0,
  maximum: 1_000_000,
  description: 'Menu price of one serving in the account’s currency (settings): zero or more, up to 2 decimals',
})

const IngredientInput = Type.Object(
  {
    inventory_item_id: Type.String({ minLength: 1, examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
    quantity: Type.Number({
      ...domainMinimum(0, true),
      maximum: 1_000_000,
      description: 'Amount in one serving, in `unit`: above 0, up to 4 decimals (invalid_quantity otherwise)',
      examples: [1.5],
    }),
    // A plain string here: an unknown unit is the domain error invalid_unit, not a schema violation.
    unit: Type.String({
      description: `One of ${UNITS.join(', ')} that converts to the item's unit: the item's own unit, ml, liter, oz or gallon for a bottle, can or keg item with size_ml (or a volume item), g, kg or lb for a weight item (invalid_unit otherwise)`,
      examples: ['oz'],
    }),
  },
  { additionalProperties: false },
)

const Ingredients = Type.Array(IngredientInput, {
  minItems: 1,
  maxItems: MAX_INGREDIENTS,
  description: `1 to ${MAX_INGREDIENTS} ingredients, each item at most once`,
})

export const Ingredient = Type.Object({
  inventory_item_id: Type.String(),
  name: Type.String({ description: 'The inventory item’s name' }),
  quantity: Type.Number(),
  unit: Type.String(),
})

export const Recipe = Type.Object({
  id: Type.String({ examples: ['rcp_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  name: Type.String(),
  category: Type.String(),
  selling_price: Type.Number(),
  ingredients: Type.Array(Ingredient),
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Recipe = Static<typeof Recipe>

export const CreateRecipeBody = Type.Object(
  { name: Name, category: RecipeCategory, selling_price: SellingPrice, ingredients: Ingredients },
  { additionalProperties: false },
)
export type CreateRecipeBody = Static<typeof CreateRecipeBody>

export const UpdateRecipeBody = Type.Object(
  {
    name: Type.Optional(Name),
    category: Type.Optional(RecipeCategory),
    selling_price: Type.Optional(SellingPrice),
    ingredients: Type.Optional(Ingredients),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateRecipeBody = Static<typeof UpdateRecipeBody>
export type IngredientInput = Static<typeof IngredientInput>

export const RecipeParams = Type.Object({ id: Type.String() })

export const ListRecipesQuery = Type.Object(
  { ...PageQuery, category: Type.Optional(RecipeCategory) },
  { additionalProperties: false },
)
export type ListRecipesQuery = Static<typeof ListRecipesQuery>
