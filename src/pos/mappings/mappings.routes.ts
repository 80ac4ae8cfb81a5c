import { actorOf, tenantOf } from '../../platform/auth/auth-plugin.js'
import { runWrite } from '../../platform/idempotency.js'
import { pageRequest, paginate } from '../../platform/http/pagination.js'
import { Deleted, envelope, listEnvelope } from '../../platform/http/schemas.js'
import type { App } from '../../platform/http/types.js'
import { inventoryErrors } from '../../inventory/index.js'
import { recipeErrors } from '../../recipes/index.js'
import { autoMap } from '../auto-map/auto-map.service.js'
import { ConnectionParams } from '../connections/connections.schemas.js'
import { posErrors } from '../pos.errors.js'
import { AutoMapBody, AutoMapResult, CreateMappingBody, ListMappingsQuery, MappingParams, ProductMapping, RejectedSuggestion, UpdateMappingBody } from './mappings.schemas.js'
import { createMapping, deleteMapping, getMapping, listMappings, rejectSuggestion, updateMapping } from './mappings.service.js'

const tags = ['POS']
const { mappingNotFound, autoMapFailed, connectionNotFound } = posErrors

/** Mappings of a connection's POS items to stock items or recipes, by hand or by the auto-mapper (under /v1/pos). */
export async function mappingsRoutes(app: App) {
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
      config: { readReplica: true, permission: 'pos:read', errors: [connectionNotFound] },
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
