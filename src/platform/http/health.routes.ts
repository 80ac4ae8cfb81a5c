import { sql } from 'kysely'
import { Type } from 'typebox'
import type { App } from './types.js'

const Health = Type.Object({ status: Type.String() })

/** Liveness and readiness, without a key, for load balancers and orchestrators. */
export async function healthRoutes(app: App) {
  app.get(
    '/healthz',
    { schema: { tags: ['Health'], summary: 'The process is up', response: { 200: Health } } },
    async () => ({ status: 'ok' }),
  )
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['Health'],
        summary: 'The database answers',
        response: { 200: Health, 503: Type.Object({ status: Type.String(), error: Type.String() }) },
      },
    },
    async (request, reply) => {
      try {
        await sql`SELECT 1`.execute(app.db)
        return { status: 'ready' }
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed')
        return reply.code(503).send({ status: 'unavailable', error: 'database unreachable' })
      }
    },
  )
}
