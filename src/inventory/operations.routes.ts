import { actorOf, tenantOf } from '../platform/auth/auth-plugin.js'
import { runWrite } from '../platform/idempotency.js'
import { pageRequest, paginate } from '../platform/http/pagination.js'
import { envelope, listEnvelope } from '../platform/http/schemas.js'
import type { App } from '../platform/http/types.js'
import { locationErrors } from '../locations/index.js'
import { inventoryErrors } from './inventory.errors.js'
import { ListTransfersQuery, ListWasteQuery, OperationParams, Transfer, TransferBody, WasteBody, WasteEntry } from './operations.schemas.js'
import { createTransfer, getTransfer, listTransfers, voidTransfer } from './transfers.service.js'
import { getWaste, listWaste, recordWaste, voidWaste } from './waste.service.js'

const tags = ['Inventory']
const { itemNotFound, invalidQuantity, invalidUnit, transferMismatch, transferNotFound, wasteNotFound } = inventoryErrors
const { locationNotFound } = locationErrors

/** Transfers between locations and recorded waste, under /v1/inventory (docs/bar-operations.md). */
export async function stockOperationRoutes(app: App) {
  app.post(
    '/transfers',
    {
      schema: {
        tags,
        summary: 'Move stock between two locations',
        description:
          'Out of each item at from_location and into the item of the same SKU at to_location (created there from the source’s product fields when missing), in one transaction: ledger rows of kind transfer on both sides. Cases convert to the units they hold. A back-dated transferred_at before an item’s latest count is history for that item.',
        body: TransferBody,
        response: { 201: envelope(Transfer) },
      },
      config: { permission: 'inventory:write', errors: [itemNotFound, invalidQuantity, locationNotFound, transferMismatch] },
    },
    (request, reply) => runWrite(app.db, request, reply, 201, (trx) => createTransfer(trx, tenantOf(request), request.body)),
  )

  app.get(
    '/transfers',
    {
      schema: {
        tags,
        summary: 'List transfers',
        description:
          'Newest first (by transferred_at); filter by a location on either side, an item on either side and transferred_at dates. Voided transfers are listed with voided_at.',
        querystring: ListTransfersQuery,
        response: { 200: listEnvelope(Transfer) },
      },
      config: { readReplica: true, permission: 'inventory:read', errors: [locationNotFound] },
    },
    async (request) => {
      const page = pageRequest(request.query)
      const { transfers, total } = await listTransfers(app.db, tenantOf(request), request.query, page)
      return { data: transfers, pagination: paginate(request, page, total) }
    },
  )

  app.get(
    '/transfers/:id',
    {
      schema: { tags, summary: 'Get a transfer', description: 'The transfer with its lines.', params: OperationParams, response: { 200: envelope(Transfer) } },
      config: { permission: 'inventory:read', errors: [transferNotFound] },
    },
    async (request) => ({ data: await getTransfer(app.db, tenantOf(request), request.params.id) }),
  )

  app.delete(
    '/transfers/:id',
    {
      schema: {
        tags,
        summary: 'Void a transfer',
        description: 'Reverses its movements (where they took current stock) and sets voided_at; the record stays and reports leave it out. Voiding it again changes nothing.',
        params: OperationParams,
        response: { 200: envelope(Transfer) },
      },
      config: { permission: 'inventory:write', errors: [transferNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => voidTransfer(trx, tenantOf(request), request.params.id, actorOf(request))),
  )

  app.post(
    '/waste',
    {
      schema: {
        tags,
        summary: 'Record waste',
        description:
          'Spills, breakage, comps the POS did not ring, staff drinks, spoilage and returns, with who and when (back-dated allowed, like counts). Each line leaves stock in the item’s unit (a spill may be given in oz or ml); the variance report counts it as explained usage. Emits inventory.waste_recorded.',
        body: WasteBody,
        response: { 201: envelope(WasteEntry) },
      },
      config: { permission: 'inventory:write', errors: [itemNotFound, invalidQuantity, invalidUnit, locationNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 201, (trx) => recordWaste(trx, tenantOf(request), request.body)),
  )

  app.get(
    '/waste',
    {
      schema: {
        tags,
        summary: 'List waste entries',
        description: 'Newest first (by occurred_at); filter by location, reason (entries with a line of it) and occurred_at dates. Voided entries are listed with voided_at.',
        querystring: ListWasteQuery,
        response: { 200: listEnvelope(WasteEntry) },
      },
      config: { readReplica: true, permission: 'inventory:read', errors: [locationNotFound] },
    },
    async (request) => {
      const page = pageRequest(request.query)
      const { entries, total } = await listWaste(app.db, tenantOf(request), request.query, page)
      return { data: entries, pagination: paginate(request, page, total) }
    },
  )

  app.get(
    '/waste/:id',
    {
      schema: { tags, summary: 'Get a waste entry', description: 'The entry with its lines.', params: OperationParams, response: { 200: envelope(WasteEntry) } },
      config: { permission: 'inventory:read', errors: [wasteNotFound] },
    },
    async (request) => ({ data: await getWaste(app.db, tenantOf(request), request.params.id) }),
  )

  app.delete(
    '/waste/:id',
    {
      schema: {
        tags,
        summary: 'Void a waste entry',
        description:
          'Gives its quantities back to stock (where they took current stock) and sets voided_at; the record stays and reports leave it out. Voiding it again changes nothing.',
        params: OperationParams,
        response: { 200: envelope(WasteEntry) },
      },
      config: { permission: 'inventory:write', errors: [wasteNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => voidWaste(trx, tenantOf(request), request.params.id, actorOf(request))),
  )
}
