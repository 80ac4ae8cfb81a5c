import type { Socket } from 'node:net'
import type { FastifyError, FastifyRequest } from 'fastify'
import { newId } from '../ids.js'
import { type AppError, invalidParameter, platformErrors } from '../errors.js'

/**
 * What no route should ever see: NUL characters (PostgreSQL's text cannot hold them), unpaired UTF-16
 * surrogates (a JSON `\ud800` escape: UTF-8 cannot hold one, so it would be stored as U+FFFD or break
 * a URL built from it) and JSON nested deeper than any field of the API needs. Checked once, before
 * validation, for the path parameters, the query and the body, naming the field as a client would
 * (`items[2].name`).
 */

/** The deepest nesting the API's bodies use is 4 (`items[].…`); this leaves room without risking recursion. */
export const MAX_JSON_DEPTH = 32

/** In `u` mode a surrogate pair is one code point, so this matches only an unpaired surrogate. */
const UNPAIRED_SURROGATE = /\p{Surrogate}/u

/** Whether text holds a character that stored text cannot: a NUL or an unpaired surrogate. */
function isUnholdable(text: string): boolean {
  return text.includes('\u0000') || UNPAIRED_SURROGATE.test(text)
}

/** Why `text` (one that isUnholdable) is refused, naming its field. */
function unholdableText(field: string, text: string): AppError {
  if (text.includes('\u0000')) return invalidParameter(field, text.replaceAll('\u0000', '\\u0000'), `${field} contains a NUL character (\\u0000), which text cannot hold`)
  return invalidParameter(field, null, `${field} contains an unpaired UTF-16 surrogate (a lone \\ud800–\\udfff), which UTF-8 text cannot hold`)
}

function fieldName(path: (string | number)[], root: string): string {
  const joined = path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('')
  return root === 'body' ? joined.replace(/^\./, '') || 'body' : `${root}${joined}`.replace(/^(query|params)\./, '')
}

/**
 * Whether `value` holds unholdable text (in a string or a field name) or nests deeper than
 * MAX_JSON_DEPTH: the quick test every request passes, allocating nothing; `checkInput` then names the field. Recursion is
 * bounded by the depth limit.
 */
function isUnsafe(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return isUnholdable(value)
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return false
  if (depth >= MAX_JSON_DEPTH) return true
  if (Array.isArray(value)) {
    for (const item of value) if (isUnsafe(item, depth + 1)) return true
    return false
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    if (isUnholdable(key) || isUnsafe((value as Record<string, unknown>)[key], depth + 1)) return true
  }
  return false
}

/** Throws invalid_parameter at the first unholdable text or at too deep a level of a parsed value. */
export function checkInput(value: unknown, root: 'body' | 'query' | 'params'): void {
  if (isUnsafe(value, 0)) describeUnsafe(value, root)
}

/** Walks a parsed value without recursion and throws invalid_parameter naming its first unholdable text or too deep a level. */
function describeUnsafe(value: unknown, root: 'body' | 'query' | 'params'): void {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }]
  while (stack.length > 0) {
    const { value: current, path } = stack.pop() as { value: unknown; path: (string | number)[] }
    if (typeof current === 'string') {
      if (isUnholdable(current)) throw unholdableText(fieldName(path, root), current)
      continue
    }
    // A raw body (vendor pushes) is bytes, checked by its route.
    if (current === null || typeof current !== 'object' || Buffer.isBuffer(current)) continue
    if (path.length >= MAX_JSON_DEPTH) throw invalidParameter(fieldName(path, root), null, `${fieldName(path, root)} is nested deeper than ${MAX_JSON_DEPTH} levels`)
    const entries = Array.isArray(current) ? current.map((item, index) => [index, item] as const) : Object.entries(current)
    for (const [key, item] of entries) {
      if (typeof key === 'string' && isUnholdable(key))
        throw invalidParameter(fieldName(path, root), null, `a field name in ${fieldName(path, root)} contains a NUL character or an unpaired surrogate`)
      stack.push({ value: item, path: [...path, key] })
    }
  }
}

/** For the preValidation hook: path parameters, query and body, in that order. */
export function rejectUnsafeInput(request: FastifyRequest): void {
  checkInput(request.params, 'params')
  checkInput(request.query, 'query')
  checkInput(request.body, 'body')
}

/** Fastify's own refusals before routing (a malformed percent-encoding, an over-long path segment), in the API's shape. */
export function frameworkErrorOf(error: FastifyError): ReturnType<typeof invalidParameter> {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return invalidParameter('path', null, 'A path segment is longer than 500 characters; no id is that long')
  return invalidParameter('path', null, 'The path is not valid percent-encoded UTF-8 (a lone % or an invalid %XX sequence)')
}

/** Node's limit on all request headers together (its default). */
export const MAX_HEADER_BYTES = 16 * 1024

/**
 * Requests Node refuses before Fastify sees them (headers over MAX_HEADER_BYTES, a malformed request
 * line), answered in the API's error shape instead of Node's bare status line, then closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return
  const appError: AppError =
    error.code === 'HPE_HEADER_OVERFLOW' ? platformErrors.headersTooLarge(String(MAX_HEADER_BYTES)) : invalidParameter('request', null, 'The request is not valid HTTP/1.1')
  const body = JSON.stringify({
    error: { code: appError.code, message: appError.message, ...(appError.details && { details: appError.details }) },
    meta: { request_id: newId('req'), timestamp: new Date().toISOString() },
  })
  socket.end(
    `HTTP/1.1 ${appError.statusCode} ${appError.statusCode === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}

/**
 * The API reference's page, the one path served with its trailing slash: the page loads its script by a
 * relative path, so /docs redirects to it (the renderer's rule).
 */
export const API_REFERENCE_PAGE = '/docs/'

/** The request's URL with the trailing slashes of its path removed (the root stays `/`). */
export function withoutTrailingSlash(request: { url?: string }): string {
  const url = request.url ?? '/'
  const queryAt = url.indexOf('?')
  const path = queryAt === -1 ? url : url.slice(0, queryAt)
  if (path.length <= 1 || !path.endsWith('/') || path === API_REFERENCE_PAGE) return url
  return (path.replace(/\/+$/, '') || '/') + (queryAt === -1 ? '' : url.slice(queryAt))
}
