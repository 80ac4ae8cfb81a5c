import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { type Decimal, decimal, quantityOut, QUANTITY_STORED_DECIMALS, UNIT_COST_DECIMALS, unitCostOut } from '../platform/decimal.js'
import { invalidParameter } from '../platform/errors.js'
import { parseDateRange, parsePastTime } from '../platform/http/date-filter.js'
import type { PageRequest } from '../platform/http/pagination.js'
import { newId } from '../platform/ids.js'
import { getLocation } from '../locations/index.js'
import { skuUnitsPer } from './conversion.js'
import { inventoryErrors } from './inventory.errors.js'
import type { Category } from './units.js'
import { findItemRows, type ItemRow, lockItemRows, lockSku } from './inventory.repository.js'
import { createItemRow, parseQuantity } from './inventory.service.js'
import { findTransferRow, insertTransfer, listTransferRows, operationLines, type OperationLineRow, type TransferRow } from './operations.repository.js'
import type { ListTransfersQuery, Transfer, TransferBody } from './operations.schemas.js'
import { applyOperation, type OperationMove, voidOperation } from './stock-operations.js'

/**
 * Transfers move stock between two locations of the account (DECISIONS, Bar operations → Transfers):
 * out of each source item and into the item of the same SKU at the destination, created there when the
 * destination has none. One transaction, two ledger rows per line.
 */

/** A transfer line checked: its source item and quantity in the source's unit. */
interface SourceLine {
  source: ItemRow
  quantity: Decimal
  lineNo: number
}

/**
 * How many destination units one source unit is: 1 for the same unit and size, a case's units for a case
 * into its units (and back), else undefined (transfer_mismatch).
 */
function destinationUnitsPer(source: ItemRow, destination: ItemRow): Decimal | undefined {
  if (source.size_ml !== null && destination.size_ml !== null && source.size_ml !== destination.size_ml) return undefined
  if (source.unit === destination.unit && source.size_ml !== destination.size_ml) return undefined
  return skuUnitsPer(source, destination)
}

function mismatch(source: ItemRow, destination: ItemRow, index: number) {
  const describe = (item: ItemRow) => `${item.unit}${item.size_ml === null ? '' : ` of ${item.size_ml} ml`}${item.case_size === null ? '' : ` (case of ${item.case_size})`}`
  return inventoryErrors.transferMismatch(
    `items[${index}]: ${source.id} (${describe(source)}) does not convert to ${destination.id} at ${destination.location_id} (${describe(destination)}), though both are SKU ${source.sku}`,
    { parameter: `items[${index}].item_id`, from_item_id: source.id, to_item_id: destination.id },
  )
}

/** The live items of these SKUs at a location, by SKU. */
async function itemIdsBySku(trx: Trx, tenant: Tenant, location: string, skus: string[]): Promise<Map<string, string>> {
  if (skus.length === 0) return new Map()
  const rows = await trx
    .selectFrom('inventory_items')
    .select(['id', 'sku'])
    .where('account_id', '=', tenant.accountId)
    .where('environment', '=', tenant.environment)
    .where('location_id', '=', location)
    .where('sku', 'in', skus)
    .where('deleted_at', 'is', null)
    .execute()
  return new Map(rows.map((row) => [row.sku, row.id]))
}

function checkLines(input: TransferBody): { itemId: string; quantity: Decimal; lineNo: number }[] {
  if (input.from_location === input.to_location) {
    throw invalidParameter('to_location', input.to_location, 'a transfer moves stock between two different locations')
  }
  const seen = new Set<string>()
  return input.items.map((line, index) => {
    if (seen.has(line.item_id)) throw invalidParameter(`items[${index}].item_id`, line.item_id, `item ${line.item_id} is transferred twice`)
    seen.add(line.item_id)
    const quantity = parseQuantity(line.quantity, `items[${index}].quantity`)
    if (quantity.eq(0)) throw inventoryErrors.invalidQuantity(`items[${index}].quantity must be more than zero`, { parameter: `items[${index}].quantity`, value: line.quantity })
    return { itemId: line.item_id, quantity, lineNo: index }
  })
}

