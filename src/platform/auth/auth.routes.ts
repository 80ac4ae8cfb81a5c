import { Type } from 'typebox'
import { envelope } from '../http/schemas.js'
import type { App } from '../http/types.js'

const AuthTest = Type.Object({
  valid: Type.Boolean(),
  permissions: Type.Array(Type.String()),
  environment: Type.String({ description: 'production or sandbox: the environment of the key' }),
  rate_limit: Type.Object({ limit: Type.Integer(), remaining: Type.Integer() }),
})

export async function authRoutes(app: App) {
  app.get(
    '/test',
    {
      schema: {
        tags: ['Authentication'],
        summary: 'Check an API key',
        description: 'Any valid key may call this; it answers with the key’s permissions and its live rate-limit numbers.',
        response: { 200: envelope(AuthTest) },
      },
    },
    async (request) => {
      const auth = request.auth!
      const rate = request.rateLimit!
      return {
        data: {
          valid: true,
          permissions: auth.permissions,
          environment: auth.environment,
          rate_limit: { limit: rate.limit, remaining: rate.remaining },
        },
      }
    },
  )
}
