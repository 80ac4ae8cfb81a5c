import { Type } from 'typebox'
import { envelope } from '../http/schemas.js'
import type { App } from '../http/types.js'

const AuthTest = Type.Object({
  valid: Type.Boolean({ description: 'Always true: an invalid key answers 401 invalid_api_key', examples: [true] }),
  permissions: Type.Array(Type.String(), { description: 'The key’s permissions', examples: [['inventory:read', 'inventory:write', 'ordering:read']] }),
  environment: Type.String({ description: 'production or sandbox: the environment of the key', examples: ['production'] }),
  rate_limit: Type.Object(
    {
      limit: Type.Integer({ description: 'Requests allowed per minute for this key', examples: [1000] }),
      remaining: Type.Integer({ description: 'Requests left in the current minute, this one counted', examples: [998] }),
    },
    { description: 'The key’s rate limit right now' },
  ),
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
