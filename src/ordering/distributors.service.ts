import { checkDecimalPlaces } from '../platform/number-input.js'
import { CATEGORIES, getItem, parseQuantity } from '../inventory/index.js'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { MONEY_DECIMALS, toDbNumeric, UNIT_COST_DECIMALS } from '../platform/decimal.js'
import { invalidParameter } from '../platform/errors.js'
import type { PageRequest } from '../platform/http/pagination.js'
import { newId } from '../platform/ids.js'
import {
  type DistributorRow,
  findDistributorRow,
  insertDistributorRow,
  allCatalogRows,
  listCatalogRows,
  listDistributorRows,
  lockDistributorRow,
  replaceCatalogRows,
  rowToCatalogEntry,
  rowToDistributor,
  rowToDistributorSummary,
  updateDistributorRow,
} from './distributors.repository.js'
import { unitsPerOrderedUnit } from './order-units.js'
import { orderingErrors } from './ordering.errors.js'
import type { CatalogBody, CatalogEntry, CreateDistributorBody, Distributor, UpdateDistributorBody } from './ordering.schemas.js'

/** A money amount from the API with at most `places` decimals (invalid_parameter otherwise). */
export function checkMoney(value: number | undefined, field: string, places = MONEY_DECIMALS): void {
  if (value !== undefined) checkDecimalPlaces(field, value, places)
}

/** The live distributor row, or 404 distributor_not_found. */
export async function getDistributorRow(db: Executor, tenant: Tenant, id: string): Promise<DistributorRow> {
  const row = await findDistributorRow(db, tenant, id)
  if (!row) throw orderingErrors.distributorNotFound(id)
  return row
}

async function lockDistributor(trx: Trx, tenant: Tenant, id: string): Promise<DistributorRow> {
  const row = await lockDistributorRow(trx, tenant, id)
  if (!row) throw orderingErrors.distributorNotFound(id)
  return row
}

/** A distributor by id. Throws distributor_not_found. */
export async function getDistributor(db: Executor, tenant: Tenant, id: string): Promise<Distributor> {
  return rowToDistributor(await getDistributorRow(db, tenant, id))
}

export async function listDistributors(db: Executor, tenant: Tenant, page: PageRequest) {
  const { rows, total } = await listDistributorRows(db, tenant, page)
  return { distributors: rows.map(rowToDistributorSummary), total }
}

/** Creates a distributor; supported_categories defaults to all ten. Throws invalid_parameter for sub-cent amounts. */
export async function createDistributor(trx: Trx, tenant: Tenant, input: CreateDistributorBody): Promise<Distributor> {
  checkMoney(input.min_order_amount, 'min_order_amount')
  const row = await insertDistributorRow(trx, {
    id: newId('dist'),
    account_id: tenant.accountId,
    environment: tenant.environment,
    name: input.name,
    distributor_code: input.distributor_code,
    region: input.region,
    contact_email: input.contact_email,
    min_order_amount: toDbNumeric(input.min_order_amount ?? 0, MONEY_DECIMALS),
    lead_time_days: input.lead_time_days ?? 0,
    supported_categories: input.supported_categories ?? [...CATEGORIES],
  })
  return rowToDistributor(row)
}

/** Updates any of a distributor's fields. Throws distributor_not_found, invalid_parameter. */
export async function updateDistributor(trx: Trx, tenant: Tenant, id: string, input: UpdateDistributorBody): Promise<Distributor> {
  await lockDistributor(trx, tenant, id)
  checkMoney(input.min_order_amount, 'min_order_amount')
  const { min_order_amount, ...plain } = input
  const row = await updateDistributorRow(trx, id, {
    ...plain,
    ...(min_order_amount !== undefined && { min_order_amount: toDbNumeric(min_order_amount, MONEY_DECIMALS) }),
  })
  return rowToDistributor(row)
}

/**
 * Deletes a distributor: it leaves every list and lookup, its orders keep its name, and its drafts can no
 * longer be submitted. Throws distributor_not_found.
 */
export async function deleteDistributor(trx: Trx, tenant: Tenant, id: string) {
  await lockDistributor(trx, tenant, id)
  await updateDistributorRow(trx, id, { deleted_at: new Date() })
  return { id, deleted: true as const }
}

/** One page of a distributor's catalog. Throws distributor_not_found. */
export async function getCatalog(db: Executor, tenant: Tenant, id: string, page: PageRequest) {
  await getDistributorRow(db, tenant, id)
  const { rows, total } = await listCatalogRows(db, id, page)
  return { entries: rows.map(rowToCatalogEntry), total }
}

/**
 * Replaces a distributor's whole catalog (an empty list removes it). Each entry names a live item of the
 * tenant in a unit it can be ordered in, once per unit.
 * Throws distributor_not_found, item_not_found, invalid_unit, invalid_quantity, invalid_parameter.
 */
export async function replaceCatalog(trx: Trx, tenant: Tenant, id: string, input: CatalogBody): Promise<CatalogEntry[]> {
  await lockDistributor(trx, tenant, id)
  const seen = new Set<string>()
  const rows = []
  for (const [index, entry] of input.entries()) {
    const field = `[${index}]`
    const item = await getItem(trx, tenant, entry.inventory_item_id)
    unitsPerOrderedUnit(item, entry.unit, `${field}.unit`)
    const key = `${item.id} ${entry.unit}`
    if (seen.has(key)) throw invalidParameter(field, entry, `item ${item.id} is listed twice in unit ${entry.unit}`)
    seen.add(key)
    checkMoney(entry.unit_price, `${field}.unit_price`, UNIT_COST_DECIMALS)
    const available = entry.available_quantity ?? null
    rows.push({
      distributor_id: id,
      inventory_item_id: item.id,
      unit: entry.unit,
      unit_price: toDbNumeric(entry.unit_price, UNIT_COST_DECIMALS),
      available_quantity: available === null ? null : toDbNumeric(parseQuantity(available, `${field}.available_quantity`)),
    })
  }
  await replaceCatalogRows(trx, id, rows)
  return (await allCatalogRows(trx, id)).map(rowToCatalogEntry)
}
