import { checkDecimalPlaces } from '../platform/number-input.js'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { type Decimal, decimal, decimalPlaces, MONEY_DECIMALS, moneyOut, quantityOut, QUANTITY_STORED_DECIMALS, toDbNumeric } from '../platform/decimal.js'
import { invalidParameter } from '../platform/errors.js'
import type { PageRequest } from '../platform/http/pagination.js'
import { newId } from '../platform/ids.js'
import { convertibleUnits, findStockItems, inventoryErrors, isUnit, type StockItem, toItemUnits, UNITS } from '../inventory/index.js'
import { recipeErrors } from './recipes.errors.js'
import {
  type IngredientFields,
  type IngredientRow,
  type RecipeRow,
  findRecipeRow,
  findRecipeRows,
  ingredientRows,
  insertRecipe,
  allRecipeRows,
  listRecipeRows,
  recipeNameRows,
  lockRecipeRow,
  replaceIngredients,
  softDeleteRecipe,
  updateRecipeRow,
} from './recipes.repository.js'
import type { CreateRecipeBody, IngredientInput, ListRecipesQuery, Recipe, UpdateRecipeBody } from './recipes.schemas.js'

// Conversions divide (29.5735 ml / 750 ml): rounded here so 1.5 oz of a 750 ml bottle reads 0.059147, not
// 0.059146999999999999995. Far finer than the 4 decimals stock keeps.
const PER_SERVING_DECIMALS = 10

