import { tenantOf } from '../platform/auth/auth-plugin.js'
import { runWrite } from '../platform/idempotency.js'
import { envelope } from '../platform/http/schemas.js'
import type { App } from '../platform/http/types.js'
import { Settings, UpdateSettingsBody } from './settings.schemas.js'
import { getSettings, updateSettings } from './settings.service.js'

const tags = ['Settings']

export async function settingsRoutes(app: App) {
  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'Get the account settings',
        description:
          'The currency, variance threshold and metric targets of the account in the key’s environment; a field never set answers its default. Any valid key may read them.',
        response: { 200: envelope(Settings) },
      },
    },
    async (request) => ({ data: await getSettings(app.db, tenantOf(request)) }),
  )

  app.put(
    '/',
    {
      schema: {
        tags,
        summary: 'Change the account settings',
        description: 'Any subset of the fields, targets one by one too; the others keep their value. Answers the whole settings.',
        body: UpdateSettingsBody,
        response: { 200: envelope(Settings) },
      },
      config: { permission: 'inventory:write' },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => updateSettings(trx, tenantOf(request), request.body)),
  )
}
