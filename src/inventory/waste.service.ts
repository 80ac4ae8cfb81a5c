import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { decimal, MONEY_DECIMALS, moneyOut, quantityOut, QUANTITY_STORED_DECIMALS, sum } from '../platform/decimal.js'
import { invalidParameter } from '../platform/errors.js'
import { parseDateRange, parsePastTime } from '../platform/http/date-filter.js'
import type { PageRequest } from '../platform/http/pagination.js'
import { newId } from '../platform/ids.js'
import { enqueue } from '../platform/outbox.js'
import { getLocation } from '../locations/index.js'
import { convertibleUnits, toItemUnits } from './conversion.js'
import { inventoryErrors } from './inventory.errors.js'
import { type ItemRow, lockItemRows } from './inventory.repository.js'
import { parseQuantity } from './inventory.service.js'
import { findWasteRow, insertWaste, listWasteRows, operationLines, type OperationLineRow, type WasteRow } from './operations.repository.js'
import { type ListWasteQuery, WASTE_REASONS, type WasteBody, type WasteEntry } from './operations.schemas.js'
import { applyOperation, type OperationMove, voidOperation } from './stock-operations.js'
import { isUnit, UNITS } from './units.js'

/**
 * Recorded waste (DECISIONS, Bar operations → Waste): spills, breakage, comps the POS did not ring, staff
 * drinks, spoilage, returns. It leaves stock like a sale and is explained usage in the variance report.
 */

type WasteLineInput = WasteBody['items'][number]

function checkReason(reason: string, index: number): void {
  if (!(WASTE_REASONS as readonly string[]).includes(reason)) {
    throw invalidParameter(`items[${index}].reason`, reason, `reason must be one of ${WASTE_REASONS.join(', ')}`)
  }
}

/** The line's item, checked to be at the location. */
function itemOf(items: Map<string, ItemRow>, line: WasteLineInput, location: string, index: number): ItemRow {
  const item = items.get(line.item_id)
  if (!item) throw inventoryErrors.itemNotFound(line.item_id)
  if (item.location_id !== location) {
    throw invalidParameter(`items[${index}].item_id`, line.item_id, `item ${line.item_id} is stored at ${item.location_id}, not ${location}`)
  }
  return item
}

/** One line as a move out of its item, in the item's unit (a spill in oz of a 750 ml bottle: 0.0591 bottle). */
function moveOf(item: ItemRow, line: WasteLineInput, index: number): OperationMove {
  checkReason(line.reason, index)
  const entered = parseQuantity(line.quantity, `items[${index}].quantity`)
  const unit = line.unit ?? item.unit
  const parameter = `items[${index}].unit`
  if (!isUnit(unit)) throw inventoryErrors.invalidUnit([unit, UNITS.join(', ')], { parameter, value: unit })
  const quantity = toItemUnits(entered, unit, item)?.round(QUANTITY_STORED_DECIMALS)
  if (quantity === undefined) throw inventoryErrors.invalidUnit([unit, convertibleUnits(item).join(', ')], { parameter, value: unit })
  if (quantity.lte(0)) {
    throw inventoryErrors.invalidQuantity(`items[${index}].quantity must be more than zero (in the item’s unit, to 4 decimals)`, {
      parameter: `items[${index}].quantity`,
      value: line.quantity,
    })
  }
  return {
    item,
    kind: 'waste',
    lineNo: index,
    quantity,
    unitCost: decimal(item.cost_per_unit),
    waste: { reason: line.reason, enteredQuantity: entered, enteredUnit: unit, notes: line.notes ?? null },
  }
}

function lineCost(line: OperationLineRow) {
  return decimal(line.quantity).times(line.unit_cost).round(MONEY_DECIMALS)
}

