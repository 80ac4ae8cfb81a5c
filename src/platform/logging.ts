import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController, type LogLevel } from 'fastify'
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
  constructor(private readonly linePerRequest: boolean) {
    super({ requestIdLogLabel: 'request_id' })
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request) || (!error && !this.linePerRequest)) return
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
export function requestLogController(config: Pick<Config, 'logLevel'>): LogController {
  return new OneLinePerRequest(LEVELS.indexOf(config.logLevel as LogLevel) >= LEVELS.indexOf('info'))
}

type ChildLoggerFactory = NonNullable<FastifyServerOptions['childLoggerFactory']>
type Bindings = Parameters<ChildLoggerFactory>[1]
type ChildLoggerOptions = Parameters<ChildLoggerFactory>[2]

/** From the fewest lines to the most (`silent` writes none). */
const LEVELS: LogLevel[] = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace']

type LineLevel = Exclude<LogLevel, 'silent'>

/**
 * A request's logger that makes its pino child (which serialises the bindings through the redaction
 * rules) only when a line is written at an enabled level: at warn, most requests write none, and making
 * the child anyway cost a few percent of a GET's CPU.
 */
type PinoLogger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean }

class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined

  constructor(
    private readonly parent: PinoLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return this.made?.level ?? this.parent.level
  }

  set level(level: string) {
    this.logger().level = level
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options)
  }

  private logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options)
    return this.made
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args)
  }

  error(...args: unknown[]): void {
    this.write('error', args)
  }

  warn(...args: unknown[]): void {
    this.write('warn', args)
  }

  info(...args: unknown[]): void {
    this.write('info', args)
  }

  debug(...args: unknown[]): void {
    this.write('debug', args)
  }

  trace(...args: unknown[]): void {
    this.write('trace', args)
  }

  silent(): void {}

  private write(level: LineLevel, args: unknown[]): void {
    if (!this.made && !this.parent.isLevelEnabled(level))
      return // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- pino's overloads take no spread: the cast is needed (TS2556 without it)
    ;(this.logger()[level] as (...line: unknown[]) => void)(...args)
  }
}

/** request.log for every request: a RequestLogger over pino (without a logger, Fastify's silent one as it is). */
export const requestLoggerFactory: ChildLoggerFactory = (logger, bindings, options) =>
  'isLevelEnabled' in logger ? new RequestLogger(logger as PinoLogger, bindings, options) : logger.child(bindings, options)
