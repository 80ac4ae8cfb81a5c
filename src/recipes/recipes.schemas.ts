import { type Static, Type } from 'typebox'
import { domainMinimum, PageQuery, Timestamp } from '../platform/http/schemas.js'
import { UNITS } from '../inventory/index.js'

export const MAX_INGREDIENTS = 50

export const RecipeCategory = Type.String({
  pattern: '^[a-z][a-z0-9_]{0,31}$',
  description: 'A lowercase slug you choose (a letter, then letters, digits or _, up to 32 characters), e.g. cocktail, shot, highball, beer, wine; costing filters by it',
  examples: ['cocktail'],
})
const Name = Type.String({ minLength: 1, maxLength: 200, description: 'The drink’s name, 1 to 200 characters', examples: ['Margarita'] })
const SellingPrice = Type.Number({
  minimum: 0,
  maximum: 1_000_000,
  description: 'Menu price of one serving in the account’s currency (settings): 0 to 1,000,000, up to 2 decimals',
  examples: [12],
})

const IngredientInput = Type.Object(
  {
    inventory_item_id: Type.String({ minLength: 1, description: 'The inventory item poured (item_not_found otherwise)', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
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
  examples: [
    [
      { inventory_item_id: 'item_01jd2x3v4w5y6z7a8b9c0d1e2f', quantity: 2, unit: 'oz' },
      { inventory_item_id: 'item_01jd2x4a5b6c7d8e9f0g1h2j3k', quantity: 1, unit: 'oz' },
    ],
  ],
})

export const Ingredient = Type.Object({
  inventory_item_id: Type.String({ description: 'The inventory item', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  name: Type.String({ description: 'The inventory item’s name', examples: ['Espolòn Blanco Tequila 750ml'] }),
  quantity: Type.Number({ description: 'Amount in one serving, in unit', examples: [2] }),
  unit: Type.String({ description: 'The unit of quantity', examples: ['oz'] }),
})

export const Recipe = Type.Object({
  id: Type.String({ description: 'The recipe’s id', examples: ['rcp_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  name: Type.String({ description: 'The drink’s name', examples: ['Margarita'] }),
  category: Type.String({ description: 'Its category slug', examples: ['cocktail'] }),
  selling_price: Type.Number({ description: 'Menu price of one serving, in the account currency', examples: [12] }),
  ingredients: Type.Array(Ingredient, { description: 'What one serving takes from stock' }),
  created_at: { ...Timestamp, description: 'When it was created' },
  updated_at: { ...Timestamp, description: 'When it last changed' },
})
export type Recipe = Static<typeof Recipe>

export const CreateRecipeBody = Type.Object({ name: Name, category: RecipeCategory, selling_price: SellingPrice, ingredients: Ingredients }, { additionalProperties: false })
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

export const RecipeParams = Type.Object({ id: Type.String({ description: 'The recipe’s id', examples: ['rcp_01jd2x3v4w5y6z7a8b9c0d1e2f'] }) })

export const ListRecipesQuery = Type.Object({ ...PageQuery, category: Type.Optional(RecipeCategory) }, { additionalProperties: false })
export type ListRecipesQuery = Static<typeof ListRecipesQuery>
