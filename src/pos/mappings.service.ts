import { checkDecimalPlaces } from '../platform/number-input.js'
import { sql } from 'kysely'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { quantityOut, toDbNumeric } from '../platform/decimal.js'
import { invalidParameter, platformErrors } from '../platform/errors.js'
import type { PageRequest } from '../platform/http/pagination.js'
import { inventoryErrors } from '../inventory/inventory.errors.js'
import { findItemRow, findItemRows, type ItemRow } from '../inventory/inventory.service.js'
import { checkConversionUnit } from '../inventory/conversion.js'
import { findRecipeNames, getRecipe } from '../recipes/recipes.service.js'
import { lockConnection, getConnectionRow } from './connections.service.js'
import { depleteLines, restateLines } from './depletion.js'
import {
  deleteMappingRow,
  ensurePosItem,
  findMapping,
  insertMapping,
  listMappingRows,
  rejectSuggestionRow,
  setSuggestion,
  updateMappingRow,
  type MappingListRow,
  type MappingRow,
} from './mappings.repository.js'
import { posErrors } from './pos.errors.js'
import type { CreateMappingBody, ListMappingsQuery, ProductMapping, UpdatedMapping, UpdateMappingBody } from './pos.schemas.js'
import { claimUndepletedLines } from './sales.repository.js'

const FACTOR_DECIMALS = 4

function checkFactor(value: number): string {
  checkDecimalPlaces('conversion_factor', value, FACTOR_DECIMALS)
  return toDbNumeric(value)
}

/** The name of what a mapping takes from: its recipe's, else its item's; null when unmapped. */
function targetName(row: MappingListRow, items: Map<string, ItemRow>, recipeNames: Map<string, string>): string | null {
  if (row.recipe_id !== null) return recipeNames.get(row.recipe_id) ?? row.recipe_id
  return row.inventory_item_id === null ? null : (items.get(row.inventory_item_id)?.name ?? null)
}

/**
 * Mappings list entries in the API's shape, with what inventory and recipes tell of their targets: the
 * mapped item's name (the recipe's for a recipe mapping), the suggested item's name and location. Items
 * and recipes deleted since keep their last names.
 */
async function toProductMappings(db: Executor, tenant: Tenant, rows: MappingListRow[]): Promise<ProductMapping[]> {
  const itemIds = rows.flatMap((row) => [row.inventory_item_id, row.suggested_item_id].filter((id): id is string => id !== null))
  const recipeIds = rows.flatMap((row) => (row.recipe_id === null ? [] : [row.recipe_id]))
  const [items, recipeNames] = await Promise.all([findItemRows(db, tenant, itemIds, { includeDeleted: true }), findRecipeNames(db, tenant, recipeIds)])
  return rows.map((row) => {
    const suggested = row.suggested_item_id === null ? undefined : items.get(row.suggested_item_id)
    const mapped = row.inventory_item_id !== null || row.recipe_id !== null
    return {
      pos_item_id: row.pos_item_id,
      pos_name: row.pos_name,
      category: row.category,
      mapped,
      inventory_item_id: row.inventory_item_id,
      recipe_id: row.recipe_id,
      inventory_name: targetName(row, items, recipeNames),
      conversion_factor: row.conversion_factor === null ? null : quantityOut(row.conversion_factor),
      conversion_unit: row.conversion_unit,
      last_synced: row.last_synced?.toISOString() ?? null,
      suggestion:
        !mapped && suggested && row.suggested_confidence !== null
          ? {
              inventory_item_id: suggested.id,
              location: suggested.location_id,
              inventory_name: suggested.name,
              confidence: Number(row.suggested_confidence),
              reason: row.suggested_reason,
            }
          : null,
      created_at: row.created_at?.toISOString() ?? null,
      updated_at: row.updated_at?.toISOString() ?? null,
    }
  })
}

export async function listMappings(db: Executor, tenant: Tenant, connectionId: string, query: ListMappingsQuery, page: PageRequest) {
  await getConnectionRow(db, tenant, connectionId)
  const { rows, total } = await listMappingRows(db, connectionId, query, page)
  return { mappings: await toProductMappings(db, tenant, rows), total }
}