function sourceLinesOf(input: TransferBody, lines: { itemId: string; quantity: Decimal; lineNo: number }[], items: Map<string, ItemRow>): SourceLine[] {
  return lines.map(({ itemId, quantity, lineNo }) => {
    const source = items.get(itemId)
    if (!source) throw inventoryErrors.itemNotFound(itemId)
    if (source.location_id !== input.from_location) {
      throw invalidParameter(`items[${lineNo}].item_id`, itemId, `item ${itemId} is stored at ${source.location_id}, not ${input.from_location}`)
    }
    return { source, quantity, lineNo }
  })
}

/** The destination item of each SKU: the location's own (locked with the sources), else created from the source. */
async function destinationsOf(
  trx: Trx,
  tenant: Tenant,
  input: TransferBody,
  lines: SourceLine[],
  locked: Map<string, ItemRow>,
  existing: Map<string, string>,
  at: Date,
  actor: string,
) {
  const destinations = new Map<string, ItemRow>()
  for (const { source } of lines) {
    if (destinations.has(source.sku)) continue
    const id = existing.get(source.sku)
    const found = id === undefined ? undefined : locked.get(id)
    destinations.set(source.sku, found ?? (await createDestination(trx, tenant, source, input.to_location, at, actor)))
  }
  return destinations
}

/** The destination item a transfer creates: the source's product fields and container weights, no stock before the move (nor par or reorder point). */
async function createDestination(trx: Trx, tenant: Tenant, source: ItemRow, location: string, transferredAt: Date, actor: string): Promise<ItemRow> {
  const product = {
    name: source.name,
    sku: source.sku,
    category: source.category as Category,
    unit: source.unit,
    location,
    quantity: 0,
    cost_per_unit: Number(source.cost_per_unit),
    ...(source.size_ml !== null && { size_ml: source.size_ml }),
    ...(source.case_size !== null && { case_size: source.case_size }),
    ...(source.full_weight_g !== null && source.empty_weight_g !== null && { full_weight_g: Number(source.full_weight_g), empty_weight_g: Number(source.empty_weight_g) }),
  }
  return createItemRow(trx, tenant, product, actor, new Date(transferredAt.getTime() - 1))
}

function movesOf(lines: SourceLine[], destinations: Map<string, ItemRow>): OperationMove[] {
  return lines.flatMap(({ source, quantity, lineNo }) => {
    const destination = destinations.get(source.sku) as ItemRow
    const per = destinationUnitsPer(source, destination)
    if (per === undefined) throw mismatch(source, destination, lineNo)
    const unitCost = decimal(source.cost_per_unit)
    return [
      { item: source, kind: 'transfer_out' as const, lineNo, quantity, unitCost },
      {
        item: destination,
        kind: 'transfer_in' as const,
        lineNo,
        quantity: quantity.times(per).round(QUANTITY_STORED_DECIMALS),
        unitCost: unitCost.div(per).round(UNIT_COST_DECIMALS),
      },
    ]
  })
}

function transferOut(row: TransferRow, lines: OperationLineRow[]): Transfer {
  const outs = lines.filter((line) => line.kind === 'transfer_out')
  const ins = new Map(lines.filter((line) => line.kind === 'transfer_in').map((line) => [line.line_no, line]))
  return {
    id: row.id,
    from_location: row.from_location,
    to_location: row.to_location,
    transferred_by: row.transferred_by,
    notes: row.notes,
    items: outs.map((out) => ({
      from_item_id: out.item_id,
      to_item_id: ins.get(out.line_no)?.item_id as string,
      quantity: quantityOut(out.quantity),
      unit_cost: unitCostOut(out.unit_cost),
    })),
    transferred_at: row.transferred_at.toISOString(),
    voided_at: row.voided_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  }
}

/**
 * Records a transfer. Throws invalid_parameter (same location, an item twice or at another location, a
 * future time), invalid_quantity, location_not_found, item_not_found, transfer_mismatch.
 */
