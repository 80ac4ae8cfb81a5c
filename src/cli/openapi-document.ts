import { buildApp } from '../app.js'
import { loadConfig } from '../platform/config.js'
import { openPglite } from '../platform/db/connect.js'
import { MemoryRateLimitStore, RateLimiter } from '../platform/rate-limit.js'
import { createServiceMetrics } from '../service-metrics.js'

/**
 * The service's OpenAPI document as `/openapi.json` serves it, from an app built on an empty in-memory
 * database that never listens: no server, no network, no data directory. The default settings are used,
 * none of which changes the document.
 */
export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const database = await openPglite(undefined)
  const rateLimiter = new RateLimiter(new MemoryRateLimitStore())
  try {
    const app = await buildApp({
      config: loadConfig({ BARSTOCK_LOG_LEVEL: 'silent' }),
      database,
      rateLimiter,
      metrics: createServiceMetrics(database),
      logger: false,
    })
    await app.ready()
    const document = app.swagger() as unknown as Record<string, unknown>
    await app.close()
    return document
  } finally {
    await rateLimiter.close()
    await database.close()
  }
}