/** What a mapping takes from stock: an inventory item (factor in conversionUnit) or a recipe (factor in servings). */
export type MappingTarget = { inventoryItemId: string; conversionUnit: string | undefined } | { recipeId: string }

export interface NewMapping {
  posItemId: string
  posName: string | undefined
  target: MappingTarget
  conversionFactor: string
  actor: string
}

/** The columns a target stores: the item with its checked conversion unit, or the live recipe. */
async function targetColumns(trx: Trx, tenant: Tenant, target: MappingTarget) {
  if ('recipeId' in target) {
    const recipe = await getRecipe(trx, tenant, target.recipeId)
    return { inventory_item_id: null, recipe_id: recipe.id, conversion_unit: null }
  }
  const item = await findItemRow(trx, tenant, target.inventoryItemId)
  if (!item) throw inventoryErrors.itemNotFound(target.inventoryItemId)
  return { inventory_item_id: item.id, recipe_id: null, conversion_unit: checkConversionUnit(item, target.conversionUnit) }
}

/**
 * Maps a POS item (reported or not yet) to an inventory item or a recipe on a locked connection, then
 * applies the POS item's stored sales that never depleted stock through inventory's sale-time rule (a
 * recipe's lines take every ingredient): those sold after an item's anchor take stock, older ones are
 * kept as history for analytics.
 * Throws item_not_found, recipe_not_found, invalid_unit, invalid_parameter (already mapped).
 */
export async function addMapping(trx: Trx, tenant: Tenant, connectionId: string, input: NewMapping): Promise<MappingRow> {
  const columns = await targetColumns(trx, tenant, input.target)
  if (await findMapping(trx, connectionId, input.posItemId)) {
    throw invalidParameter('pos_item_id', input.posItemId, `POS item ${input.posItemId} is already mapped; update or delete that mapping`)
  }
  await ensurePosItem(trx, { tenant, connectionId }, input.posItemId, input.posName ?? input.posItemId)
  const mapping = await insertMapping(trx, {
    connection_id: connectionId,
    pos_item_id: input.posItemId,
    account_id: tenant.accountId,
    environment: tenant.environment,
    ...columns,
    conversion_factor: input.conversionFactor,
    created_by: input.actor,
  })
  await setSuggestion(trx, connectionId, input.posItemId, null)
  const claimed = await claimUndepletedLines(trx, connectionId, input.posItemId)
  if (claimed.length > 0) {
    const where = sql<boolean>`s.sequence = ANY(${claimed}::bigint[])`
    await depleteLines(trx, tenant, connectionId, { posItemIds: [input.posItemId], where }, { actor: input.actor, referenceId: connectionId })
  }
  return mapping
}

const TARGET_FIELDS = ['inventory_item_id', 'recipe_id']

/**
 * The target of a create body: exactly one of inventory_item_id and recipe_id (invalid_parameter naming
 * both otherwise); a recipe mapping takes no conversion_unit, an item mapping needs a conversion_factor.
 */
function parseTarget(input: CreateMappingBody): { target: MappingTarget; conversionFactor: string } {
  const { inventory_item_id: itemId, recipe_id: recipeId } = input
  if ((itemId === undefined) === (recipeId === undefined)) {
    const both = itemId !== undefined
    throw platformErrors.invalidParameter(
      `Give exactly one of inventory_item_id and recipe_id; got ${both ? 'both' : 'neither'}`,
      { parameter: both ? 'recipe_id' : 'inventory_item_id', value: both ? recipeId : null, fields: TARGET_FIELDS },
    )
  }
  if (recipeId !== undefined) {
    if (input.conversion_unit !== undefined) {
      throw invalidParameter('conversion_unit', input.conversion_unit, 'A recipe mapping counts servings per POS unit: it takes no conversion_unit')
    }
    return { target: { recipeId }, conversionFactor: checkFactor(input.conversion_factor ?? 1) }
  }
  if (input.conversion_factor === undefined) {
    throw invalidParameter('conversion_factor', null, 'An item mapping needs conversion_factor: the amount of the item one POS unit takes')
  }
  return {
    target: { inventoryItemId: itemId as string, conversionUnit: input.conversion_unit },
    conversionFactor: checkFactor(input.conversion_factor),
  }
}

