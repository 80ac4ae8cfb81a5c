import type { Tenant, Trx } from '../../platform/db/database.js'
import { listItemsForMatching } from '../../inventory/index.js'
import { toDbNumeric } from '../../platform/decimal.js'
import { type Conversion, type DefaultConversion, defaultConversionFor } from './default-conversion.js'
import { NameMatcher } from './name-matcher.js'
import { lockConnection } from '../connections/connections.service.js'
import { addMapping } from '../mappings/mappings.service.js'
import { countPosItems, setSuggestion, unmappedPosItems } from '../mappings/mappings.repository.js'
import { posErrors } from '../pos.errors.js'
import { type AutoMapResult, DEFAULT_CONFIDENCE_THRESHOLD } from '../mappings/mappings.schemas.js'

/** Matches from here up to the threshold are kept as suggestions to review. */
export const REVIEW_THRESHOLD = 0.6

/**
 * Matches the connection's unmapped POS items to the tenant's inventory items by name (never to recipes), one
 * candidate per SKU (the item at the connection's location where it stocks the SKU): at or above the
 * threshold a mapping is made (conversion read from the POS name, e.g. 1.5oz) when its conversion can be
 * computed; from 0.6 up, a match under the threshold or without a computable conversion is kept as a
 * suggestion with its reason; below 0.6, or the item a person rejected for it, nothing. Counts partition the unmapped items.
 * Throws connection_not_found, auto_map_failed (no POS products to map).
 */
export async function autoMap(trx: Trx, tenant: Tenant, connectionId: string, threshold = DEFAULT_CONFIDENCE_THRESHOLD, actor: string): Promise<AutoMapResult> {
  const connection = await lockConnection(trx, tenant, connectionId)
  if ((await countPosItems(trx, connectionId)) === 0) {
    throw posErrors.autoMapFailed(`Connection ${connectionId} has no POS products yet: run a sync or import sales first`)
  }
  const items = await listItemsForMatching(trx, tenant, connection.location_id)
  const matcher = new NameMatcher(items)
  const result: AutoMapResult = { mappings_created: 0, mappings_review: 0, unmapped_items: 0, mapped: [], review: [] }
  for (const posItem of await unmappedPosItems(trx, connectionId)) {
    const best = matcher.bestMatch(posItem.name)
    // A match a person rejected is no match.
    const match = best?.item.id === posItem.rejectedItemId ? undefined : best
    const confidence = match?.confidence ?? 0
    if (!match || confidence < REVIEW_THRESHOLD) {
      await setSuggestion(trx, connectionId, posItem.posItemId, null)
      result.unmapped_items++
      continue
    }
    const item = items.find((candidate) => candidate.id === match.item.id)!
    const decision = decide(confidence, threshold, defaultConversionFor(posItem.name, item))
    if ('review' in decision) {
      await setSuggestion(trx, connectionId, posItem.posItemId, { itemId: item.id, confidence, reason: decision.review })
      result.review.push({ pos_item_id: posItem.posItemId, name: posItem.name, inventory_item_id: item.id, location: item.location_id, confidence, reason: decision.review })
      result.mappings_review++
      continue
    }
    const { factor, unit } = decision.map
    await addMapping(trx, tenant, connectionId, {
      posItemId: posItem.posItemId,
      posName: posItem.name,
      target: { inventoryItemId: item.id, conversionUnit: unit },
      conversionFactor: toDbNumeric(factor),
      actor,
    })
    result.mapped.push({
      pos_item_id: posItem.posItemId,
      name: posItem.name,
      inventory_item_id: item.id,
      location: item.location_id,
      conversion_factor: factor,
      conversion_unit: unit,
      confidence,
    })
    result.mappings_created++
  }
  return result
}

/** A match of 0.6 or more is mapped at the threshold with a computable conversion, else left for review with the reason. */
function decide(confidence: number, threshold: number, conversion: DefaultConversion): { map: Conversion } | { review: string } {
  if (confidence < threshold) return { review: `confidence ${confidence.toFixed(2)} is under the threshold ${threshold}` }
  return 'conversion' in conversion ? { map: conversion.conversion } : { review: conversion.reviewReason }
}
