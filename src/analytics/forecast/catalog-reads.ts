import { exportItems, type InventoryItem, type ListItemsQuery } from '../../inventory/index.js'
import { listLocations, type Location } from '../../locations/index.js'
import type { Executor, Tenant } from '../../platform/db/database.js'

const PAGE_SIZE = 100

/** Every location of the tenant, through the locations service. */
export async function allLocations(db: Executor, tenant: Tenant): Promise<Location[]> {
  const locations: Location[] = []
  for (let page = 1; ; page++) {
    const batch = await listLocations(db, tenant, { page, perPage: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE })
    locations.push(...batch.locations)
    if (locations.length >= batch.total || batch.locations.length === 0) return locations
  }
}

/** Items a statement of allItems reads: a bar's whole catalogue in one. */
const ITEMS_PER_READ = 5000

/**
 * Every live item of the tenant matching the filters, by name, through the inventory service: its export,
 * read by keyset, ITEMS_PER_READ at a time. Pages of 100 read by offset, each counting the list's total
 * again, took the forecast endpoint 20 round trips for 2,000 items, most of its time on a busy machine.
 */
export async function allItems(db: Executor, tenant: Tenant, filter: { location?: string; category?: string }): Promise<InventoryItem[]> {
  const items: InventoryItem[] = []
  for await (const batch of await exportItems(db, tenant, filter as ListItemsQuery, ITEMS_PER_READ)) items.push(...batch)
  return items
}
