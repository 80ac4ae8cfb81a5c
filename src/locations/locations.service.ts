import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { invalidParameter } from '../platform/errors.js'
import type { PageRequest } from '../platform/http/pagination.js'
import { locationErrors } from './locations.errors.js'
import type { CreateLocationBody, Location, ShelfOrder, UpdateLocationBody } from './locations.schemas.js'
import { pageWithTotal } from '../platform/db/page.js'

type LocationRow = {
  id: string
  name: string
  timezone: string
  business_day_cutoff: string
  country: string | null
  created_at: Date
  updated_at: Date
}

function rowToLocation(row: LocationRow): Location {
  return {
    id: row.id,
    name: row.name,
    timezone: row.timezone,
    business_day_cutoff: row.business_day_cutoff,
    country: row.country,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

function checkTimeZone(timezone: string | undefined): void {
  if (timezone === undefined) return
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone })
  } catch {
    throw invalidParameter('timezone', timezone, `timezone ${timezone} is not an IANA time zone`)
  }
}

// Codes Intl knows as regions that are not ISO 3166-1 countries: exceptional reservations (AC, CP, DG, EA,
// IC, TA), groupings (EU, EZ, UN, QO), user-assigned codes (XA, XB, XK, ZZ) and CQ.
const NOT_COUNTRIES = new Set(['AC', 'CP', 'CQ', 'DG', 'EA', 'IC', 'TA', 'EU', 'EZ', 'UN', 'QO', 'XA', 'XB', 'XK', 'ZZ'])
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' })

/** An ISO 3166-1 alpha-2 code in use: known to Intl, not an old alias (UK, SU, YU) nor a non-country. */
function isCountryCode(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code) || NOT_COUNTRIES.has(code) || regionNames.of(code) === undefined) return false
  return new Intl.Locale(`und-${code}`).region === code
}

function checkCountry(country: string | null | undefined): void {
  if (country === undefined || country === null || isCountryCode(country)) return
  throw invalidParameter('country', country, `country ${country} is not an ISO 3166-1 alpha-2 country code`)
}

function tenantLocations(db: Executor, tenant: Tenant) {
  return db.selectFrom('locations').where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment)
}

function scoped(db: Executor, tenant: Tenant) {
  return tenantLocations(db, tenant).select(['id', 'name', 'timezone', 'business_day_cutoff', 'country', 'created_at', 'updated_at'])
}

export async function findLocation(db: Executor, tenant: Tenant, id: string): Promise<Location | undefined> {
  const row = await scoped(db, tenant).where('id', '=', id).executeTakeFirst()
  return row && rowToLocation(row)
}

/** The location, or 404 location_not_found. */
export async function getLocation(db: Executor, tenant: Tenant, id: string): Promise<Location> {
  const location = await findLocation(db, tenant, id)
  if (!location) throw locationErrors.locationNotFound(id)
  return location
}

/** Every location of the tenant (reports turn business dates into moments with their clocks). */
export async function allLocations(db: Executor, tenant: Tenant): Promise<Location[]> {
  return (await scoped(db, tenant).orderBy('id').execute()).map(rowToLocation)
}

export async function listLocations(db: Executor, tenant: Tenant, page: PageRequest) {
  const { rows, total } = await pageWithTotal(scoped(db, tenant).orderBy('id'), tenantLocations(db, tenant), page)
  return { locations: rows.map(rowToLocation), total }
}

/** Creates a location; 409 duplicate_location when the slug is taken, 400 for an unknown time zone or country. */
export async function createLocation(trx: Trx, tenant: Tenant, input: CreateLocationBody): Promise<Location> {
  checkTimeZone(input.timezone)
  checkCountry(input.country)
  const row = await trx
    .insertInto('locations')
    .values({
      account_id: tenant.accountId,
      environment: tenant.environment,
      id: input.id,
      name: input.name,
      timezone: input.timezone ?? 'UTC',
      business_day_cutoff: input.business_day_cutoff ?? '04:00',
      country: input.country ?? null,
    })
    .onConflict((conflict) => conflict.columns(['account_id', 'environment', 'id']).doNothing())
    .returning(['id', 'name', 'timezone', 'business_day_cutoff', 'country', 'created_at', 'updated_at'])
    .executeTakeFirst()
  if (!row) throw locationErrors.duplicateLocation(input.id)
  return rowToLocation(row)
}

