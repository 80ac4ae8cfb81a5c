import { actorOf, tenantOf } from '../platform/auth/auth-plugin.js'
import { runWrite } from '../platform/idempotency.js'
import { columnsOf, jsonOrCsv, sendCsv, wantsCsv } from '../platform/http/csv.js'
import { pageRequest, paginate } from '../platform/http/pagination.js'
import { Deleted, envelope, listEnvelope } from '../platform/http/schemas.js'
import type { App } from '../platform/http/types.js'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { locationErrors } from '../locations/index.js'
import { inventoryErrors } from './inventory.errors.js'
import {
  BatchBody,
  BatchResult,
  CountBody,
  CountResult,
  CreateItemBody,
  InventoryItem,
  ItemParams,
  ListItemsQuery,
  ListMovementsQuery,
  ListCountsQuery,
  StockValue,
  StockValueQuery,
  CountSummary,
  CountParams,
  CountQuery,
  CountDetail,
  COUNT_LINE_COLUMNS,
  StockMovement,
  UpdateItemBody,
} from './inventory.schemas.js'
import { type CountObserver, exportCountLines, exportCounts, getCount, listCounts, recordCount } from './counts.service.js'
import { applyBatch, createItem, deleteItem, exportItems, exportMovements, getItem, listItems, listMovements, updateItem } from './inventory.service.js'
import { stockValue } from './stock-value.js'

const tags = ['Inventory']
const { itemNotFound, invalidQuantity, invalidUnit, duplicateSku } = inventoryErrors
const { locationNotFound } = locationErrors

/** Who a change is attributed to in the ledger and events: the API key that made it. */
export interface InventoryRouteOptions {
  /** Told of every count inside its transaction (analytics' variance events, injected at wiring). */
  countObserver?: CountObserver
}

