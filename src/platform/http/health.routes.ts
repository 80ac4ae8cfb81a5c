import { sql } from 'kysely'
import { Type } from 'typebox'
import type { App } from './types.js'

const Health = Type.Object({ status: Type.String({ description: '`ok` from /healthz, `ready` from /readyz', examples: ['ok'] }) })
const Unready = Type.Object({
  status: Type.String({ description: 'Always `unavailable`', examples: ['unavailable'] }),
  error: Type.String({ description: 'Why, without internals (the log has them)', examples: ['database unreachable'] }),
})

/** Liveness and readiness, without a key, for load balancers and orchestrators. */
export async function healthRoutes(app: App) {
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
        description: 'Runs `SELECT 1`: 200 when the database answers, 503 when it does not (take the instance out of rotation). No key, no rate limit.',
        response: { 200: { ...Health, examples: [{ status: 'ready' }] }, 503: { ...Unready, description: 'The database did not answer' } },
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
