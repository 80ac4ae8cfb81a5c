import { sql } from 'kysely'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { decimal, decimalPlaces, quantityOut, toDbNumeric } from '../platform/decimal.js'
import { invalidParameter } from '../platform/errors.js'
import type { PageRequest } from '../platform/http/pagination.js'
import { inventoryErrors } from '../inventory/inventory.errors.js'
import { findItemRow } from '../inventory/inventory.service.js'
import { checkConversionUnit } from '../inventory/conversion.js'
import { lockConnection, getConnectionRow } from './connections.service.js'
import { depleteLines } from './depletion.js'
import {
  deleteMappingRow,
  ensurePosItem,
  findMapping,
  insertMapping,
  listMappingRows,
  setSuggestion,
  updateMappingRow,
  type MappingRow,
} from './mappings.repository.js'
import { posErrors } from './pos.errors.js'
import type { CreateMappingBody, ListMappingsQuery, ProductMapping, UpdatedMapping, UpdateMappingBody } from './pos.schemas.js'
import { claimUndepletedLines } from './sales.repository.js'

const FACTOR_DECIMALS = 4

function checkFactor(value: number): string {
  if (decimalPlaces(value) > FACTOR_DECIMALS) {
    throw invalidParameter('conversion_factor', value, `conversion_factor takes at most ${FACTOR_DECIMALS} decimals`)
  }
  return toDbNumeric(value)
}

export async function listMappings(db: Executor, tenant: Tenant, connectionId: string, query: ListMappingsQuery, page: PageRequest) {
  await getConnectionRow(db, tenant, connectionId)
  return listMappingRows(db, connectionId, query, page)
}

export interface NewMapping {
  posItemId: string
  posName: string | undefined
  inventoryItemId: string
  conversionFactor: string
  conversionUnit: string | undefined
  actor: string
}

/**
 * Maps a POS item (reported or not yet) to an inventory item on a locked connection, then applies the
 * item's stored sales that never depleted stock through inventory's sale-time rule: those sold after the
 * item's anchor take stock, older ones are kept as history for analytics.
 * Throws item_not_found, invalid_unit, invalid_parameter (already mapped).
 */
export async function addMapping(trx: Trx, tenant: Tenant, connectionId: string, input: NewMapping): Promise<MappingRow> {
  const item = await findItemRow(trx, tenant, input.inventoryItemId)
  if (!item) throw inventoryErrors.itemNotFound(input.inventoryItemId)
  const conversionUnit = checkConversionUnit(item, input.conversionUnit)
  if (await findMapping(trx, connectionId, input.posItemId)) {
    throw invalidParameter('pos_item_id', input.posItemId, `POS item ${input.posItemId} is already mapped; update or delete that mapping`)
  }
  await ensurePosItem(trx, { tenant, connectionId }, input.posItemId, input.posName ?? input.posItemId)
  const mapping = await insertMapping(trx, {
    connection_id: connectionId,
    pos_item_id: input.posItemId,
    account_id: tenant.accountId,
    environment: tenant.environment,
    inventory_item_id: item.id,
    conversion_factor: input.conversionFactor,
    conversion_unit: conversionUnit,
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

/** Creates a mapping by hand (see addMapping). Throws connection_not_found, item_not_found, invalid_unit, invalid_parameter. */
export async function createMapping(trx: Trx, tenant: Tenant, connectionId: string, input: CreateMappingBody, actor: string): Promise<ProductMapping> {
  await lockConnection(trx, tenant, connectionId)
  const mapping = await addMapping(trx, tenant, connectionId, {
    posItemId: input.pos_item_id,
    posName: input.pos_name,
    inventoryItemId: input.inventory_item_id,
    conversionFactor: checkFactor(input.conversion_factor),
    conversionUnit: input.conversion_unit,
    actor,
  })
  const { mappings } = await listMappingRows(trx, connectionId, { posItemId: mapping.pos_item_id }, { page: 1, perPage: 1, offset: 0 })
  return mappings[0] as ProductMapping
}

/** Changes a mapping's conversion; sales already applied stay as they were. Throws connection_not_found, mapping_not_found, invalid_unit. */
export async function updateMapping(trx: Trx, tenant: Tenant, connectionId: string, posItemId: string, input: UpdateMappingBody): Promise<UpdatedMapping> {
  await lockConnection(trx, tenant, connectionId)
  const current = await findMapping(trx, connectionId, posItemId)
  if (!current) throw posErrors.mappingNotFound([posItemId, connectionId])
  const item = await findItemRow(trx, tenant, current.inventory_item_id)
  const conversionUnit = item ? checkConversionUnit(item, input.conversion_unit ?? current.conversion_unit) : current.conversion_unit
  const updated = (await updateMappingRow(trx, connectionId, posItemId, {
    conversion_factor: checkFactor(input.conversion_factor),
    conversion_unit: conversionUnit,
  })) as MappingRow
  return {
    pos_item_id: updated.pos_item_id,
    inventory_item_id: updated.inventory_item_id,
    conversion_factor: quantityOut(updated.conversion_factor),
    conversion_unit: updated.conversion_unit,
    updated_at: updated.updated_at.toISOString(),
  }
}

/** Removes a mapping; the POS item stays listed as unmapped. Throws connection_not_found, mapping_not_found. */
export async function deleteMapping(trx: Trx, tenant: Tenant, connectionId: string, posItemId: string) {
  await lockConnection(trx, tenant, connectionId)
  if (!(await deleteMappingRow(trx, connectionId, posItemId))) throw posErrors.mappingNotFound([posItemId, connectionId])
  return { pos_item_id: posItemId, deleted: true as const }
}