export async function createTransfer(trx: Trx, tenant: Tenant, input: TransferBody): Promise<Transfer> {
  const checked = checkLines(input)
  const requestedAt = input.transferred_at === undefined ? undefined : parsePastTime(input.transferred_at, 'transferred_at')
  await getLocation(trx, tenant, input.from_location)
  await getLocation(trx, tenant, input.to_location)
  const skus = [
    ...new Set(
      [
        ...(
          await findItemRows(
            trx,
            tenant,
            checked.map((line) => line.itemId),
          )
        ).values(),
      ].map((item) => item.sku),
    ),
  ].sort()
  // Sources and destinations locked in one statement, in id order (transfers both ways never deadlock),
  // then their SKUs, as a PUT of an item does: a transfer that creates the destination item creates it once.
  const locked = await lockItemRows(trx, tenant, [...checked.map((line) => line.itemId), ...(await itemIdsBySku(trx, tenant, input.to_location, skus)).values()])
  for (const sku of skus) await lockSku(trx, tenant, sku)
  const existing = await itemIdsBySku(trx, tenant, input.to_location, skus)
  const createdMeanwhile = [...existing.values()].filter((id) => !locked.has(id))
  for (const [id, item] of await lockItemRows(trx, tenant, createdMeanwhile)) locked.set(id, item)
  // Now by default, taken under the locks as a count's is: a change committed while this waited is before it.
  const transferredAt = requestedAt ?? new Date()
  const lines = sourceLinesOf(input, checked, locked)
  const destinations = await destinationsOf(trx, tenant, input, lines, locked, existing, transferredAt, input.transferred_by)
  const moves = movesOf(lines, destinations)
  const row = await insertTransfer(trx, {
    id: newId('trf'),
    account_id: tenant.accountId,
    environment: tenant.environment,
    from_location: input.from_location,
    to_location: input.to_location,
    transferred_by: input.transferred_by,
    transferred_at: transferredAt,
    notes: input.notes ?? null,
  })
  await applyOperation(trx, tenant, { id: row.id, kind: 'transfer', occurredAt: transferredAt, actor: input.transferred_by }, moves)
  return transferOut(row, (await operationLines(trx, [row.id])).get(row.id) ?? [])
}

/** A transfer with its lines. Throws transfer_not_found. */
export async function getTransfer(db: Executor, tenant: Tenant, id: string): Promise<Transfer> {
  const row = await findTransferRow(db, tenant, id)
  if (!row) throw inventoryErrors.transferNotFound(id)
  return transferOut(row, (await operationLines(db, [id])).get(id) ?? [])
}

/** A page of transfers, newest first. Throws location_not_found, invalid_parameter (dates). */
export async function listTransfers(db: Executor, tenant: Tenant, query: ListTransfersQuery, page: PageRequest) {
  const { from, before } = parseDateRange(query)
  if (query.location !== undefined) await getLocation(db, tenant, query.location)
  const { rows, total } = await listTransferRows(db, tenant, { location: query.location, itemId: query.item_id, from, before }, page)
  const lines = await operationLines(
    db,
    rows.map((row) => row.id),
  )
  return { transfers: rows.map((row) => transferOut(row, lines.get(row.id) ?? [])), total }
}

/**
 * Voids a transfer: reversing ledger rows where its lines took current stock, voided_at set, the record
 * kept; reports leave it out. Voiding a voided transfer changes nothing. Throws transfer_not_found.
 */
export async function voidTransfer(trx: Trx, tenant: Tenant, id: string, actor: string): Promise<Transfer> {
  const row = await findTransferRow(trx, tenant, id, { lock: true })
  if (!row) throw inventoryErrors.transferNotFound(id)
  await voidOperation(trx, tenant, { table: 'inventory_transfers', id, kind: 'transfer', occurredAt: row.transferred_at, actor, voidedAt: row.voided_at })
  return getTransfer(trx, tenant, id)
}
