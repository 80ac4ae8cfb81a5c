import { everyItemStock, type ItemStock, type ListItemsQuery } from '../../inventory/index.js'
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

/** The stock of every live item of the tenant matching the filters, by name (inventory's whole-catalogue read, by keyset); location_not_found for a location filter naming none. */
export async function allItems(db: Executor, tenant: Tenant, filter: { location?: string; category?: string }): Promise<ItemStock[]> {
  return everyItemStock(db, tenant, filter as ListItemsQuery)
}
