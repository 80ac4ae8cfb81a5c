import { actorOf, tenantOf } from '../../platform/auth/auth-plugin.js'
import { runWrite } from '../../platform/idempotency.js'
import { pageRequest, paginate } from '../../platform/http/pagination.js'
import { envelope, listEnvelope } from '../../platform/http/schemas.js'
import type { App } from '../../platform/http/types.js'
import { ConnectionParams } from '../connections/connections.schemas.js'
import { posErrors } from '../pos.errors.js'
import { ListSyncRunsQuery, SyncParams, SyncRun, TriggerSyncBody } from './sync.schemas.js'
import { getSyncRun, listSyncRuns, triggerSync } from './sync.service.js'

const tags = ['POS']
const { syncInProgress, connectionNotFound, syncNotFound } = posErrors

/** Sync runs: start one, list a connection's, read one (under /v1/pos). */
export async function syncRoutes(app: App) {
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
      config: { readReplica: true, permission: 'pos:read', errors: [connectionNotFound] },
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
}
