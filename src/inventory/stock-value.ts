import type { Executor, Tenant } from '../platform/db/database.js'
import { type Decimal, decimal, moneyOut, sum } from '../platform/decimal.js'
import { getLocation } from '../locations/index.js'
import { getSettings } from '../settings/index.js'
import { stockValueRows } from './inventory.repository.js'
import type { StockValue, StockValueQuery } from './inventory.schemas.js'

/**
 * What the stock on the shelves is worth, per location and category: quantity × cost_per_unit of the
 * live items, in the account's currency. Stock below zero (sales ahead of a recorded delivery) counts as
 * none: it is a gap in the records, not a negative asset. A SKU filter values one product at each
 * location that stocks it. Throws location_not_found.
 */
export async function stockValue(db: Executor, tenant: Tenant, query: StockValueQuery): Promise<StockValue> {
  if (query.location !== undefined) await getLocation(db, tenant, query.location)
  const rows = await stockValueRows(db, tenant, query)
  const byLocation = new Map<string, { category: string; value: Decimal; items: number }[]>()
  for (const row of rows) {
    const categories = byLocation.get(row.location_id) ?? []
    categories.push({ category: row.category, value: decimal(row.value ?? 0), items: Number(row.items) })
    byLocation.set(row.location_id, categories)
  }
  const locations = [...byLocation].map(([location, categories]) => ({
    location,
    value: sum(categories.map((entry) => entry.value)),
    items: categories.reduce((total, entry) => total + entry.items, 0),
    categories,
  }))
  return {
    currency: (await getSettings(db, tenant)).currency,
    value: moneyOut(sum(locations.map((entry) => entry.value))),
    items: locations.reduce((total, entry) => total + entry.items, 0),
    locations: locations.map((entry) => ({
      ...entry,
      value: moneyOut(entry.value),
      categories: entry.categories.map((category) => ({ ...category, value: moneyOut(category.value) })),
    })),
  }
}