/**
 * Creates a mapping by hand (see addMapping). Throws connection_not_found, item_not_found,
 * recipe_not_found, invalid_unit, invalid_parameter.
 */
export async function createMapping(trx: Trx, tenant: Tenant, connectionId: string, input: CreateMappingBody, actor: string): Promise<ProductMapping> {
  await lockConnection(trx, tenant, connectionId)
  const { target, conversionFactor } = parseTarget(input)
  const mapping = await addMapping(trx, tenant, connectionId, { posItemId: input.pos_item_id, posName: input.pos_name, target, conversionFactor, actor })
  const { rows } = await listMappingRows(trx, connectionId, { posItemId: mapping.pos_item_id }, { page: 1, perPage: 1, offset: 0 })
  const [created] = await toProductMappings(trx, tenant, rows)
  return created as ProductMapping
}

/**
 * Changes a mapping's conversion (servings per POS unit for a recipe mapping, which takes no
 * conversion_unit) and restates the usage of the sales already stored at it (sales sold after an
 * item's anchor move its stock by the difference). Throws connection_not_found, mapping_not_found,
 * invalid_unit, invalid_parameter.
 */
export async function updateMapping(
  trx: Trx,
  tenant: Tenant,
  connectionId: string,
  posItemId: string,
  input: UpdateMappingBody,
  actor: string,
): Promise<UpdatedMapping> {
  await lockConnection(trx, tenant, connectionId)
  const current = await findMapping(trx, connectionId, posItemId)
  if (!current) throw posErrors.mappingNotFound([posItemId, connectionId])
  let conversionUnit: string | null = null
  if (current.recipe_id !== null) {
    if (input.conversion_unit !== undefined) {
      throw invalidParameter('conversion_unit', input.conversion_unit, 'A recipe mapping counts servings per POS unit: it takes no conversion_unit')
    }
  } else {
    const item = current.inventory_item_id === null ? undefined : await findItemRow(trx, tenant, current.inventory_item_id)
    conversionUnit = item ? checkConversionUnit(item, input.conversion_unit ?? current.conversion_unit ?? undefined) : current.conversion_unit
  }
  const updated = (await updateMappingRow(trx, connectionId, posItemId, {
    conversion_factor: checkFactor(input.conversion_factor),
    conversion_unit: conversionUnit,
  })) as MappingRow
  await restateLines(trx, tenant, connectionId, posItemId, { actor, referenceId: connectionId })
  return {
    pos_item_id: updated.pos_item_id,
    inventory_item_id: updated.inventory_item_id,
    recipe_id: updated.recipe_id,
    conversion_factor: quantityOut(updated.conversion_factor),
    conversion_unit: updated.conversion_unit,
    updated_at: updated.updated_at.toISOString(),
  }
}

/** Removes a mapping; the POS item stays listed as unmapped. Throws connection_not_found, mapping_not_found. */
/**
 * A person's "no" to an auto-map suggestion: it leaves the review queue, and auto-map never suggests or
 * maps that inventory item for this POS item again. Throws connection_not_found, and mapping_not_found
 * when the POS item has no suggestion (unknown, already mapped, or nothing suggested).
 */
export async function rejectSuggestion(trx: Trx, tenant: Tenant, connectionId: string, posItemId: string) {
  await lockConnection(trx, tenant, connectionId)
  const rejected = await rejectSuggestionRow(trx, connectionId, posItemId)
  if (rejected === undefined) throw posErrors.mappingNotFound([posItemId, connectionId])
  return { pos_item_id: posItemId, rejected_item_id: rejected }
}

export async function deleteMapping(trx: Trx, tenant: Tenant, connectionId: string, posItemId: string) {
  await lockConnection(trx, tenant, connectionId)
  if (!(await deleteMappingRow(trx, connectionId, posItemId))) throw posErrors.mappingNotFound([posItemId, connectionId])
  return { pos_item_id: posItemId, deleted: true as const }
}
