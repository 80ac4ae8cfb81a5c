import { actorOf, tenantOf } from '../platform/auth/auth-plugin.js'
import { runWrite, runWriteAfter } from '../platform/idempotency.js'
import { pageRequest, paginate } from '../platform/http/pagination.js'
import { Deleted, envelope, listEnvelope } from '../platform/http/schemas.js'
import type { App } from '../platform/http/types.js'
import { inventoryErrors } from '../inventory/index.js'
import { locationErrors } from '../locations/index.js'
import { recipeErrors } from '../recipes/index.js'
import { autoMap } from './auto-map.service.js'
import { createConnection, deleteConnection, getConnection, listConnections, updateConnection, verifyNewConnection } from './connections.service.js'
import { createMapping, deleteMapping, getMapping, listMappings, rejectSuggestion, updateMapping } from './mappings.service.js'
import { posErrors } from './pos.errors.js'
import type { PosGateway } from './pos-gateway.js'
import {
  AutoMapBody,
  AutoMapResult,
  ConnectionParams,
  CreateConnectionBody,
  CreatedPosConnection,
  CreateMappingBody,
  ListConnectionsQuery,
  ListMappingsQuery,
  ListSyncRunsQuery,
  MappingParams,
  RejectedSuggestion,
  PosConnection,
  PosConnectionWithStats,
  ProductMapping,
  SyncParams,
  SyncRun,
  TriggerSyncBody,
  UpdateConnectionBody,
  UpdateMappingBody,
} from './pos.schemas.js'
import { getSyncRun, listSyncRuns, triggerSync } from './sync.service.js'

const tags = ['POS']
const { posNotSupported, invalidCredentials, connectionFailed, syncInProgress, mappingNotFound, autoMapFailed, connectionNotFound, syncNotFound, pushNotSupported } = posErrors

/** Who a change is attributed to in the ledger and events: the API key that made it. */
export interface PosRouteOptions {
  gateway: PosGateway
}

