import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { AppError, invalidParameter, isAppError, platformErrors } from '../errors.js'
import { isDatabaseUnavailable } from '../db/connect.js'
import { rejectUnsafeInput } from './input-safety.js'
import { NOT_BLANK } from './schemas.js'

export const BODY_LIMIT_BYTES = 1024 * 1024
/** What a 503 tells clients to wait when the refusal estimated no wait of its own (database_unavailable). */
const DATABASE_RETRY_AFTER_SECONDS = 5
/** How long one cause of 503 database_unavailable is logged once: a failover fails every request alike. */
const OUTAGE_LOG_PERIOD_MS = 60_000

type ValidationError = NonNullable<FastifyError['validation']>[number]

/** `/items/0/quantity` → `items[0].quantity`, the way a client names the field. */
function parameterName(path: string): string {
  return path
    .split('/')
    .filter(Boolean)
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join('')
}

function valueAt(root: unknown, path: string): unknown {
  let value = root
  for (const part of path.split('/').filter(Boolean)) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<string, unknown>)[part]
  }
  return value
}

/** What a value of each string format looks like, for the error that refuses one. */
const FORMAT_EXAMPLES: Record<string, string> = {
  date: 'a date like 2026-11-22 that exists',
  'date-time': 'a date-time like 2026-11-22T21:30:00Z, in the years 0001 to 9999',
  email: 'an e-mail address like orders@wholesaler.example',
  uri: 'an absolute URL like https://bar.example/hooks/barstock',
}

/** Each pattern of the API's schemas, as a rule in words. */
const PATTERN_RULES: Record<string, string> = {
  [NOT_BLANK]: 'must not be blank (only spaces)',
  '^[a-z0-9][a-z0-9_-]{0,62}$': 'must be 1 to 63 lowercase letters, digits, _ or -, starting with a letter or digit (e.g. main_bar)',
  '^[a-z][a-z0-9_]{0,31}$': 'must be 1 to 32 lowercase letters, digits or _, starting with a letter',
  '^([01][0-9]|2[0-3]):[0-5][0-9]$': 'must be a time of day HH:MM, 00:00 to 23:59 (e.g. 04:00)',
  '^[A-Z]{2}$': 'must be a two-letter ISO 3166 country code in capitals (e.g. US)',
  '^[A-Z]{3}$': 'must be a three-letter ISO 4217 currency code in capitals (e.g. USD)',
  '^[\\x21-\\x7e]+$': 'must be printable ASCII without spaces',
}

/** Turns the first schema violation into invalid_parameter with details.parameter and details.value. */
function fromValidation(request: FastifyRequest, context: string | undefined, failure: ValidationError): AppError {
  const source = context === 'querystring' ? request.query : context === 'params' ? request.params : context === 'headers' ? request.headers : request.body
  const params = failure.params
  let path = failure.instancePath
  if (failure.keyword === 'required') path += `/${String(params.missingProperty)}`
  if (failure.keyword === 'additionalProperties') path += `/${String(params.additionalProperty)}`
  const parameter = parameterName(path) || (context === 'body' ? 'body' : (context ?? 'request'))
  const problem =
    failure.keyword === 'additionalProperties'
      ? 'is not a known field'
      : failure.keyword === 'required'
        ? 'is required'
        : failure.keyword === 'enum'
          ? `must be one of ${(params.allowedValues as unknown[]).join(', ')}`
          : failure.keyword === 'format'
            ? `must be ${FORMAT_EXAMPLES[String(params.format)] ?? `in ${String(params.format)} format`}`
            : failure.keyword === 'pattern'
              ? (PATTERN_RULES[String(params.pattern)] ?? `must match the pattern ${String(params.pattern)}`)
              : (failure.message ?? 'is invalid')
  return invalidParameter(parameter, valueAt(source, path), `${parameter} ${problem}`)
}

/** Maps anything thrown while handling a request to an AppError of the catalogue. */
export function toAppError(error: unknown, request: FastifyRequest): AppError {
  if (isAppError(error)) return error
  const fastifyError = error as FastifyError
  if (fastifyError.validation?.[0]) return fromValidation(request, fastifyError.validationContext, fastifyError.validation[0])
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return platformErrors.payloadTooLarge(String(BODY_LIMIT_BYTES))
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return invalidParameter('Content-Type', request.headers['content-type'], 'Content-Type must be application/json')
  }
  if (isDatabaseUnavailable(error)) return platformErrors.databaseUnavailable()
  if (fastifyError.statusCode === 400 || error instanceof SyntaxError) {
    return invalidParameter('body', null, `The request body is not valid JSON: ${fastifyError.message}`)
  }
  return platformErrors.internalError()
}

function addMeta(request: FastifyRequest, payload: unknown): unknown {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return payload
  if ('meta' in payload || (!('data' in payload) && !('error' in payload))) return payload
  return { ...payload, meta: metaOf(request) }
}

function metaOf(request: FastifyRequest) {
  return { request_id: request.id, timestamp: new Date().toISOString() }
}

/** How the envelope's serializer starts a `{data, meta}` answer, and what starts its meta after the data. */
const DATA_OPENING = '{"data":'
const META_OPENING = ',"meta":'