function wasteOut(row: WasteRow, lines: OperationLineRow[]): WasteEntry {
  return {
    id: row.id,
    location: row.location_id,
    recorded_by: row.recorded_by,
    occurred_at: row.occurred_at.toISOString(),
    items: lines.map((line) => ({
      item_id: line.item_id,
      name: line.item_name,
      quantity: quantityOut(line.entered_quantity ?? line.quantity),
      unit: line.entered_unit ?? '',
      quantity_in_item_unit: quantityOut(line.quantity),
      reason: line.reason as WasteEntry['items'][number]['reason'],
      notes: line.notes,
      cost: moneyOut(lineCost(line)),
    })),
    total_cost: moneyOut(sum(lines.map(lineCost))),
    voided_at: row.voided_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  }
}

/**
 * Records waste at a location and emits inventory.waste_recorded (and inventory.updated per item).
 * Throws invalid_parameter (an item elsewhere, an unknown reason, a future time), invalid_quantity,
 * invalid_unit, location_not_found, item_not_found.
 */
export async function recordWaste(trx: Trx, tenant: Tenant, input: WasteBody): Promise<WasteEntry> {
  const requestedAt = input.occurred_at === undefined ? undefined : parsePastTime(input.occurred_at, 'occurred_at')
  await getLocation(trx, tenant, input.location)
  const items = await lockItemRows(
    trx,
    tenant,
    input.items.map((line) => line.item_id),
  )
  // Now by default, taken under the locks as a count's is.
  const occurredAt = requestedAt ?? new Date()
  const moves = input.items.map((line, index) => moveOf(itemOf(items, line, input.location, index), line, index))
  const row = await insertWaste(trx, {
    id: newId('wst'),
    account_id: tenant.accountId,
    environment: tenant.environment,
    location_id: input.location,
    recorded_by: input.recorded_by,
    occurred_at: occurredAt,
  })
  await applyOperation(trx, tenant, { id: row.id, kind: 'waste', occurredAt, actor: input.recorded_by }, moves)
  const entry = wasteOut(row, (await operationLines(trx, [row.id])).get(row.id) ?? [])
  await enqueue(trx, tenant, 'inventory.waste_recorded', {
    waste_id: entry.id,
    location: entry.location,
    recorded_by: entry.recorded_by,
    items: entry.items.map((line) => ({ item_id: line.item_id, name: line.name, quantity: line.quantity_in_item_unit, reason: line.reason, cost: line.cost })),
    total_cost: entry.total_cost,
  })
  return entry
}

/** A waste entry with its lines. Throws waste_not_found. */
export async function getWaste(db: Executor, tenant: Tenant, id: string): Promise<WasteEntry> {
  const row = await findWasteRow(db, tenant, id)
  if (!row) throw inventoryErrors.wasteNotFound(id)
  return wasteOut(row, (await operationLines(db, [id])).get(id) ?? [])
}

/** A page of waste entries, newest first. Throws location_not_found, invalid_parameter (dates). */
export async function listWaste(db: Executor, tenant: Tenant, query: ListWasteQuery, page: PageRequest) {
  const { from, before } = parseDateRange(query)
  if (query.location !== undefined) await getLocation(db, tenant, query.location)
  const { rows, total } = await listWasteRows(db, tenant, { location: query.location, reason: query.reason, from, before }, page)
  const lines = await operationLines(
    db,
    rows.map((row) => row.id),
  )
  return { entries: rows.map((row) => wasteOut(row, lines.get(row.id) ?? [])), total }
}

/** Voids a waste entry as voidTransfer does a transfer. Throws waste_not_found. */
export async function voidWaste(trx: Trx, tenant: Tenant, id: string, actor: string): Promise<WasteEntry> {
  const row = await findWasteRow(trx, tenant, id, { lock: true })
  if (!row) throw inventoryErrors.wasteNotFound(id)
  await voidOperation(trx, tenant, { table: 'inventory_waste', id, kind: 'waste', occurredAt: row.occurred_at, actor, voidedAt: row.voided_at })
  return getWaste(trx, tenant, id)
}
