import { checkDecimalPlaces } from '../../platform/number-input.js'
import { sql } from 'kysely'
import type { Executor, Tenant, Trx } from '../../platform/db/database.js'
import { quantityOut, toDbNumeric } from '../../platform/decimal.js'
import { invalidParameter, platformErrors } from '../../platform/errors.js'
import type { PageRequest } from '../../platform/http/pagination.js'
import { checkConversionUnit, findStockItem, findStockItems, implausibleUsage, inventoryErrors, type StockItem } from '../../inventory/index.js'
import { findRecipeNames, getRecipe } from '../../recipes/index.js'
import { lockConnection, getConnectionRow } from '../connections/connections.service.js'
import { depleteLines, restateLines, usagePerPosUnit, type UsageRule } from '../sales/depletion.js'
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
import { posErrors } from '../pos.errors.js'
import type { CreateMappingBody, ListMappingsQuery, MappingWarning, ProductMapping, UpdateMappingBody, UsagePerSale } from './mappings.schemas.js'
import { claimUndepletedLines } from '../sales/sales.repository.js'

const FACTOR_DECIMALS = 4

function checkFactor(value: number): string {
  checkDecimalPlaces('conversion_factor', value, FACTOR_DECIMALS)
  return toDbNumeric(value)
}

/** The name of what a mapping takes from: its recipe's, else its item's; null when unmapped. */
function targetName(row: MappingListRow, items: Map<string, StockItem>, recipeNames: Map<string, string>): string | null {
  if (row.recipe_id !== null) return recipeNames.get(row.recipe_id) ?? row.recipe_id
  return row.inventory_item_id === null ? null : (items.get(row.inventory_item_id)?.name ?? null)
}

/** Digits of usage_per_sale: a 1.5 oz pour of a 750 ml bottle is 0.059147 bottle. */
const USAGE_DECIMALS = 6

/** What one POS unit takes, per item its mapping names, in the item's unit. */
function usagePerSale(rules: UsageRule[], items: Map<string, StockItem>): UsagePerSale[] {
  return rules.flatMap((rule) => {
    const item = items.get(rule.itemId)
    return item ? [{ inventory_item_id: item.id, inventory_name: item.name, units: Number(rule.unitsPerPosUnit.round(USAGE_DECIMALS)), unit: item.unit }] : []
  })
}

/** An implausible_usage warning per rule that looks wrong (inventory's implausibleUsage); a recipe's ingredient is never sold whole. */
function usageWarnings(rules: UsageRule[], items: Map<string, StockItem>): MappingWarning[] {
  return rules.flatMap((rule) => {
    const item = items.get(rule.itemId)
    const message = item && implausibleUsage(item, rule.unitsPerPosUnit, { soldWhole: rule.recipeId === null })
    return message ? [{ code: 'implausible_usage', message }] : []
  })
}

/**
 * Mappings list entries in the API's shape, with what inventory and recipes tell of their targets: the
 * mapped item's name (the recipe's for a recipe mapping), the suggested item's name and location, and
 * what one POS unit depletes (the rules depletion applies) with warnings when that looks wrong. Items
 * and recipes deleted since keep their last names.
 */
