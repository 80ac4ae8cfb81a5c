import { format } from 'node:util'

export type ErrorDetails = Record<string, unknown>

/**
 * An error the API answers with: its code and HTTP status come from the catalogue entry that made it.
 * Services throw these; the HTTP error handler writes them in the spec's shape.
 */
export class AppError extends Error {
  constructor(
    readonly code: string,
    readonly statusCode: number,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message)
    this.name = 'AppError'
  }
}

export interface ErrorDefinition {
  readonly code: string
  readonly statusCode: number
  readonly template: string
  /** Builds the error; `args` fill the template's %s placeholders in order. */
  (args?: unknown[] | string, details?: ErrorDetails): AppError
}

const catalogue = new Map<string, ErrorDefinition>()

/** Defines an error code once, with its HTTP status; a code is never defined twice. */
export function defineError(code: string, statusCode: number, template: string): ErrorDefinition {
  if (catalogue.has(code)) throw new Error(`error code ${code} is defined twice`)
  const build = (args?: unknown[] | string, details?: ErrorDetails) => {
    const values = args === undefined ? [] : Array.isArray(args) ? args : [args]
    return new AppError(code, statusCode, format(template, ...values), details)
  }
  const definition = Object.assign(build, { code, statusCode, template }) as ErrorDefinition
  catalogue.set(code, definition)
  return definition
}

/** Every error code defined so far (domains add theirs when their module loads). */
export function errorCatalogue(): ReadonlyMap<string, ErrorDefinition> {
  return catalogue
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError
}

/** The platform's own codes: the general ones of the spec and the HTTP-level ones of DECISIONS.md. */
export const platformErrors = {
  invalidParameter: defineError('invalid_parameter', 400, '%s'),
  invalidApiKey: defineError('invalid_api_key', 401, 'The API key is missing, invalid, revoked or expired%s'),
  insufficientPermissions: defineError('insufficient_permissions', 403, 'This API key lacks the permission %s'),
  notFound: defineError('not_found', 404, 'No route %s %s'),
  rateLimitExceeded: defineError('rate_limit_exceeded', 429, 'Rate limit of %s requests a minute exceeded; retry in %s seconds'),
  idempotencyKeyReused: defineError('idempotency_key_reused', 400, 'This X-Idempotency-Key was already used with a different request'),
  idempotencyInProgress: defineError('idempotency_in_progress', 409, 'A request with this X-Idempotency-Key is still being processed'),
  payloadTooLarge: defineError('payload_too_large', 413, 'The request body exceeds %s bytes'),
  headersTooLarge: defineError('headers_too_large', 431, 'The request headers exceed %s bytes together; an API key is at most 200 characters'),
  internalError: defineError('internal_error', 500, 'Internal server error'),
  databaseUnavailable: defineError('database_unavailable', 503, 'The database is unavailable or did not answer in time; retry shortly'),
  importsBusy: defineError('imports_busy', 503, 'Too many sales imports are waiting for their turn on this instance; retry after Retry-After seconds'),
}

/** invalid_parameter with the details the spec requires. */
export function invalidParameter(parameter: string, value: unknown, message: string): AppError {
  return platformErrors.invalidParameter(message, { parameter, value: echoValue(value) })
}

/** The longest echo of a refused value in `details.value`. */
const ECHO_MAX_CHARS = 200

/**
 * A refused value as `details.value` shows it: numbers, booleans and short strings as they are; long
 * strings cut; objects and arrays as a short JSON rendering, never walked deeper than a few levels (a
 * value nested thousands of levels deep once broke the error reply itself).
 */
export function echoValue(value: unknown): unknown {
  if (value === undefined || value === null) return null
  if (typeof value === 'number' || typeof value === 'boolean') return value
  if (typeof value === 'string') return value.length <= ECHO_MAX_CHARS ? value : `${value.slice(0, ECHO_MAX_CHARS)}… (${value.length} characters)`
  const rendered = JSON.stringify(shallowCopy(value, 3))
  if (rendered.length <= ECHO_MAX_CHARS && !rendered.includes('"…"')) return value
  return rendered.length <= ECHO_MAX_CHARS ? rendered : `${rendered.slice(0, ECHO_MAX_CHARS)}…`
}

function shallowCopy(value: unknown, levels: number): unknown {
  if (value === null || typeof value !== 'object') return value
  if (levels === 0) return '…'
  if (Array.isArray(value)) return value.slice(0, 20).map((item) => shallowCopy(item, levels - 1))
  return Object.fromEntries(
    Object.entries(value)
      .slice(0, 20)
      .map(([key, item]) => [key, shallowCopy(item, levels - 1)]),
  )
}