export async function posRoutes(app: App, { gateway }: PosRouteOptions) {
  app.get(
    '/connections',
    {
      schema: {
        tags,
        summary: 'List POS connections',
        description: 'The account’s POS connections in the key’s environment; credentials are never returned.',
        querystring: ListConnectionsQuery,
        response: { 200: listEnvelope(PosConnection) },
      },
      config: { permission: 'pos:read' },
    },
    async (request) => {
      const page = pageRequest(request.query)
      const { connections, total } = await listConnections(app.db, tenantOf(request), page)
      return { data: connections, pagination: paginate(request, page, total) }
    },
  )

  app.post(
    '/connections',
    {
      schema: {
        tags,
        summary: 'Connect a POS',
        description:
          "Checks the credentials' shape for the pos_type, then logs in with the vendor (sandbox keys: the built-in simulator). Credentials are stored encrypted and never returned. For a vendor with pushes, a push_secret is generated when none is supplied and shown in this response only. No sync runs unless initial_sync asks for one: then that run is queued with the connection and first_sync_id names it (null otherwise; POST /v1/pos/connections/{id}/sync starts the first run). The scheduler's first run is one sync_frequency after the create.",
        body: CreateConnectionBody,
        response: { 201: envelope(CreatedPosConnection) },
      },
      config: {
        permission: 'pos:write',
        errors: [posNotSupported, invalidCredentials, pushNotSupported, connectionFailed, locationErrors.locationNotFound],
      },
    },
    (request, reply) => {
      const tenant = tenantOf(request)
      // The vendor login happens before the transaction opens: no database session waits on the network.
      return runWriteAfter(
        app.db,
        request,
        reply,
        201,
        () => verifyNewConnection(gateway, tenant, request.body),
        (trx, verified) => createConnection(trx, gateway, tenant, request.body, verified, actorOf(request)),
      )
    },
  )

  app.get(
    '/connections/:id',
    {
      schema: {
        tags,
        summary: 'Get a POS connection with its sync_stats',
        description: 'The connection and how its sync runs went; credentials are never returned.',
        params: ConnectionParams,
        response: { 200: envelope(PosConnectionWithStats) },
      },
      config: { permission: 'pos:read', errors: [connectionNotFound] },
    },
    async (request) => ({ data: await getConnection(app.db, tenantOf(request), request.params.id) }),
  )

  app.put(
    '/connections/:id',
    {
      schema: {
        tags,
        summary: 'Update a POS connection',
        description:
          'name, sync_frequency, location, push_secret (replaces the vendor push signature key; never returned), or status (inactive pauses scheduled syncs; active resumes them).',
        params: ConnectionParams,
        body: UpdateConnectionBody,
        response: { 200: envelope(PosConnection) },
      },
      config: { permission: 'pos:write', errors: [connectionNotFound, locationErrors.locationNotFound, pushNotSupported] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => updateConnection(trx, gateway, tenantOf(request), request.params.id, request.body)),
  )

  app.delete(
    '/connections/:id',
    {
      schema: {
        tags,
        summary: 'Delete a POS connection',
        description: 'It is no longer synced (a run in flight fails); the sales it imported and their stock movements stay for analytics.',
        params: ConnectionParams,
        response: { 200: envelope(Deleted('id')) },
      },
      config: { permission: 'pos:write', errors: [connectionNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => deleteConnection(trx, tenantOf(request), request.params.id)),
  )

  app.post(
    '/connections/:id/sync',
    {
      schema: {
        tags,
        summary: 'Start a sync run',
        description: 'Runs in the background; poll GET /v1/pos/syncs/:sync_id. sync_type defaults to incremental.',
        params: ConnectionParams,
        body: TriggerSyncBody,
        response: { 201: envelope(SyncRun) },
      },
      config: { permission: 'pos:write', errors: [connectionNotFound, syncInProgress] },
    },
    (request, reply) =>
      runWrite(app.db, request, reply, 201, (trx) => triggerSync(trx, tenantOf(request), request.params.id, request.body.sync_type ?? 'incremental', actorOf(request))),
  )

  app.get(
    '/syncs',
    {
      schema: {
        tags,
        summary: 'List a connection’s sync runs',
        description: 'Newest first, with each run’s status, results or error.',
        querystring: ListSyncRunsQuery,
        response: { 200: listEnvelope(SyncRun) },
      },
      config: { permission: 'pos:read', errors: [connectionNotFound] },
    },
    async (request) => {
      const page = pageRequest(request.query)
      const { runs, total } = await listSyncRuns(app.db, tenantOf(request), request.query.connection_id, page)
      return { data: runs, pagination: paginate(request, page, total) }
    },
  )

  app.get(
    '/syncs/:sync_id',
    {
      schema: {
        tags,
        summary: 'Get a sync run',
        description: 'A run’s status, then its results or its error: poll this after starting a sync.',
        params: SyncParams,
        response: { 200: envelope(SyncRun) },
      },
      config: { permission: 'pos:read', errors: [syncNotFound] },
    },
    async (request) => ({ data: await getSyncRun(app.db, tenantOf(request), request.params.sync_id) }),
  )

  app.get(
    '/connections/:id/mappings',
    {
      schema: {
        tags,
        summary: 'List POS items and their mappings',
        description: 'Every POS item the connection reported (mapped=false until mapped), with auto-map suggestions to review.',
        params: ConnectionParams,
        querystring: ListMappingsQuery,
        response: { 200: listEnvelope(ProductMapping) },
      },
      config: { permission: 'pos:read', errors: [connectionNotFound] },
    },
    async (request) => {
      const page = pageRequest(request.query)
      const { mappings, total } = await listMappings(app.db, tenantOf(request), request.params.id, request.query, page)
      return { data: mappings, pagination: paginate(request, page, total) }
    },
  )

  app.get(
    '/connections/:id/mappings/:pos_item_id',
    {
      schema: {
        tags,
        summary: 'Get a POS item and its mapping',
        description:
          'One entry of the mappings list: the mapping, what one POS unit depletes (usage_per_sale) and its warnings. A POS item the connection never reported: 404 mapping_not_found.',
        params: MappingParams,
        response: { 200: envelope(ProductMapping) },
      },
      config: { permission: 'pos:read', errors: [connectionNotFound, mappingNotFound] },
    },
    async (request) => ({ data: await getMapping(app.db, tenantOf(request), request.params.id, request.params.pos_item_id) }),
  )

  app.post(
    '/connections/:id/mappings',
    {
      schema: {
        tags,
        summary: 'Map a POS item to an inventory item or a recipe',
        description:
          "Give exactly one of `inventory_item_id` (conversion_factor: amount of the item per POS unit, in conversion_unit) and `recipe_id` (conversion_factor: servings per POS unit, default 1; every ingredient is taken); both or neither is 400 invalid_parameter. Stored sales of the POS item that never depleted stock, sold after each item's last count, are applied at once.",
        params: ConnectionParams,
        body: CreateMappingBody,
        response: { 201: envelope(ProductMapping) },
      },
      config: { permission: 'pos:write', errors: [connectionNotFound, inventoryErrors.itemNotFound, recipeErrors.recipeNotFound, inventoryErrors.invalidUnit] },
    },
    (request, reply) => runWrite(app.db, request, reply, 201, (trx) => createMapping(trx, tenantOf(request), request.params.id, request.body, actorOf(request))),
  )

  app.put(
    '/connections/:id/mappings/:pos_item_id',
    {
      schema: {
        tags,
        summary: 'Change what a mapping takes: its item or recipe, and its conversion',
        description:
          "Give any of inventory_item_id, recipe_id (not both), conversion_factor and conversion_unit; the rest is kept. Switching between an item and a recipe needs conversion_factor (400 invalid_parameter); a recipe mapping refuses conversion_unit. The history the mapping covers is restated: every stored sale of the POS item is depleted again under the new mapping, so reports move its usage to the new item or recipe, and for sales sold after an item's latest count stock follows (the old item gets it back, the new one gives it).",
        params: MappingParams,
        body: UpdateMappingBody,
        response: { 200: envelope(ProductMapping) },
      },
      config: {
        permission: 'pos:write',
        errors: [connectionNotFound, mappingNotFound, inventoryErrors.itemNotFound, recipeErrors.recipeNotFound, inventoryErrors.invalidUnit],
      },
    },
    (request, reply) =>
      runWrite(app.db, request, reply, 200, (trx) => updateMapping(trx, tenantOf(request), request.params.id, request.params.pos_item_id, request.body, actorOf(request))),
  )

  app.delete(
    '/connections/:id/mappings/:pos_item_id/suggestion',
    {
      schema: {
        tags,
        summary: 'Reject an auto-map suggestion',
        description:
          'Removes the POS item’s suggestion from the review queue; auto-map will not suggest or map that inventory item for this POS item again (map it by hand if it was right after all). mapping_not_found when the POS item has no suggestion.',
        params: MappingParams,
        response: { 200: envelope(RejectedSuggestion) },
      },
      config: { permission: 'pos:write', errors: [connectionNotFound, mappingNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => rejectSuggestion(trx, tenantOf(request), request.params.id, request.params.pos_item_id)),
  )

  app.delete(
    '/connections/:id/mappings/:pos_item_id',
    {
      schema: {
        tags,
        summary: 'Delete a mapping',
        description:
          "The POS item is unmapped again: its later sales take no stock until it is mapped, and its stored sales become unmapped sales in reports (their usage is removed; stock they took after an item's latest count is given back). A new mapping takes them again.",
        params: MappingParams,
        response: { 200: envelope(Deleted('pos_item_id')) },
      },
      config: { permission: 'pos:write', errors: [connectionNotFound, mappingNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => deleteMapping(trx, tenantOf(request), request.params.id, request.params.pos_item_id, actorOf(request))),
  )

  app.post(
    '/connections/:id/auto-map',
    {
      schema: {
        tags,
        summary: 'Map POS items to inventory items by name',
        description: 'confidence_threshold defaults to 0.85; matches from 0.6 up to it are kept as suggestions (mappings_review).',
        params: ConnectionParams,
        body: AutoMapBody,
        response: { 200: envelope(AutoMapResult) },
      },
      config: { permission: 'pos:write', errors: [connectionNotFound, autoMapFailed] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => autoMap(trx, tenantOf(request), request.params.id, request.body.confidence_threshold, actorOf(request))),
  )
}
