import { actorOf, tenantOf } from '../../platform/auth/auth-plugin.js'
import { runWrite, runWriteAfter } from '../../platform/idempotency.js'
import { pageRequest, paginate } from '../../platform/http/pagination.js'
import { Deleted, envelope, listEnvelope } from '../../platform/http/schemas.js'
import type { App } from '../../platform/http/types.js'
import { locationErrors } from '../../locations/index.js'
import { createConnection, deleteConnection, getConnection, listConnections, updateConnection, verifyNewConnection } from './connections.service.js'
import { posErrors } from '../pos.errors.js'
import type { PosGateway } from './pos-gateway.js'
import {
  ConnectionParams,
  CreateConnectionBody,
  CreatedPosConnection,
  ListConnectionsQuery,
  PosConnection,
  PosConnectionWithStats,
  UpdateConnectionBody,
} from './connections.schemas.js'

const tags = ['POS']
const { posNotSupported, invalidCredentials, connectionFailed, connectionNotFound, pushNotSupported } = posErrors

/** The routes that log in with a vendor get the gateway that opens its adapter. */
export interface ConnectionsRouteOptions {
  gateway: PosGateway
}

/** POS connections: connect a vendor account, read, change and delete it (under /v1/pos). */
export async function connectionsRoutes(app: App, { gateway }: ConnectionsRouteOptions) {
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
}
