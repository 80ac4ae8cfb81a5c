import { Type } from 'typebox'
import type { ProbeResult } from '../db/stall-watch.js'
import { platformErrors } from '../errors.js'
import { sendError } from './conventions.js'
import { ErrorBody } from './schemas.js'
import type { App } from './types.js'

const Health = Type.Object({ status: Type.String({ description: '`ok` from /healthz, `ready` from /readyz', examples: ['ok'] }) })

export interface HealthOptions {
  /** SELECT 1 outside the pool, bounded by BARSTOCK_DB_PROBE_TIMEOUT_MS (DatabaseHandle.probe). */
  probeDatabase: () => Promise<ProbeResult>
}

/** Liveness and readiness, without a key, for load balancers and orchestrators. */
export async function healthRoutes(app: App, options: HealthOptions) {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['Health'],
        summary: 'The process is up',
        description: 'Answers 200 as long as the process serves HTTP, whatever the database does: a liveness probe. No key, no rate limit.',
        response: { 200: Health },
      },
    },
    async () => ({ status: 'ok' }),
  )
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['Health'],
        summary: 'The database answers',
        description:
          'Runs `SELECT 1` on a connection of its own (not one from the pool, which may be busy or stalled): 200 when the database answers, ' +
          '503 `database_unavailable` with `Retry-After` when it refuses or does not answer within `BARSTOCK_DB_PROBE_TIMEOUT_MS` ' +
          '(1.5 s by default), so the probe itself never hangs: take the instance out of rotation. No key, no rate limit.',
        response: {
          200: { ...Health, examples: [{ status: 'ready' }] },
          503: {
            ...ErrorBody,
            description: 'The database refused or did not answer in time (`database_unavailable`)',
            examples: [{ error: { code: 'database_unavailable', message: platformErrors.databaseUnavailable.template } }],
          },
        },
      },
    },
    async (request, reply) => {
      const result = await options.probeDatabase()
      if (result === 'ready') return { status: 'ready' }
      request.log.warn({ probe: result }, 'readiness check failed')
      return sendError(platformErrors.databaseUnavailable(), request, reply)
    },
  )
}
