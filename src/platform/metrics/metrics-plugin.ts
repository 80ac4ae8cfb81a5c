import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { Type } from 'typebox'
import { defineError, platformErrors } from '../errors.js'
import { sendError } from '../http/conventions.js'
import { ErrorBody } from '../http/schemas.js'
import type { MetricsRegistry } from './metrics-registry.js'

export const metricsErrors = {
  invalidMetricsToken: defineError('invalid_metrics_token', 401, 'GET /metrics needs Authorization: Bearer with the BARSTOCK_METRICS_TOKEN'),
}

export interface MetricsPluginOptions {
  registry: MetricsRegistry
  /** BARSTOCK_METRICS_TOKEN; undefined leaves /metrics answering 404 like any unknown route. */
  token: string | undefined
}

/** The route label of a request that matched no route (a 404, or a URL refused before routing). */
const UNMATCHED_ROUTE = 'unmatched'

const digest = (text: string) => createHash('sha256').update(text).digest()

/** Whether the request carries `Authorization: Bearer <token>`, compared in constant time. */
function bearerMatches(request: FastifyRequest, expected: Buffer): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')
  return match !== null && timingSafeEqual(digest(match[1]!), expected)
}

/** Counts every answered request by route pattern and status, and the 429s of the rate limit. */
function countRequests(app: FastifyInstance, registry: MetricsRegistry): void {
  app.addHook('onResponse', (request, reply, done) => {
    registry.observeRequest(request.method, request.routeOptions.url ?? UNMATCHED_ROUTE, reply.statusCode, reply.elapsedTime)
    if (reply.statusCode === 429 && request.rateLimit?.exceeded) {
      registry.rateLimitRejected(request.auth?.environment ?? 'unauthenticated')
    }
    done()
  })
}

/**
 * `GET /metrics` in Prometheus text format, behind its own bearer token (not an API key: Prometheus
 * scrapes the whole service, not one account), and the request counting that feeds it.
 */
async function metrics(app: FastifyInstance, options: MetricsPluginOptions) {
  const { registry } = options
  countRequests(app, registry)
  const expected = options.token === undefined ? undefined : digest(options.token)
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['Operations'],
        summary: 'Prometheus metrics',
        description:
          "The service's metrics in Prometheus text format (docs/observability.md lists each metric, its labels and meaning). " +
          'Off unless BARSTOCK_METRICS_TOKEN is set: then it answers 404 like any unknown route. ' +
          'With it set, send `Authorization: Bearer <BARSTOCK_METRICS_TOKEN>`; API keys are not accepted here.',
        security: [{ MetricsToken: [] }],
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: Type.String({ examples: ['barstock_outbox_backlog 0\n'] }) } },
          },
          401: {
            ...ErrorBody,
            description: '- `invalid_metrics_token`: no bearer token, or not BARSTOCK_METRICS_TOKEN',
            examples: [{ error: { code: 'invalid_metrics_token', message: 'GET /metrics needs Authorization: Bearer <BARSTOCK_METRICS_TOKEN>' } }],
          },
          404: {
            ...ErrorBody,
            description: '- `not_found`: BARSTOCK_METRICS_TOKEN is not set',
            examples: [{ error: { code: 'not_found', message: 'No route GET /metrics' } }],
          },
        },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      if (expected === undefined) return sendError(platformErrors.notFound([request.method, '/metrics']), request, reply)
      if (!bearerMatches(request, expected)) {
        reply.header('WWW-Authenticate', 'Bearer realm="barstock metrics"')
        return sendError(metricsErrors.invalidMetricsToken(), request, reply)
      }
      const scrape = await registry.scrape()
      for (const failure of scrape.failures) request.log.warn({ err: failure.error, metric: failure.metric }, 'metric left out of the scrape')
      return reply.header('Content-Type', registry.registry.contentType).header('Cache-Control', 'no-store').send(scrape.text)
    },
  )
}

export const metricsPlugin = fp(metrics, { name: 'barstock-metrics', dependencies: ['barstock-conventions'] })
