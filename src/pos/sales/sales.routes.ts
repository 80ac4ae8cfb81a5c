import { tenantOf } from '../../platform/auth/auth-plugin.js'
import { runWrite } from '../../platform/idempotency.js'
import { platformErrors } from '../../platform/errors.js'
import { envelope } from '../../platform/http/schemas.js'
import type { App } from '../../platform/http/types.js'
import { inventoryErrors } from '../../inventory/index.js'
import { locationErrors } from '../../locations/index.js'
import { posErrors } from '../pos.errors.js'
import { ImportSalesBody, ImportSalesResult, MAX_IMPORT_LINES } from './sales.schemas.js'
import { importSales } from './sales.service.js'

/** 10,000 lines of sales do not fit the general 1 MiB body limit; this route alone takes up to 8 MiB. */
export const SALES_IMPORT_BODY_LIMIT = 8 * 1024 * 1024

export async function salesRoutes(app: App) {
  app.post(
    '/',
    {
      bodyLimit: SALES_IMPORT_BODY_LIMIT,
      schema: {
        tags: ['Sales'],
        summary: 'Import sales into a POS connection',
        description: `At most ${MAX_IMPORT_LINES} lines a request (body up to 8 MiB). A line_id seen before on the connection is a duplicate and changes nothing; mapped lines deplete stock.`,
        body: ImportSalesBody,
        response: { 201: envelope(ImportSalesResult) },
      },
      config: {
        permission: 'pos:write',
        errors: [posErrors.connectionNotFound, locationErrors.locationNotFound, inventoryErrors.invalidQuantity, platformErrors.importsBusy],
      },
    },
    // A bulk write: it waits for its turn holding no connection, so a burst of imports leaves the pool room for reads.
    (request, reply) =>
      app.bulkWrites.run(() => runWrite(app.db, request, reply, 201, (trx) => importSales(trx, tenantOf(request), request.body, request.auth?.keyId ?? 'unknown'))),
  )
}
