import { type RawBuilder, sql } from 'kysely'
import type { Executor, Tenant, Trx } from '../../platform/db/database.js'
import { type Decimal, decimal } from '../../platform/decimal.js'
import { applySaleUsage, findStockItems, itemsDepletedAt, restateSaleUsage, type SaleUsageRow, stockUsed, withdrawSaleUsage } from '../../inventory/index.js'
import { ingredientsPerServing } from '../../recipes/index.js'
import { mappingsOf } from '../mappings/mappings.repository.js'
import { releaseDepletedLines } from './sales.repository.js'

/** What one POS unit of a mapped POS item takes from one inventory item, in the item's unit. */
export interface UsageRule {
  posItemId: string
  itemId: string
  unitsPerPosUnit: Decimal
  recipeId: string | null
}

/** Digits kept of a per-unit conversion: a 1.5 oz pour of a 750 ml bottle is 0.0591470 bottle. */
const PER_UNIT_DECIMALS = 10

/**
 * The usage rules of a connection's mappings (of some POS items, or all). An item mapping gives one rule:
 * conversion_factor in its conversion_unit, converted to the item's unit. A recipe mapping gives one rule
 * per ingredient: conversion_factor (servings per POS unit) × the ingredient's item units per serving,
 * with the recipe's id. A mapping to an item deleted since has none, nor has a recipe deleted since (or an
 * ingredient whose item was deleted), so lines that took nothing stay undepleted for a new mapping to take.
 */
async function usageRules(db: Executor, tenant: Tenant, connectionId: string, posItemIds?: string[]): Promise<UsageRule[]> {
  const mappings = [...(await mappingsOf(db, connectionId, posItemIds)).values()]
  const itemIds = mappings.flatMap((mapping) => (mapping.inventory_item_id === null ? [] : [mapping.inventory_item_id]))
  const recipeIds = mappings.flatMap((mapping) => (mapping.recipe_id === null ? [] : [mapping.recipe_id]))
  const items = await findStockItems(db, tenant, itemIds)
  const recipes = await ingredientsPerServing(db, tenant, recipeIds)
  return mappings.flatMap((mapping): UsageRule[] => {
    if (mapping.recipe_id !== null) {
      const servings = decimal(mapping.conversion_factor)
      return (recipes.get(mapping.recipe_id) ?? []).map((ingredient) => ({
        posItemId: mapping.pos_item_id,
        itemId: ingredient.itemId,
        unitsPerPosUnit: servings.times(ingredient.unitsPerServing),
        recipeId: mapping.recipe_id,
      }))
    }
    const item = mapping.inventory_item_id === null ? undefined : items.get(mapping.inventory_item_id)
    if (!item) return []
    const unitsPerPosUnit = stockUsed(decimal(1), mapping.conversion_factor, mapping.conversion_unit ?? item.unit, item)
    return [{ posItemId: mapping.pos_item_id, itemId: item.id, unitsPerPosUnit, recipeId: null }]
  })
}

/** The rules grouped by the POS item they deplete for. */
function byPosItem(rules: UsageRule[]): Map<string, UsageRule[]> {
  const rulesOf = new Map<string, UsageRule[]>()
  for (const rule of rules) {
    const ofPosItem = rulesOf.get(rule.posItemId)
    if (ofPosItem) ofPosItem.push(rule)
    else rulesOf.set(rule.posItemId, [rule])
  }
  return rulesOf
}

/**
 * What one POS unit of each of these POS items takes, by POS item: the rules depletion applies (one per
 * item mapping, one per live ingredient of a recipe mapping), of the items the mappings name; a line sold
 * at another venue takes the same amount from that venue's item of the SKU. No entry: depletes nothing.
 */
export async function usagePerPosUnit(db: Executor, tenant: Tenant, connectionId: string, posItemIds: string[]): Promise<Map<string, UsageRule[]>> {
  return byPosItem(await usageRules(db, tenant, connectionId, posItemIds))
}

export interface DepletionResult {
  /** POS items whose lines took usage (mapped to a live item, or to a live recipe with a live ingredient). */
  depletedPosItems: Set<string>
  /** Inventory items this depletion took from zero or more to below zero. */
  itemsBelowZero: number
}

interface LineSelection {
  posItemIds?: string[]
  /** A condition on `s`, the pos_sales row. */
  where: RawBuilder<boolean>
}

/** The connection's depleted lines that match `lines`, as a condition on `s`, the pos_sales row. */
function selectedLines(connectionId: string, lines: LineSelection): RawBuilder<boolean> {
  return sql<boolean>`s.connection_id = ${connectionId} AND s.depleted AND ${lines.where}`
}

/** A usage rule as it applies to the lines sold at one location. */
interface PlacedRule extends UsageRule {
  locationId: string
}

/**
 * The rules as they apply at each location the selected lines were sold at: each rule's item becomes
 * the item its lines deplete there (inventory's itemsDepletedAt: the item of its SKU at that location,
 * else the rule's own), its units converted to that item's. Rules of one POS item that land on one item
 * (a recipe naming one product at two locations) are added up: a line records one usage per item.
 */