export async function updateLocation(trx: Trx, tenant: Tenant, id: string, input: UpdateLocationBody): Promise<Location> {
  checkTimeZone(input.timezone)
  checkCountry(input.country)
  const row = await tenantLocationsToUpdate(trx, tenant, id)
    .set({ ...input, updated_at: new Date() })
    .returning(['id', 'name', 'timezone', 'business_day_cutoff', 'country', 'created_at', 'updated_at'])
    .executeTakeFirst()
  if (!row) throw locationErrors.locationNotFound(id)
  return rowToLocation(row)
}

/** Deletes a location that no live inventory item uses (409 location_in_use otherwise). */
export async function deleteLocation(trx: Trx, tenant: Tenant, id: string, itemsAt: (trx: Trx) => Promise<number>) {
  await getLocation(trx, tenant, id)
  const items = await itemsAt(trx)
  if (items > 0) throw locationErrors.locationInUse([id, items])
  await trx.deleteFrom('locations').where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment).where('id', '=', id).execute()
  return { id, deleted: true as const }
}

/** The locations every new account starts with, in both environments. */
export async function createDefaultLocations(trx: Trx, accountId: string): Promise<void> {
  await trx
    .insertInto('locations')
    .values(
      (['production', 'sandbox'] as const).map((environment) => ({
        account_id: accountId,
        environment,
        id: 'main_bar',
        name: 'Main bar',
      })),
    )
    .execute()
}

/** Of `ids`, those that are live items at the location (the inventory domain answers, by the route's wiring). */
export type ItemsAtLocation = (ids: string[]) => Promise<Set<string>>

/** The location's shelf order, without the items deleted or gone from it since it was saved. */
export async function getShelfOrder(db: Executor, tenant: Tenant, id: string, itemsAt: ItemsAtLocation): Promise<ShelfOrder> {
  const row = await tenantLocations(db, tenant).select(['shelf_order', 'shelf_order_updated_at']).where('id', '=', id).executeTakeFirst()
  if (!row) throw locationErrors.locationNotFound(id)
  const live = await itemsAt(row.shelf_order)
  return { location: id, item_ids: row.shelf_order.filter((itemId) => live.has(itemId)), updated_at: row.shelf_order_updated_at?.toISOString() ?? null }
}

/** Replaces the location's shelf order; 400 names the first id listed twice or not an item of the location. */
export async function setShelfOrder(trx: Trx, tenant: Tenant, id: string, itemIds: string[], itemsAt: ItemsAtLocation): Promise<ShelfOrder> {
  await getLocation(trx, tenant, id)
  const live = await itemsAt(itemIds)
  const seen = new Set<string>()
  itemIds.forEach((itemId, index) => {
    const parameter = `item_ids[${index}]`
    if (seen.has(itemId)) throw invalidParameter(parameter, itemId, `${parameter} ${itemId} is listed twice`)
    if (!live.has(itemId)) throw invalidParameter(parameter, itemId, `${parameter} ${itemId} is not an item at location ${id}`)
    seen.add(itemId)
  })
  const row = await tenantLocationsToUpdate(trx, tenant, id)
    .set({ shelf_order: itemIds, shelf_order_updated_at: new Date() })
    .returning(['shelf_order', 'shelf_order_updated_at'])
    .executeTakeFirstOrThrow()
  return { location: id, item_ids: row.shelf_order, updated_at: row.shelf_order_updated_at?.toISOString() ?? null }
}

function tenantLocationsToUpdate(trx: Trx, tenant: Tenant, id: string) {
  return trx.updateTable('locations').where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment).where('id', '=', id)
}
