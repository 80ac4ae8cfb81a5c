import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify'
import PinoPretty from 'pino-pretty'
import type { Config } from './config.js'

// Secrets and personal data never reach the logs, whatever a log line carries.
const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  '*.contact_email',
  '*.credentials',
  '*.secret',
  '*.push_secret',
  '*.password',
  '*.key',
  // A failed query's bound values (PGlite puts them on the error): any of them may be a tenant's data.
  'err.params',
  'err.parameters',
  '*.err.params',
]

/**
 * One line per request, written when the answer is sent: method, route, status, ms, key id and
 * request id, instead of Fastify's "incoming request" and "request completed" pair. The route is the
 * template (`/v1/inventory/items/:id`), so lines group by endpoint and no id or query value is logged;
 * a request no route matched logs its path without the query.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return
    const line = {
      method: request.method,
      route: request.routeOptions.url ?? request.url.split('?')[0],
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      key_id: request.auth?.keyId ?? null,
    }
    if (error) reply.log.error({ ...line, err: error }, 'request errored')
    else reply.log.info(line, 'request')
  }
}

/** The logger of the server and of `barstock worker`: JSON lines, or pino-pretty's for a human. */
export function loggerOptions(config: Pick<Config, 'logLevel' | 'logFormat'>): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    redact: REDACTED_PATHS,
    // In this thread and synchronous, so the last lines before an exit are not lost.
    ...(config.logFormat === 'pretty' && { stream: PinoPretty({ sync: true, translateTime: 'SYS:standard', ignore: 'pid,hostname' }) }),
  }
}

/** Every request-bound line carries `request_id`; the request line itself is written by OneLinePerRequest. */
export function requestLogController(): LogController {
  return new OneLinePerRequest({ requestIdLogLabel: 'request_id' })
}