function rowToRecipe(row: RecipeRow, ingredients: IngredientRow[], items: Map<string, StockItem>): Recipe {
  return {
    id: row.id,
    name: row.name,
    category: row.category,
    selling_price: moneyOut(row.selling_price),
    ingredients: ingredients.map((ingredient) => ({
      inventory_item_id: ingredient.inventory_item_id,
      name: items.get(ingredient.inventory_item_id)?.name ?? ingredient.inventory_item_id,
      quantity: quantityOut(ingredient.quantity),
      unit: ingredient.unit,
    })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

function byRecipe(rows: IngredientRow[]): Map<string, IngredientRow[]> {
  const grouped = new Map<string, IngredientRow[]>()
  for (const row of rows) grouped.set(row.recipe_id, [...(grouped.get(row.recipe_id) ?? []), row])
  return grouped
}

/** Recipes with their ingredients and the items' names (a deleted item keeps its last name). */
async function withIngredients(db: Executor, tenant: Tenant, rows: RecipeRow[]): Promise<Recipe[]> {
  const ingredients = await ingredientRows(
    db,
    tenant,
    rows.map((row) => row.id),
  )
  const items = await findStockItems(
    db,
    tenant,
    ingredients.map((row) => row.inventory_item_id),
    { includeDeleted: true },
  )
  const grouped = byRecipe(ingredients)
  return rows.map((row) => rowToRecipe(row, grouped.get(row.id) ?? [], items))
}

/** A selling price as stored: at most 2 decimals (the schema has checked it is zero or more). */
function parseSellingPrice(value: number): string {
  checkDecimalPlaces('selling_price', value, MONEY_DECIMALS)
  return toDbNumeric(value, MONEY_DECIMALS)
}

function parseIngredientQuantity(value: number, parameter: string): string {
  if (!Number.isFinite(value) || value <= 0) {
    throw inventoryErrors.invalidQuantity(`${parameter} must be above zero, got ${value}`, { parameter, value })
  }
  if (decimalPlaces(value) > QUANTITY_STORED_DECIMALS) {
    throw inventoryErrors.invalidQuantity(`${parameter} takes at most ${QUANTITY_STORED_DECIMALS} decimals, got ${value}`, {
      parameter,
      value,
    })
  }
  return toDbNumeric(value, QUANTITY_STORED_DECIMALS)
}

/**
 * Checks a recipe's ingredients, in order: each quantity (invalid_quantity), unit (invalid_unit) and item
 * once (invalid_parameter); then each item is a live item of the tenant (item_not_found) whose unit the
 * ingredient's unit converts to (invalid_unit). Every error names the ingredient in details.parameter.
 */
async function checkIngredients(trx: Trx, tenant: Tenant, ingredients: IngredientInput[]): Promise<IngredientFields[]> {
  const seen = new Set<string>()
  const checked = ingredients.map((ingredient, index) => {
    const at = `ingredients[${index}]`
    const quantity = parseIngredientQuantity(ingredient.quantity, `${at}.quantity`)
    if (!isUnit(ingredient.unit)) {
      throw inventoryErrors.invalidUnit([ingredient.unit, UNITS.join(', ')], { parameter: `${at}.unit`, value: ingredient.unit })
    }
    if (seen.has(ingredient.inventory_item_id)) {
      throw invalidParameter(
        `${at}.inventory_item_id`,
        ingredient.inventory_item_id,
        `${at}.inventory_item_id names item ${ingredient.inventory_item_id} a second time; give each item once`,
      )
    }
    seen.add(ingredient.inventory_item_id)
    return { itemId: ingredient.inventory_item_id, quantity, unit: ingredient.unit }
  })
  const items = await findStockItems(trx, tenant, [...seen])
  checked.forEach((ingredient, index) => {
    const at = `ingredients[${index}]`
    const item = items.get(ingredient.itemId)
    if (!item) throw inventoryErrors.itemNotFound(ingredient.itemId, { parameter: `${at}.inventory_item_id`, value: ingredient.itemId })
    if (toItemUnits(decimal(ingredient.quantity), ingredient.unit, item) === undefined) {
      const allowed = convertibleUnits(item)
      throw inventoryErrors.invalidUnit([ingredient.unit, allowed.join(', ')], {
        parameter: `${at}.unit`,
        value: ingredient.unit,
        inventory_item_id: item.id,
        item_unit: item.unit,
        allowed_units: allowed,
      })
    }
  })
  return checked
}

/** A live recipe or 404 recipe_not_found. */
export async function getRecipe(db: Executor, tenant: Tenant, id: string): Promise<Recipe> {
  const row = await findRecipeRow(db, tenant, id)
  if (!row) throw recipeErrors.recipeNotFound(id)
  const [recipe] = await withIngredients(db, tenant, [row])
  return recipe!
}

/** A page of live recipes by name, optionally of one category. */
export async function listRecipes(db: Executor, tenant: Tenant, query: ListRecipesQuery, page: PageRequest) {
  const { rows, total } = await listRecipeRows(db, tenant, { category: query.category }, page)
  return { recipes: await withIngredients(db, tenant, rows), total }
}

/** Live recipes by name, optionally one id or one category (for costing); an unknown id gives an empty list. */
export async function listRecipesForCosting(db: Executor, tenant: Tenant, filter: { recipeId?: string; category?: string }): Promise<Recipe[]> {
  return withIngredients(db, tenant, await allRecipeRows(db, tenant, filter))
}

/** The names of the recipes among `ids` by id, deleted ones too (POS mappings keep pointing at them). */
export async function findRecipeNames(db: Executor, tenant: Tenant, ids: string[]): Promise<Map<string, string>> {
  const rows = await recipeNameRows(db, tenant, ids)
  return new Map(rows.map((row) => [row.id, row.name]))
}

/**
 * Item units one serving of each recipe takes, per ingredient, converted to the item's current unit and
 * rounded to 10 decimals (an item whose unit changed to one the recipe's unit no longer converts to is read
 * in its own unit, as POS mappings are). Missing or deleted recipes are absent; ingredients whose item was
 * deleted are left out.
 */
export async function ingredientsPerServing(db: Executor, tenant: Tenant, recipeIds: string[]): Promise<Map<string, { itemId: string; unitsPerServing: Decimal }[]>> {
  const recipes = await findRecipeRows(db, tenant, recipeIds)
  const ingredients = byRecipe(
    await ingredientRows(
      db,
      tenant,
      recipes.map((recipe) => recipe.id),
    ),
  )
  const items = await findStockItems(
    db,
    tenant,
    [...ingredients.values()].flat().map((row) => row.inventory_item_id),
  )
  const result = new Map<string, { itemId: string; unitsPerServing: Decimal }[]>()
  for (const recipe of recipes) {
    const perServing: { itemId: string; unitsPerServing: Decimal }[] = []
    for (const ingredient of ingredients.get(recipe.id) ?? []) {
      const item = items.get(ingredient.inventory_item_id)
      if (!item) continue
      const quantity = decimal(ingredient.quantity)
      const units = toItemUnits(quantity, ingredient.unit, item) ?? quantity
      perServing.push({ itemId: item.id, unitsPerServing: units.round(PER_SERVING_DECIMALS) })
    }
    result.set(recipe.id, perServing)
  }
  return result
}

/**
 * Creates a recipe. Throws invalid_parameter (a selling price with over 2 decimals, an item given twice),
 * invalid_quantity, invalid_unit and item_not_found for its ingredients.
 */
export async function createRecipe(trx: Trx, tenant: Tenant, input: CreateRecipeBody): Promise<Recipe> {
  const sellingPrice = parseSellingPrice(input.selling_price)
  const ingredients = await checkIngredients(trx, tenant, input.ingredients)
  const id = newId('rcp')
  await insertRecipe(trx, tenant, id, { name: input.name, category: input.category, sellingPrice })
  await replaceIngredients(trx, tenant, id, ingredients)
  return getRecipe(trx, tenant, id)
}

/**
 * Changes the given fields of a live recipe; given ingredients replace the old ones whole. Throws
 * recipe_not_found, and the errors of createRecipe.
 */
export async function updateRecipe(trx: Trx, tenant: Tenant, id: string, input: UpdateRecipeBody): Promise<Recipe> {
  if (!(await lockRecipeRow(trx, tenant, id))) throw recipeErrors.recipeNotFound(id)
  const sellingPrice = input.selling_price === undefined ? undefined : parseSellingPrice(input.selling_price)
  const ingredients = input.ingredients === undefined ? undefined : await checkIngredients(trx, tenant, input.ingredients)
  await updateRecipeRow(trx, id, { name: input.name, category: input.category, sellingPrice })
  if (ingredients) await replaceIngredients(trx, tenant, id, ingredients)
  return getRecipe(trx, tenant, id)
}

/** Soft-deletes a live recipe (mappings and sales history keep pointing at it); recipe_not_found otherwise. */
export async function deleteRecipe(trx: Trx, tenant: Tenant, id: string) {
  if (!(await lockRecipeRow(trx, tenant, id))) throw recipeErrors.recipeNotFound(id)
  await softDeleteRecipe(trx, id)
  return { id, deleted: true as const }
}