async function placeRules(trx: Trx, tenant: Tenant, rules: UsageRule[], connectionId: string, lines: LineSelection): Promise<PlacedRule[]> {
  const sold = await sql<{ pos_item_id: string; location_id: string }>`
    SELECT DISTINCT s.pos_item_id, s.location_id FROM pos_sales s WHERE ${selectedLines(connectionId, lines)}`.execute(trx)
  const rulesOf = byPosItem(rules)
  const unplaced = sold.rows.flatMap((line) => (rulesOf.get(line.pos_item_id) ?? []).map((rule) => ({ ...rule, locationId: line.location_id })))
  const depletedAt = await itemsDepletedAt(
    trx,
    tenant,
    unplaced.map((rule) => ({ itemId: rule.itemId, location: rule.locationId })),
  )
  const placed = new Map<string, PlacedRule>()
  for (const rule of unplaced) {
    const depleted = depletedAt(rule.itemId, rule.locationId)
    const key = JSON.stringify([rule.posItemId, rule.locationId, depleted.itemId])
    const unitsPerPosUnit = rule.unitsPerPosUnit.times(depleted.unitsPerNamedUnit).plus(placed.get(key)?.unitsPerPosUnit ?? 0)
    placed.set(key, { ...rule, itemId: depleted.itemId, unitsPerPosUnit })
  }
  return [...placed.values()]
}

/** The per-line usage of a connection's depleted lines that match `lines`, as inventory's sale usage source; undefined without rules. */
async function usageSource(trx: Trx, tenant: Tenant, connectionId: string, lines: LineSelection) {
  const rules = await usageRules(trx, tenant, connectionId, lines.posItemIds)
  if (rules.length === 0) return undefined
  const placed = await placeRules(trx, tenant, rules, connectionId, lines)
  const column = <T>(pick: (rule: PlacedRule) => T) => placed.map(pick)
  const rows = sql<SaleUsageRow>`
    SELECT s.sequence AS sale_line, f.item_id, s.location_id AS sale_location_id, s.sold_at, s.quantity * f.per_unit AS units, f.recipe_id
    FROM pos_sales s
    JOIN unnest(${column((r) => r.posItemId)}::text[], ${column((r) => r.locationId)}::text[], ${column((r) => r.itemId)}::text[],
      ${column((r) => r.unitsPerPosUnit.toFixed(PER_UNIT_DECIMALS))}::numeric[], ${column((r) => r.recipeId)}::text[])
      AS f (pos_item_id, location_id, item_id, per_unit, recipe_id) ON f.pos_item_id = s.pos_item_id AND f.location_id = s.location_id
    WHERE ${selectedLines(connectionId, lines)}`
  return { source: { itemIds: [...new Set(column((r) => r.itemId))], rows }, posItemIds: new Set(rules.map((r) => r.posItemId)) }
}

/**
 * Turns a connection's stored lines that are marked depleted and match `lines` into usage of the items
 * their mappings stand for at the lines' own locations (placeRules), through inventory's sale-time rule
 * (applySaleUsage): each line is converted once, here, and stored per item. The caller holds the transaction.
 */
export async function depleteLines(
  trx: Trx,
  tenant: Tenant,
  connectionId: string,
  lines: LineSelection,
  movement: { actor: string; referenceId: string | null },
): Promise<DepletionResult> {
  const usage = await usageSource(trx, tenant, connectionId, lines)
  if (!usage) return { depletedPosItems: new Set(), itemsBelowZero: 0 }
  const applied = await applySaleUsage(trx, tenant, usage.source, movement)
  return { depletedPosItems: usage.posItemIds, itemsBelowZero: applied.itemsBelowZero }
}

/**
 * Restates the usage of one POS item's depleted lines at its mapping as it now stands (after the mapping
 * changed its conversion, item or recipe), each line again taking the item of the SKU at its own location
 * where there is one, through inventory's restateSaleUsage. Without a mapping that takes anything (deleted,
 * or its item or recipe deleted) the lines' usage is withdrawn and they become unmapped sales again
 * (depleted false), for a later mapping to take; a run still in flight decides its own lines at its
 * commit. The caller holds the transaction.
 */
export async function restateLines(trx: Trx, tenant: Tenant, connectionId: string, posItemId: string, movement: { actor: string; referenceId: string | null }): Promise<void> {
  const lines = { posItemIds: [posItemId], where: sql<boolean>`s.pos_item_id = ${posItemId}` }
  const usage = await usageSource(trx, tenant, connectionId, lines)
  if (usage) {
    await restateSaleUsage(trx, tenant, usage.source, movement)
    return
  }
  const released = await releaseDepletedLines(trx, connectionId, posItemId)
  if (released.length > 0) await withdrawSaleUsage(trx, tenant, released, movement)
}