/** A `{data, meta}` answer around `data` already serialized, byte for byte as the serializer writes one. */
export function envelopeAround(request: FastifyRequest, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(DATA_OPENING), data, Buffer.from(`${META_OPENING}${JSON.stringify(metaOf(request))}}`)])
}

export function sendError(error: AppError, request: FastifyRequest, reply: FastifyReply) {
  // Error replies skip preSerialization hooks, so meta is added here.
  const body: { error: { code: string; message: string; details?: object }; meta: object } = {
    error: { code: error.code, message: error.message },
    meta: metaOf(request),
  }
  if (error.details) body.error.details = error.details
  // Every 503 says when to retry: the wait the refusal estimated where its details carry one (imports_busy), else a few seconds.
  if (error.statusCode === 503) reply.header('Retry-After', error.details?.retry_after_seconds ?? DATABASE_RETRY_AFTER_SECONDS)
  return reply.code(error.statusCode).send(body)
}

/**
 * One body rule for every route (with the empty-body parser below). On a route that takes a body, a
 * request without one is validated as the empty object: a route whose fields are all optional (POST
 * …/sync, …/auto-map) takes it as all defaults, and one with required fields names the first missing
 * field. A route that takes none (POST …/submit, DELETE) refuses a body with fields, or text, as a
 * schema refuses an unknown field: 400 invalid_parameter; no body or `{}` passes.
 */
function bodyRule(route: RouteOptions): void {
  const check = route.schema?.body ? emptyWhenAbsent : refuseBody
  route.preValidation = [...(route.preValidation === undefined ? [] : [route.preValidation].flat()), check]
}

/**
 * An API route without query parameters of its own refuses every one, as a route with a query schema
 * refuses an unknown one ("categroy is not a known field"), so a typo never passes silently. Public
 * routes (vendor pushes, health) take what their callers append.
 */
function queryRule(route: RouteOptions): void {
  if (!route.url.startsWith('/v1/') || route.config?.public || route.schema?.querystring) return
  route.schema = { ...route.schema, querystring: { type: 'object', properties: {}, additionalProperties: false } }
}

// Callback form, as the hooks below: an async hook costs every request a promise.
function emptyWhenAbsent(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
  request.body ??= {}
  done()
}

function refuseBody(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
  const { body } = request
  // Bytes come only from a route's own raw parser (vendor pushes, which verify a signature over them).
  const empty = Buffer.isBuffer(body) || body === undefined || body === null || (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0)
  done(empty ? undefined : invalidParameter('body', body, `${request.method} ${request.routeOptions.url} takes no body`))
}

/**
 * The API grammar, once for every route: request ids, the `data`/`meta` envelope, the error shape and
 * status of every code, 404 for unknown routes, and 500s without internals.
 */
async function conventions(app: FastifyInstance) {
  app.addHook('onRoute', bodyRule)
  app.addHook('onRoute', queryRule)
  // The hooks that never wait take Fastify's callback form: an async hook costs every request a promise.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id)
    done()
  })
  // A POST or DELETE without a body but with Content-Type: application/json (most HTTP clients send it)
  // is an empty body, on every route alike: the route's schema then says whether it needs one.
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => (body === '' ? done(null, undefined) : parseJson(request, body as string, done)))
  app.addHook('preValidation', (request, _reply, done) => {
    rejectUnsafeInput(request)
    done()
  })
  app.addHook('preSerialization', (request, _reply, payload, done) => done(null, addMeta(request, payload)))
  const logOutage = outageLogger()
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error, request)
    if (appError.code === platformErrors.databaseUnavailable.code) logOutage(request, error)
    else if (appError.statusCode >= 500) request.log.error({ err: error }, 'request failed')
    return sendError(appError, request, reply)
  })
  app.setNotFoundHandler((request, reply) => sendError(platformErrors.notFound([request.method, request.url.split('?')[0]]), request, reply))
}

/**
 * Logs a request answered 503 database_unavailable at warn, once per cause (the database's error code and
 * message, numbers left out) per OUTAGE_LOG_PERIOD_MS, with how many more it answered since the last
 * line: during a failover or a restart every request fails the same way, and one error stack per request
 * buried the cause. Each request's own `request` line still records its 503.
 */
function outageLogger(): (request: FastifyRequest, error: unknown) => void {
  const logged = new Map<string, { at: number; since: number }>()
  return (request, error) => {
    const { code, message } = error as { code?: unknown; message?: unknown }
    const cause = `${typeof code === 'string' ? `${code}: ` : ''}${String(message)}`.replace(/\d+/g, 'N')
    const now = Date.now()
    const last = logged.get(cause)
    if (last && now - last.at < OUTAGE_LOG_PERIOD_MS) {
      last.since += 1
      return
    }
    for (const [other, { at }] of logged) if (now - at >= OUTAGE_LOG_PERIOD_MS) logged.delete(other)
    logged.set(cause, { at: now, since: 0 })
    request.log.warn({ cause, answered_since: last?.since ?? 0 }, 'database unavailable: requests answer 503 database_unavailable')
  }
}

export const conventionsPlugin = fp(conventions, { name: 'barstock-conventions' })