export async function inventoryRoutes(app: App, options: InventoryRouteOptions) {
  const listSchema = {
    tags,
    summary: 'List inventory items',
    description:
      'Filter by location, category, low_stock and below_par; search with q (every word in the name or SKU) or sku (exact: one product at every location); sort by name, quantity, last_updated, created_at, sku or category.',
    querystring: ListItemsQuery,
    response: { 200: jsonOrCsv(listEnvelope(InventoryItem), columnsOf(InventoryItem)) },
  }
  const listHandler = async (request: FastifyRequest<{ Querystring: ListItemsQuery }>, reply: FastifyReply) => {
    const tenant = tenantOf(request)
    if (wantsCsv(request)) return sendCsv(reply, 'inventory-items.csv', columnsOf(InventoryItem), await exportItems(app.db, tenant, request.query))
    const page = pageRequest(request.query)
    const { items, total } = await listItems(app.db, tenant, request.query, page)
    return { data: items, pagination: paginate(request, page, total) }
  }
  const listConfig = { readReplica: true, permission: 'inventory:read' as const, errors: [locationNotFound] }
  app.get('/items', { schema: listSchema, config: listConfig }, listHandler)
  // The spec's quick start reads GET /v1/inventory: the same list under its short name.
  app.get('', { schema: { ...listSchema, summary: 'List inventory items (alias of /v1/inventory/items)' }, config: listConfig }, listHandler)

  app.post(
    '/items',
    {
      schema: {
        tags,
        summary: 'Create an inventory item',
        description:
          'Its starting quantity is the first row of its stock ledger. The SKU must be unique among the live items of the location; the same SKU at another location is the same product, with the same size_ml and unit (or case). unit decides what quantity counts.',
        body: CreateItemBody,
        response: { 201: envelope(InventoryItem) },
      },
      config: { permission: 'inventory:write', errors: [invalidQuantity, invalidUnit, duplicateSku, locationNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 201, (trx) => createItem(trx, tenantOf(request), request.body, actorOf(request))),
  )

  app.get(
    '/items/:id',
    {
      schema: {
        tags,
        summary: 'Get an inventory item',
        description: 'One live item with its current theoretical stock.',
        params: ItemParams,
        response: { 200: envelope(InventoryItem) },
      },
      config: { permission: 'inventory:read', errors: [itemNotFound] },
    },
    async (request) => ({ data: await getItem(app.db, tenantOf(request), request.params.id) }),
  )

  app.get(
    '/value',
    {
      schema: {
        tags,
        summary: 'Stock value per location and category',
        description:
          'quantity × cost_per_unit of the live items, in the account’s currency; stock below zero counts as none. With sku, one product across the locations that stock it.',
        querystring: StockValueQuery,
        response: { 200: envelope(StockValue) },
      },
      config: { readReplica: true, permission: 'inventory:read', errors: [locationNotFound] },
    },
    async (request) => ({ data: await stockValue(app.db, tenantOf(request), request.query) }),
  )

  app.get(
    '/counts',
    {
      schema: {
        tags,
        summary: 'List inventory counts',
        description: 'Newest first (by counted_at), of one location or all.',
        querystring: ListCountsQuery,
        response: { 200: jsonOrCsv(listEnvelope(CountSummary), columnsOf(CountSummary)) },
      },
      config: { readReplica: true, permission: 'inventory:read', errors: [locationNotFound] },
    },
    async (request, reply) => {
      const tenant = tenantOf(request)
      if (wantsCsv(request)) return sendCsv(reply, 'inventory-counts.csv', columnsOf(CountSummary), await exportCounts(app.db, tenant, request.query))
      const page = pageRequest(request.query)
      const { counts, total } = await listCounts(app.db, tenant, request.query, page)
      return { data: counts, pagination: paginate(request, page, total) }
    },
  )

  app.get(
    '/counts/:count_id',
    {
      schema: {
        tags,
        summary: 'Get an inventory count',
        description: 'The count with every counted item: theoretical stock at counted_at, the counted quantity and the difference.',
        params: CountParams,
        querystring: CountQuery,
        response: { 200: jsonOrCsv(envelope(CountDetail), COUNT_LINE_COLUMNS) },
      },
      config: { permission: 'inventory:read', errors: [inventoryErrors.countNotFound] },
    },
    async (request, reply) => {
      const tenant = tenantOf(request)
      const countId = request.params.count_id
      if (wantsCsv(request)) return sendCsv(reply, `${countId}.csv`, COUNT_LINE_COLUMNS, await exportCountLines(app.db, tenant, countId))
      return { data: await getCount(app.db, tenant, countId) }
    },
  )

  app.get(
    '/items/:id/movements',
    {
      schema: {
        tags,
        summary: 'List an item’s stock movements',
        description:
          'The stock ledger of the item, newest first: every count, adjustment, batch change, delivery and day of sales, with what it changed, who made it and what it came from.',
        params: ItemParams,
        querystring: ListMovementsQuery,
        response: { 200: jsonOrCsv(listEnvelope(StockMovement), columnsOf(StockMovement)) },
      },
      config: { readReplica: true, permission: 'inventory:read', errors: [itemNotFound] },
    },
    async (request, reply) => {
      const tenant = tenantOf(request)
      const itemId = request.params.id
      if (wantsCsv(request)) return sendCsv(reply, `${itemId}-movements.csv`, columnsOf(StockMovement), await exportMovements(app.db, tenant, itemId))
      const page = pageRequest(request.query)
      const { movements, total } = await listMovements(app.db, tenant, itemId, page)
      return { data: movements, pagination: paginate(request, page, total) }
    },
  )

  app.put(
    '/items/:id',
    {
      schema: {
        tags,
        summary: 'Update an inventory item',
        description:
          'Any of the item fields; a quantity change is recorded in the stock ledger as an adjustment. A new sku, location, unit or size_ml follows the rules of create (duplicate_sku).',
        params: ItemParams,
        body: UpdateItemBody,
        response: { 200: envelope(InventoryItem) },
      },
      config: { permission: 'inventory:write', errors: [itemNotFound, invalidQuantity, invalidUnit, duplicateSku, locationNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => updateItem(trx, tenantOf(request), request.params.id, request.body, actorOf(request))),
  )

  app.delete(
    '/items/:id',
    {
      schema: {
        tags,
        summary: 'Delete an inventory item',
        description: 'The item leaves lists, counts to come and value; its ledger, past counts and orders keep it. Its SKU is free again.',
        params: ItemParams,
        response: { 200: envelope(Deleted('id')) },
      },
      config: { permission: 'inventory:write', errors: [itemNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => deleteItem(trx, tenantOf(request), request.params.id)),
  )

  app.post(
    '/count',
    {
      schema: {
        tags,
        summary: 'Record a physical inventory count',
        description:
          'Sets stock to the counted quantities and reports differences from theoretical stock in variance_detected. A line may weigh open containers (weight_g, or weights_g for several) of an item with full_weight_g and empty_weight_g: each adds its fraction of a unit to quantity. Any refused line refuses the whole count.',
        body: CountBody,
        response: { 201: envelope(CountResult) },
      },
      config: { permission: 'inventory:write', errors: [itemNotFound, invalidQuantity, locationNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 201, (trx) => recordCount(trx, tenantOf(request), request.body, options.countObserver)),
  )

  app.post(
    '/batch',
    {
      schema: {
        tags,
        summary: 'Update many quantities at once',
        description:
          'Each update sets `quantity` (absolute) or applies `change` (signed delta), dated `occurred_at` (default now) by the counts’ rule. Valid updates land; invalid ones come back in `failed` as {item_id, error: {code, message}}.',
        body: BatchBody,
        response: { 201: envelope(BatchResult) },
      },
      config: { permission: 'inventory:write' },
    },
    (request, reply) => runWrite(app.db, request, reply, 201, (trx) => applyBatch(trx, tenantOf(request), request.body, actorOf(request))),
  )
}
