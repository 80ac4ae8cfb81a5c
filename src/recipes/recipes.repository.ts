import type { Selectable } from 'kysely'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import type { PageRequest } from '../platform/http/pagination.js'
import type { RecipeIngredientTable, RecipeTable } from './recipes.tables.js'
import { pageWithTotal } from '../platform/db/page.js'

export type RecipeRow = Selectable<RecipeTable>
export type IngredientRow = Selectable<RecipeIngredientTable>

/** A recipe's fields as stored, with its ingredients as written (quantity a decimal string). */
export interface RecipeFields {
  name: string
  category: string
  sellingPrice: string
}

export interface IngredientFields {
  itemId: string
  quantity: string
  unit: string
}

function liveRecipes(db: Executor, tenant: Tenant) {
  return db.selectFrom('recipes').where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment).where('deleted_at', 'is', null)
}

export async function findRecipeRow(db: Executor, tenant: Tenant, id: string): Promise<RecipeRow | undefined> {
  return liveRecipes(db, tenant).selectAll().where('id', '=', id).executeTakeFirst()
}

/** The live recipe, locked until the transaction ends, so concurrent changes to it queue. */
export async function lockRecipeRow(trx: Trx, tenant: Tenant, id: string): Promise<RecipeRow | undefined> {
  return liveRecipes(trx, tenant).selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
}

type RecipeFilter = { recipeId?: string; category?: string }

function filteredRecipes(db: Executor, tenant: Tenant, filter: RecipeFilter) {
  let select = liveRecipes(db, tenant)
  if (filter.recipeId !== undefined) select = select.where('id', '=', filter.recipeId)
  if (filter.category !== undefined) select = select.where('category', '=', filter.category)
  return select
}

/** A page of the live recipes by name, optionally of one category, and how many there are. */
export async function listRecipeRows(db: Executor, tenant: Tenant, filter: RecipeFilter, page: PageRequest): Promise<{ rows: RecipeRow[]; total: number }> {
  const select = filteredRecipes(db, tenant, filter)
  return pageWithTotal(select.selectAll().orderBy('name').orderBy('id'), select, page)
}

/** Every live recipe by name, optionally one id or one category. */
export async function allRecipeRows(db: Executor, tenant: Tenant, filter: RecipeFilter): Promise<RecipeRow[]> {
  return filteredRecipes(db, tenant, filter).selectAll().orderBy('name').orderBy('id').execute()
}

/** The live recipes among `ids`. */
export async function findRecipeRows(db: Executor, tenant: Tenant, ids: string[]): Promise<RecipeRow[]> {
  if (ids.length === 0) return []
  return liveRecipes(db, tenant)
    .selectAll()
    .where('id', 'in', [...new Set(ids)])
    .execute()
}

/** The names of the recipes among `ids`, deleted ones too (a deleted recipe keeps its last name). */
export async function recipeNameRows(db: Executor, tenant: Tenant, ids: string[]): Promise<{ id: string; name: string }[]> {
  if (ids.length === 0) return []
  return db
    .selectFrom('recipes')
    .select(['id', 'name'])
    .where('account_id', '=', tenant.accountId)
    .where('environment', '=', tenant.environment)
    .where('id', 'in', [...new Set(ids)])
    .execute()
}

/** The ingredients of the given recipes, in their order within each recipe. */
export async function ingredientRows(db: Executor, tenant: Tenant, recipeIds: string[]): Promise<IngredientRow[]> {
  if (recipeIds.length === 0) return []
  return db
    .selectFrom('recipe_ingredients')
    .selectAll()
    .where('account_id', '=', tenant.accountId)
    .where('environment', '=', tenant.environment)
    .where('recipe_id', 'in', [...new Set(recipeIds)])
    .orderBy('recipe_id')
    .orderBy('position')
    .execute()
}

export async function insertRecipe(trx: Trx, tenant: Tenant, id: string, fields: RecipeFields): Promise<void> {
  await trx
    .insertInto('recipes')
    .values({
      id,
      account_id: tenant.accountId,
      environment: tenant.environment,
      name: fields.name,
      category: fields.category,
      selling_price: fields.sellingPrice,
    })
    .execute()
}

export async function updateRecipeRow(trx: Trx, id: string, fields: Partial<RecipeFields>): Promise<void> {
  await trx
    .updateTable('recipes')
    .set({
      ...(fields.name !== undefined && { name: fields.name }),
      ...(fields.category !== undefined && { category: fields.category }),
      ...(fields.sellingPrice !== undefined && { selling_price: fields.sellingPrice }),
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .execute()
}

/** Replaces a recipe's ingredients with `ingredients`, in that order. */
export async function replaceIngredients(trx: Trx, tenant: Tenant, recipeId: string, ingredients: IngredientFields[]): Promise<void> {
  await trx.deleteFrom('recipe_ingredients').where('recipe_id', '=', recipeId).execute()
  if (ingredients.length === 0) return
  await trx
    .insertInto('recipe_ingredients')
    .values(
      ingredients.map((ingredient, position) => ({
        recipe_id: recipeId,
        account_id: tenant.accountId,
        environment: tenant.environment,
        position,
        inventory_item_id: ingredient.itemId,
        quantity: ingredient.quantity,
        unit: ingredient.unit,
      })),
    )
    .execute()
}

export async function softDeleteRecipe(trx: Trx, id: string): Promise<void> {
  const now = new Date()
  await trx.updateTable('recipes').set({ deleted_at: now, updated_at: now }).where('id', '=', id).execute()
}
