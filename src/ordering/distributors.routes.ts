import { Type } from 'typebox'
import { tenantOf } from '../platform/auth/auth-plugin.js'
import { pageRequest, paginate } from '../platform/http/pagination.js'
import { Deleted, envelope, listEnvelope } from '../platform/http/schemas.js'
import type { App } from '../platform/http/types.js'
import { runWrite } from '../platform/idempotency.js'
import { inventoryErrors } from '../inventory/index.js'
import { createDistributor, deleteDistributor, getCatalog, getDistributor, listDistributors, replaceCatalog, updateDistributor } from './distributors.service.js'
import { orderingErrors } from './ordering.errors.js'
import { CatalogBody, CatalogEntry, CreateDistributorBody, Distributor, DistributorSummary, IdParams, ListQuery, UpdateDistributorBody } from './ordering.schemas.js'

const tags = ['Distributors']
const { distributorNotFound } = orderingErrors

export async function distributorRoutes(app: App) {
  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'List distributors',
        description: 'The account’s distributors in the key’s environment, without contact details (GET one for those).',
        querystring: ListQuery,
        response: { 200: listEnvelope(DistributorSummary) },
      },
      config: { permission: 'ordering:read' },
    },
    async (request) => {
      const page = pageRequest(request.query)
      const { distributors, total } = await listDistributors(app.db, tenantOf(request), page)
      return { data: distributors, pagination: paginate(request, page, total) }
    },
  )

  app.post(
    '/',
    {
      schema: {
        tags,
        summary: 'Create a distributor',
        description: 'supported_categories defaults to all ten categories.',
        body: CreateDistributorBody,
        response: { 201: envelope(Distributor) },
      },
      config: { permission: 'ordering:write' },
    },
    (request, reply) => runWrite(app.db, request, reply, 201, (trx) => createDistributor(trx, tenantOf(request), request.body)),
  )

  app.get(
    '/:id',
    {
      schema: { tags, summary: 'Get a distributor', description: 'One distributor with its contact e-mail.', params: IdParams, response: { 200: envelope(Distributor) } },
      config: { permission: 'ordering:read', errors: [distributorNotFound] },
    },
    async (request) => ({ data: await getDistributor(app.db, tenantOf(request), request.params.id) }),
  )

  app.put(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Update a distributor',
        description: 'Changes the fields given; the others keep their value.',
        params: IdParams,
        body: UpdateDistributorBody,
        response: { 200: envelope(Distributor) },
      },
      config: { permission: 'ordering:write', errors: [distributorNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => updateDistributor(trx, tenantOf(request), request.params.id, request.body)),
  )

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Delete a distributor',
        description: 'Its orders keep its name; its drafts can no longer be submitted (distributor_not_found).',
        params: IdParams,
        response: { 200: envelope(Deleted('id')) },
      },
      config: { permission: 'ordering:write', errors: [distributorNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => deleteDistributor(trx, tenantOf(request), request.params.id)),
  )

  app.get(
    '/:id/catalog',
    {
      schema: {
        tags,
        summary: "List a distributor's catalog",
        description: 'What it sells, at which price and unit, by item name. Empty when it has no catalog (then it sells every item of its categories at the item’s cost).',
        params: IdParams,
        querystring: ListQuery,
        response: { 200: listEnvelope(CatalogEntry) },
      },
      config: { permission: 'ordering:read', errors: [distributorNotFound] },
    },
    async (request) => {
      const page = pageRequest(request.query)
      const { entries, total } = await getCatalog(app.db, tenantOf(request), request.params.id, page)
      return { data: entries, pagination: paginate(request, page, total) }
    },
  )

  app.put(
    '/:id/catalog',
    {
      schema: {
        tags,
        summary: "Replace a distributor's catalog",
        description: 'The body is the whole catalog. Once a distributor has a catalog, only the items in it can be ordered from it, at its prices.',
        params: IdParams,
        body: CatalogBody,
        response: { 200: envelope(Type.Array(CatalogEntry)) },
      },
      config: {
        permission: 'ordering:write',
        errors: [distributorNotFound, inventoryErrors.itemNotFound, inventoryErrors.invalidUnit, inventoryErrors.invalidQuantity],
      },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => replaceCatalog(trx, tenantOf(request), request.params.id, request.body)),
  )
}
