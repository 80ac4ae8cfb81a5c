import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Config } from './platform/config.js'
import type { DatabaseHandle } from './platform/db/connect.js'
import { API_KEYS_CHANNEL } from './platform/auth/api-keys.js'
import { ApiKeyCache, authPlugin, countUnroutedRequest } from './platform/auth/auth-plugin.js'
import { authRoutes } from './platform/auth/auth.routes.js'
import { BODY_LIMIT_BYTES, conventionsPlugin, sendError, toAppError } from './platform/http/conventions.js'
import { answerClientError, frameworkErrorOf, withoutTrailingSlash } from './platform/http/input-safety.js'
import { healthRoutes } from './platform/http/health.routes.js'
import { readRoutingPlugin } from './platform/http/read-routing.js'
import { reportCachePlugin } from './platform/http/report-cache.js'
import { consoleRoutes } from './platform/http/console.routes.js'
import { projectPath } from './platform/paths.js'
import { openapiPlugin } from './platform/http/openapi.js'
import { validatorCompiler } from './platform/http/validation.js'
import { BulkWrites } from './platform/bulk-writes.js'
import { newId } from './platform/ids.js'
import { loggerOptions, requestLogController, requestLoggerFactory } from './platform/logging.js'
import type { Resolver } from './platform/network-guard.js'
import type { RateLimiter } from './platform/rate-limit.js'
import { metricsPlugin } from './platform/metrics/metrics-plugin.js'
import type { MetricsRegistry } from './platform/metrics/metrics-registry.js'
import { costingRoutes, emitCountVariance, forecastRoutes, metricsRoutes, storedDemandForecasts, varianceRoutes } from './analytics/index.js'
import { countItemsAtLocation, inventoryRoutes, liveItemIdsAt, stockOperationRoutes } from './inventory/index.js'
import { locationRoutes } from './locations/index.js'
import { recipeRoutes } from './recipes/index.js'
import { settingsRoutes } from './settings/index.js'
import { webhookRoutes } from './webhooks/index.js'
import { distributorRoutes, orderRoutes } from './ordering/index.js'
import { closeSandboxSimulators, connectionsRoutes, mappingsRoutes, PosGateway, posPushRoutes, PUSH_PATH_PREFIX, salesRoutes, syncRoutes } from './pos/index.js'
import { EVENT_KINDS, EVENT_SCHEMAS } from './event-registry.js'
import { API_GUIDE, API_TAGS } from './api-guides.js'

export interface AppOptions {
  config: Config
  database: DatabaseHandle
  rateLimiter: RateLimiter
  /** The process's metrics, shared with its workers (src/service-metrics.ts). */
  metrics: MetricsRegistry
  /** false silences request logs (tests). */
  logger?: boolean
  /** Looks up the hosts of webhook URLs at create; the system's DNS unless a test gives its own. */
  resolver?: Resolver
}

export const API_VERSION = '1.0.0'

/**
 * Once shutdown starts, every answer carries `Connection: close`: a keep-alive connection whose request
 * was in flight at that moment is closed after its answer instead of holding the shutdown open until its
 * keep-alive timeout (idle ones Fastify closes itself).
 */
function closeConnectionsWhenClosing(app: FastifyInstance): void {
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onSend', (_request, reply, _payload, done) => {
    if (closing) reply.header('Connection', 'close')
    done()
  })
}

/** The whole service as a Fastify instance that is not listening yet (serve.ts listens; tests inject). */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, database } = options
  const limits = { limiter: options.rateLimiter, limits: config.rateLimits }
  // Refused before routing (a malformed path): in the API's shape, counted like every /v1 request.
  const refuseUnrouted = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    countUnroutedRequest(limits, request, reply).then(
      () => sendError(frameworkErrorOf(error), request, reply),
      (refusal: unknown) => sendError(toAppError(refusal, request), request, reply),
    )
  }
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(config),
    logController: requestLogController(config),
    childLoggerFactory: requestLoggerFactory,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: config.trustProxy,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    return503OnClosing: true,
    // Ids are at most 63 characters; longer segments are refused in the API's shape (frameworkErrors).
    routerOptions: { maxParamLength: 500 },
    frameworkErrors: refuseUnrouted,
    clientErrorHandler: answerClientError,
    // One rule for every route: a trailing slash is ignored (/v1/orders/ is /v1/orders).
    rewriteUrl: withoutTrailingSlash,
  }).withTypeProvider<TypeBoxTypeProvider>()
  app.setValidatorCompiler(validatorCompiler)
  app.decorate('db', database.db)
  const bulkWriteWaitMs = database.kind === 'postgres' ? config.bulkWriteWaitMs : undefined
  app.decorate('bulkWrites', new BulkWrites({ slots: config.bulkWriteSlots, waitMs: bulkWriteWaitMs }))

  const keys = new ApiKeyCache(database.db)
  const unlisten = await database.listen(API_KEYS_CHANNEL, () => keys.clear())
  app.addHook('onClose', async () => unlisten())

  await app.register(conventionsPlugin)
  await app.register(readRoutingPlugin, { replica: database.replica })
  await app.register(reportCachePlugin, { maxBytes: config.reportCacheBytes, onLookup: (outcome) => options.metrics.reportCacheLookup(outcome) })
  closeConnectionsWhenClosing(app)
  await app.register(openapiPlugin, { version: API_VERSION, guide: API_GUIDE, tags: API_TAGS, events: EVENT_SCHEMAS })
  await app.register(metricsPlugin, { registry: options.metrics, token: config.metricsToken })
  await app.register(authPlugin, { keys, ...limits })
  await app.register(healthRoutes, { probeDatabase: () => database.probe() })
  await app.register(consoleRoutes, { root: projectPath('dist', 'console') })
  await app.register(authRoutes, { prefix: '/v1/auth' })
  await app.register(locationRoutes, { prefix: '/v1/locations', itemsAtLocation: countItemsAtLocation, liveItemIdsAt })
  await app.register(inventoryRoutes, { prefix: '/v1/inventory', countObserver: emitCountVariance })
  await app.register(stockOperationRoutes, { prefix: '/v1/inventory' })
  await app.register(settingsRoutes, { prefix: '/v1/settings' })
  await app.register(recipeRoutes, { prefix: '/v1/recipes' })
  const posGateway = new PosGateway(config, options.resolver)
  await app.register(connectionsRoutes, { prefix: '/v1/pos', gateway: posGateway })
  await app.register(syncRoutes, { prefix: '/v1/pos' })
  await app.register(mappingsRoutes, { prefix: '/v1/pos' })
  await app.register(posPushRoutes, { prefix: PUSH_PATH_PREFIX, gateway: posGateway })
  await app.register(salesRoutes, { prefix: '/v1/sales' })
  app.addHook('onClose', closeSandboxSimulators)
  await app.register(webhookRoutes, { prefix: '/v1/webhooks', allowPrivate: config.webhookAllowPrivate, resolver: options.resolver, eventKinds: EVENT_KINDS })
  await app.register(distributorRoutes, { prefix: '/v1/distributors' })
  await app.register(orderRoutes, {
    prefix: '/v1/orders',
    purchaseOrderMail: config.smtpUrl !== undefined,
    forecaster: storedDemandForecasts,
  })
  await app.register(varianceRoutes, { prefix: '/v1/analytics' })
  await app.register(forecastRoutes, { prefix: '/v1/analytics', refitDelayMs: config.forecastRefitDelayMs })
  await app.register(costingRoutes, { prefix: '/v1/analytics' })
  await app.register(metricsRoutes, { prefix: '/v1/analytics' })
  return app
}
