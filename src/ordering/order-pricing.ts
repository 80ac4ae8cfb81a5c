import { getItem, inventoryErrors, type InventoryItem, parseQuantity } from '../inventory/index.js'
import type { Executor, Tenant } from '../platform/db/database.js'
import { type Decimal, decimal, MONEY_DECIMALS, quantityOut, sum, UNIT_COST_DECIMALS } from '../platform/decimal.js'
import { invalidParameter } from '../platform/errors.js'
import { type CatalogRow, catalogFor, type DistributorRow } from './distributors.repository.js'
import { findUnitsPer, unitsPerOrderedUnit } from './order-units.js'
import { orderingErrors } from './ordering.errors.js'
import type { OrderLineInput } from './ordering.schemas.js'

export interface PricedLine {
  itemId: string
  quantity: Decimal
  unit: string
  /** Item units in one ordered unit. */
  unitsPerOrderedUnit: Decimal
  unitPrice: Decimal
  total: Decimal
}

/** An ordered quantity: greater than zero, at most 3 decimals (invalid_quantity otherwise). */
export function parseOrderedQuantity(value: number, field: string): Decimal {
  const quantity = parseQuantity(value, field)
  if (quantity.lte(0)) throw inventoryErrors.invalidQuantity(`${field} must be greater than zero, got ${value}`, { parameter: field, value })
  return quantity
}

export interface Catalog {
  rows: CatalogRow[]
  hasCatalog: boolean
}

/**
 * The catalog price and availability of one ordered unit, from the item's entry in that unit or else
 * from its entry in the item's other unit, converted through the case size. Undefined: not listed.
 */
export function catalogPrice(item: InventoryItem, catalog: Catalog, unit: string, factor: Decimal) {
  const entries = catalog.rows.filter((row) => row.inventory_item_id === item.id)
  // An entry whose unit the item no longer has (its case size was removed) cannot price anything.
  const usable = entries.flatMap((entry) => {
    const entryFactor = findUnitsPer(item, entry.unit)
    return entryFactor ? [{ entry, entryFactor }] : []
  })
  const { entry, entryFactor } = usable.find((candidate) => candidate.entry.unit === unit) ?? usable[0] ?? {}
  if (!entry || !entryFactor) return undefined
  const unitPrice = decimal(entry.unit_price).div(entryFactor).times(factor).round(UNIT_COST_DECIMALS)
  const availableUnits = entry.available_quantity === null ? undefined : decimal(entry.available_quantity).times(entryFactor)
  return { unitPrice, availableUnits }
}

/** Whether the distributor sells the item: in its categories, and in its catalog when it has one. */
export function distributorSells(item: InventoryItem, distributor: DistributorRow, catalog: Catalog): boolean {
  const listed = catalogPrice(item, catalog, item.unit, decimal(1)) !== undefined
  return distributor.supported_categories.includes(item.category) && (listed || !catalog.hasCatalog)
}

/** Rejects an item the distributor does not sell: outside its categories, or missing from its catalog. */
function checkAvailable(item: InventoryItem, distributor: DistributorRow, listed: boolean, hasCatalog: boolean): void {
  if (!distributor.supported_categories.includes(item.category)) {
    throw orderingErrors.itemNotAvailable(`Distributor ${distributor.id} does not sell ${item.category} (item ${item.id})`, {
      inventory_item_id: item.id,
      category: item.category,
    })
  }
  if (hasCatalog && !listed) {
    throw orderingErrors.itemNotAvailable(`Item ${item.id} is not in the catalog of distributor ${distributor.id}`, {
      inventory_item_id: item.id,
    })
  }
}

async function priceLine(db: Executor, tenant: Tenant, distributor: DistributorRow, location: string, line: OrderLineInput, field: string, catalog: Catalog): Promise<PricedLine> {
  const quantity = parseOrderedQuantity(line.quantity, `${field}.quantity`)
  const item = await getItem(db, tenant, line.inventory_item_id)
  if (item.location !== location) {
    throw invalidParameter(`${field}.inventory_item_id`, item.id, `item ${item.id} is stocked at ${item.location}, not ${location}`)
  }
  const factor = unitsPerOrderedUnit(item, line.unit, `${field}.unit`)
  const listed = catalogPrice(item, catalog, line.unit, factor)
  checkAvailable(item, distributor, listed !== undefined, catalog.hasCatalog)
  const unitPrice = listed ? listed.unitPrice : decimal(item.cost_per_unit).times(factor).round(UNIT_COST_DECIMALS)
  const orderedUnits = quantity.times(factor)
  if (listed?.availableUnits !== undefined && orderedUnits.gt(listed.availableUnits)) {
    throw orderingErrors.insufficientStock(
      `Distributor ${distributor.id} has ${quantityOut(listed.availableUnits)} ${item.unit} of item ${item.id}; ${quantityOut(orderedUnits)} ordered`,
      { inventory_item_id: item.id, available_quantity: quantityOut(listed.availableUnits), requested_quantity: quantityOut(orderedUnits), unit: item.unit },
    )
  }
  return { itemId: item.id, quantity, unit: line.unit, unitsPerOrderedUnit: factor, unitPrice, total: quantity.times(unitPrice).round(MONEY_DECIMALS) }
}

/**
 * Prices order lines for a distributor and a delivery location: the catalog price when the catalog lists
 * the item, else cost_per_unit times the item units per ordered unit; line totals round to cents.
 * Throws invalid_quantity, item_not_found, invalid_unit, item_not_available, insufficient_stock,
 * invalid_parameter (an item twice, or stocked at another location).
 */
export async function priceLines(
  db: Executor,
  tenant: Tenant,
  distributor: DistributorRow,
  location: string,
  lines: OrderLineInput[],
  field = 'items',
): Promise<{ lines: PricedLine[]; total: Decimal }> {
  const ids = lines.map((line) => line.inventory_item_id)
  const repeated = ids.findIndex((id, index) => ids.indexOf(id) !== index)
  if (repeated >= 0) throw invalidParameter(`${field}[${repeated}].inventory_item_id`, ids[repeated], `item ${ids[repeated]} is ordered twice; use one line per item`)
  const catalog = await catalogFor(db, distributor.id, ids)
  const priced: PricedLine[] = []
  for (const [index, line] of lines.entries()) {
    priced.push(await priceLine(db, tenant, distributor, location, line, `${field}[${index}]`, catalog))
  }
  return { lines: priced, total: sum(priced.map((line) => line.total)) }
}
