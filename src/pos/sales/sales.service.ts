import { isInTheFuture } from '../../platform/zoned-time.js'
import { sql } from 'kysely'
import type { Tenant, Trx } from '../../platform/db/database.js'
import { decimal, decimalPlaces, QUANTITY_INPUT_DECIMALS, toDbNumeric } from '../../platform/decimal.js'
import { invalidParameter } from '../../platform/errors.js'
import { newId } from '../../platform/ids.js'
import { inventoryErrors } from '../../inventory/index.js'
import { getLocation } from '../../locations/index.js'
import { lockConnection } from '../connections/connections.service.js'
import { depleteLines } from './depletion.js'
import { addSoldItems, mappingsOf } from '../mappings/mappings.repository.js'
import type { ImportedSale, ImportSalesBody, ImportSalesResult } from './sales.schemas.js'
import { insertSaleLines, markSourceLines, type SaleLineRow } from './sales.repository.js'

/** What a sale line breaks beyond its schema (quantity decimals, a sale time in the future), if anything. */
export function saleLineProblem(line: ImportedSale): { field: 'quantity' | 'sold_at'; message: string } | undefined {
  if (!(line.quantity > 0) || decimalPlaces(line.quantity) > QUANTITY_INPUT_DECIMALS) {
    return { field: 'quantity', message: `must be greater than 0 with at most ${QUANTITY_INPUT_DECIMALS} decimals` }
  }
  if (isInTheFuture(new Date(line.sold_at))) return { field: 'sold_at', message: 'is in the future' }
  return undefined
}

function checkLine(line: ImportedSale, index: number): void {
  const problem = saleLineProblem(line)
  if (problem?.field === 'quantity') {
    throw inventoryErrors.invalidQuantity(`sales[${index}].quantity ${problem.message}`, {
      parameter: `sales[${index}].quantity`,
      value: line.quantity,
    })
  }
  if (problem) throw invalidParameter(`sales[${index}].sold_at`, line.sold_at, `sold_at ${problem.message}`)
}

function toSaleRow(line: ImportedSale, importId: string, index: number, mapped: Set<string>): SaleLineRow {
  return {
    // Lines without an id are never duplicates of anything: each gets its own.
    lineId: line.line_id ?? `${importId}:${index}`,
    locationId: line.location,
    posItemId: line.pos_item_id,
    name: line.name,
    quantity: toDbNumeric(decimal(line.quantity)),
    unitPrice: toDbNumeric(decimal(line.unit_price)),
    soldAt: new Date(line.sold_at),
    staffId: line.staff_id ?? null,
    staffName: line.staff_name ?? null,
    checkId: line.check_id ?? null,
    tip: line.tip === undefined ? null : toDbNumeric(decimal(line.tip)),
    depleted: mapped.has(line.pos_item_id),
    parentLineId: null,
  }
}

/**
 * Imports sale lines into a connection in one transaction: a line_id seen before on the connection is a
 * duplicate and changes nothing; new POS items join the connection's item list; mapped lines deplete
 * stock, one ledger row per item, referenced by the import id.
 * Throws connection_not_found, location_not_found, invalid_quantity, invalid_parameter.
 */
export async function importSales(trx: Trx, tenant: Tenant, input: ImportSalesBody, actor: string): Promise<ImportSalesResult> {
  await lockConnection(trx, tenant, input.connection_id)
  input.sales.forEach(checkLine)
  for (const location of new Set(input.sales.map((line) => line.location))) await getLocation(trx, tenant, location)
  const importId = newId('imp')
  const mapped = new Set((await mappingsOf(trx, input.connection_id, [...new Set(input.sales.map((line) => line.pos_item_id))])).keys())
  const rows = input.sales.map((line, index) => toSaleRow(line, importId, index, mapped))
  const inserted = await insertSaleLines(trx, { tenant, connectionId: input.connection_id, sourceId: importId }, rows)
  await addSoldItems(trx, { tenant, connectionId: input.connection_id }, new Map(input.sales.map((line) => [line.pos_item_id, line.name])), new Date())
  const depletion = await depleteLines(trx, tenant, input.connection_id, { where: sql<boolean>`s.source_id = ${importId}` }, { actor, referenceId: importId })
  // Mapped to an item deleted since: kept undepleted, so a new mapping can still take them.
  const notDepleted = new Set([...mapped].filter((id) => !depletion.depletedPosItems.has(id)))
  await markSourceLines(trx, importId, [...notDepleted], false)
  return {
    import_id: importId,
    imported: inserted.length,
    duplicates: input.sales.length - inserted.length,
    unmapped: inserted.filter((line) => !line.depleted || notDepleted.has(line.posItemId)).length,
  }
}
