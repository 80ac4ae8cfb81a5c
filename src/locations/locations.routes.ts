import { runWrite } from '../platform/idempotency.js'
import { tenantOf } from '../platform/auth/auth-plugin.js'
import { pageRequest, paginate } from '../platform/http/pagination.js'
import { Deleted, envelope, listEnvelope } from '../platform/http/schemas.js'
import type { Executor, Tenant } from '../platform/db/database.js'
import type { App } from '../platform/http/types.js'
import { locationErrors } from './locations.errors.js'
import { CreateLocationBody, ListLocationsQuery, Location, LocationParams, ShelfOrder, ShelfOrderBody, UpdateLocationBody } from './locations.schemas.js'
import { createLocation, deleteLocation, getLocation, getShelfOrder, listLocations, setShelfOrder, updateLocation } from './locations.service.js'

const tags = ['Locations']

export interface LocationRouteOptions {
  /**
   * How many live items are at a location: a location in use is not deleted. Inventory owns items and sits
   * above locations, so the wiring (src/app.ts) injects its count rather than locations importing it.
   */
  itemsAtLocation: (db: Executor, tenant: Tenant, locationId: string) => Promise<number>
  /** Which of `ids` are live items at the location: a shelf order lists only those. Injected for the same reason. */
  liveItemIdsAt: (db: Executor, tenant: Tenant, locationId: string, ids: string[]) => Promise<Set<string>>
}

export async function locationRoutes(app: App, options: LocationRouteOptions) {
  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'List locations',
        description: 'The account’s locations in the key’s environment, by id. Every account starts with `main_bar`.',
        querystring: ListLocationsQuery,
        response: { 200: listEnvelope(Location) },
      },
      config: { permission: 'inventory:read' },
    },
    async (request) => {
      const page = pageRequest(request.query)
      const { locations, total } = await listLocations(app.db, tenantOf(request), page)
      return { data: locations, pagination: paginate(request, page, total) }
    },
  )

  app.post(
    '/',
    {
      schema: {
        tags,
        summary: 'Create a location',
        description: 'A place stock is kept. The id is yours to choose and cannot change; timezone and business_day_cutoff decide which business day a sale belongs to.',
        body: CreateLocationBody,
        response: { 201: envelope(Location) },
      },
      config: { permission: 'inventory:write', errors: [locationErrors.duplicateLocation] },
    },
    (request, reply) => runWrite(app.db, request, reply, 201, (trx) => createLocation(trx, tenantOf(request), request.body)),
  )

  app.get(
    '/:id',
    {
      schema: { tags, summary: 'Get a location', description: 'One location by its id.', params: LocationParams, response: { 200: envelope(Location) } },
      config: { permission: 'inventory:read', errors: [locationErrors.locationNotFound] },
    },
    async (request) => ({ data: await getLocation(app.db, tenantOf(request), request.params.id) }),
  )

  app.put(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Update a location',
        description: 'Changes the fields given; the others keep their value. The id cannot change.',
        params: LocationParams,
        body: UpdateLocationBody,
        response: { 200: envelope(Location) },
      },
      config: { permission: 'inventory:write', errors: [locationErrors.locationNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => updateLocation(trx, tenantOf(request), request.params.id, request.body)),
  )

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Delete a location no item uses',
        description: 'Refused with location_in_use while live items are at the location: move or delete them first.',
        params: LocationParams,
        response: { 200: envelope(Deleted('id')) },
      },
      config: { permission: 'inventory:write', errors: [locationErrors.locationNotFound, locationErrors.locationInUse] },
    },
    (request, reply) => {
      const tenant = tenantOf(request)
      const id = request.params.id
      return runWrite(app.db, request, reply, 200, (trx) => deleteLocation(trx, tenant, id, () => options.itemsAtLocation(trx, tenant, id)))
    },
  )

  app.get(
    '/:id/shelf-order',
    {
      schema: {
        tags,
        summary: 'Get the shelf order of a location',
        description:
          'The order the location’s items are counted in, saved once for every device (the console’s count screen follows it). Items not listed come after, in name order; an empty list is name order.',
        params: LocationParams,
        response: { 200: envelope(ShelfOrder) },
      },
      config: { permission: 'inventory:read', errors: [locationErrors.locationNotFound] },
    },
    async (request) => {
      const tenant = tenantOf(request)
      const id = request.params.id
      return { data: await getShelfOrder(app.db, tenant, id, (ids) => options.liveItemIdsAt(app.db, tenant, id, ids)) }
    },
  )

  app.put(
    '/:id/shelf-order',
    {
      schema: {
        tags,
        summary: 'Save the shelf order of a location',
        description:
          'Replaces the order with `item_ids`, first shelf first. Each must be a live item at this location, listed once (400 `invalid_parameter` naming `item_ids[i]`); items left out follow in name order.',
        params: LocationParams,
        body: ShelfOrderBody,
        response: { 200: envelope(ShelfOrder) },
      },
      config: { permission: 'inventory:write', errors: [locationErrors.locationNotFound] },
    },
    (request, reply) => {
      const tenant = tenantOf(request)
      const id = request.params.id
      return runWrite(app.db, request, reply, 200, (trx) => setShelfOrder(trx, tenant, id, request.body.item_ids, (ids) => options.liveItemIdsAt(trx, tenant, id, ids)))
    },
  )
}