async function toProductMappings(db: Executor, tenant: Tenant, connectionId: string, rows: MappingListRow[]): Promise<ProductMapping[]> {
  const recipeIds = rows.flatMap((row) => (row.recipe_id === null ? [] : [row.recipe_id]))
  const mappedIds = rows.flatMap((row) => (row.inventory_item_id !== null || row.recipe_id !== null ? [row.pos_item_id] : []))
  const [rules, recipeNames] = await Promise.all([usagePerPosUnit(db, tenant, connectionId, mappedIds), findRecipeNames(db, tenant, recipeIds)])
  const itemIds = [
    ...rows.flatMap((row) => [row.inventory_item_id, row.suggested_item_id].filter((id): id is string => id !== null)),
    ...[...rules.values()].flat().map((rule) => rule.itemId),
  ]
  const items = await findStockItems(db, tenant, itemIds, { includeDeleted: true })
  return rows.map((row) => {
    const suggested = row.suggested_item_id === null ? undefined : items.get(row.suggested_item_id)
    const mapped = row.inventory_item_id !== null || row.recipe_id !== null
    const rulesOfRow = rules.get(row.pos_item_id) ?? []
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
      usage_per_sale: usagePerSale(rulesOfRow, items),
      warnings: usageWarnings(rulesOfRow, items),
      last_synced: row.last_synced?.toISOString() ?? null,
      suggestion:
        !mapped && suggested && row.suggested_confidence !== null
          ? {
              inventory_item_id: suggested.id,
              location: suggested.location,
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
  return { mappings: await toProductMappings(db, tenant, connectionId, rows), total }
}

/** One POS item of the list (mapped or not). Throws connection_not_found, mapping_not_found (a POS item the connection never reported). */
export async function getMapping(db: Executor, tenant: Tenant, connectionId: string, posItemId: string): Promise<ProductMapping> {
  await getConnectionRow(db, tenant, connectionId)
  const { rows } = await listMappingRows(db, connectionId, { posItemId }, { page: 1, perPage: 1, offset: 0 })
  const [mapping] = await toProductMappings(db, tenant, connectionId, rows)
  if (!mapping) throw posErrors.mappingNotFound([posItemId, connectionId])
  return mapping
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
  const item = await findStockItem(trx, tenant, target.inventoryItemId)
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

/** invalid_parameter for a body naming both an item and a recipe, or (on create) neither. */
function oneTargetError(both: boolean, recipeId: string | undefined) {
  return platformErrors.invalidParameter(`Give exactly one of inventory_item_id and recipe_id; got ${both ? 'both' : 'neither'}`, {
    parameter: both ? 'recipe_id' : 'inventory_item_id',
    value: both ? recipeId : null,
    fields: TARGET_FIELDS,
  })
}

/** A recipe mapping counts servings: every ingredient carries its own unit, so it takes no conversion_unit. */
function refuseRecipeUnit(conversionUnit: string | undefined): void {
  if (conversionUnit !== undefined) {
    throw invalidParameter('conversion_unit', conversionUnit, 'A recipe mapping counts servings per POS unit: it takes no conversion_unit')
  }
}

/**
 * The target of a create body: exactly one of inventory_item_id and recipe_id (invalid_parameter naming
 * both otherwise); a recipe mapping takes no conversion_unit, an item mapping needs a conversion_factor.
 */
function parseTarget(input: CreateMappingBody): { target: MappingTarget; conversionFactor: string } {
  const { inventory_item_id: itemId, recipe_id: recipeId } = input
  if ((itemId === undefined) === (recipeId === undefined)) throw oneTargetError(itemId !== undefined, recipeId)
  if (recipeId !== undefined) {
    refuseRecipeUnit(input.conversion_unit)
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
  return getMapping(trx, tenant, connectionId, mapping.pos_item_id)
}

/**
 * The target of an update body over the current mapping: what the body names, else what the mapping
 * had. Moving between an item and a recipe needs conversion_factor (an amount of the item and a number
 * of servings do not convert); re-pointing to another item keeps the factor and conversion_unit unless
 * given. Throws invalid_parameter.
 */
function updatedTarget(current: MappingRow, input: UpdateMappingBody): { target: MappingTarget; conversionFactor: string } {
  const { inventory_item_id: itemId, recipe_id: recipeId } = input
  if (itemId !== undefined && recipeId !== undefined) throw oneTargetError(true, recipeId)
  const wasRecipe = current.recipe_id !== null
  const toRecipe = recipeId !== undefined || (itemId === undefined && wasRecipe)
  if (toRecipe !== wasRecipe && input.conversion_factor === undefined) {
    const meaning = toRecipe ? 'servings of the recipe per POS unit' : 'the amount of the item one POS unit takes'
    throw invalidParameter('conversion_factor', null, `Switching a mapping between an item and a recipe needs conversion_factor: ${meaning}`)
  }
  const conversionFactor = input.conversion_factor === undefined ? current.conversion_factor : checkFactor(input.conversion_factor)
  if (toRecipe) {
    refuseRecipeUnit(input.conversion_unit)
    return { target: { recipeId: recipeId ?? (current.recipe_id as string) }, conversionFactor }
  }
  const conversionUnit = input.conversion_unit ?? (wasRecipe ? undefined : (current.conversion_unit ?? undefined))
  return { target: { inventoryItemId: itemId ?? (current.inventory_item_id as string), conversionUnit }, conversionFactor }
}

/**
 * Changes what a mapping takes (its item or recipe) and at what conversion, then restates the history it
 * covers: every stored line of the POS item is depleted again under the new mapping (restateLines), so
 * reports move the usage to the new item or recipe, and lines sold after an item's anchor move its stock
 * (the old item gets its usage back, the new one gives it). Throws connection_not_found,
 * mapping_not_found, item_not_found, recipe_not_found, invalid_unit, invalid_parameter.
 */
export async function updateMapping(trx: Trx, tenant: Tenant, connectionId: string, posItemId: string, input: UpdateMappingBody, actor: string): Promise<ProductMapping> {
  await lockConnection(trx, tenant, connectionId)
  const current = await findMapping(trx, connectionId, posItemId)
  if (!current) throw posErrors.mappingNotFound([posItemId, connectionId])
  const { target, conversionFactor } = updatedTarget(current, input)
  const columns = await targetColumns(trx, tenant, target)
  await updateMappingRow(trx, connectionId, posItemId, { ...columns, conversion_factor: conversionFactor })
  await restateLines(trx, tenant, connectionId, posItemId, { actor, referenceId: connectionId })
  return getMapping(trx, tenant, connectionId, posItemId)
}

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

/**
 * Removes a mapping: later lines of the POS item stay unmapped, and its stored lines become unmapped sales
 * again (restateLines without a mapping): their usage leaves the reports, stock they took after an item's
 * anchor is given back, and a new mapping takes them as it takes any unmapped line. The POS item stays
 * listed as unmapped. Throws connection_not_found, mapping_not_found.
 */
export async function deleteMapping(trx: Trx, tenant: Tenant, connectionId: string, posItemId: string, actor: string) {
  await lockConnection(trx, tenant, connectionId)
  if (!(await deleteMappingRow(trx, connectionId, posItemId))) throw posErrors.mappingNotFound([posItemId, connectionId])
  await restateLines(trx, tenant, connectionId, posItemId, { actor, referenceId: connectionId })
  return { pos_item_id: posItemId, deleted: true as const }
}
