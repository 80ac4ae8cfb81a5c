import fc from 'fast-check'

/**
 * Requests that are wrong in one way, generated from the service's own OpenAPI document: for each
 * operation a plausible request (its parameters and body filled from their schemas and the ids a test
 * seeded) with one defect: a field of the wrong type, a NUL character, a value nested too deep, a number
 * past any column, a broken percent-encoding, an over-long text, an unknown field, a body that is not
 * JSON or not sent as JSON.
 */

export interface Schema {
  type?: string
  enum?: unknown[]
  examples?: unknown[]
  format?: string
  pattern?: string
  minimum?: number
  maximum?: number
  minLength?: number
  minItems?: number
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  anyOf?: Schema[]
}

interface Parameter {
  name: string
  in: 'path' | 'query' | 'header'
  schema: Schema
  example?: unknown
}

export interface Operation {
  method: string
  /** As the document writes it, e.g. `/v1/orders/{id}`. */
  path: string
  pathParameters: string[]
  query: Parameter[]
  body?: Schema
}

/** Every operation under /v1 in the document. */
export function operationsOf(document: {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> } }>>
}): Operation[] {
  return Object.entries(document.paths)
    .filter(([path]) => path.startsWith('/v1/'))
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        pathParameters: (operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
        query: (operation.parameters ?? []).filter((parameter) => parameter.in === 'query'),
        body: operation.requestBody?.content['application/json']?.schema,
      })),
    )
}

/** A JSON text put as it is into a body: numbers JSON.stringify cannot write, nesting it would recurse on. */
class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a value that may hold RawJson pieces. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`)
      .join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** Ids a test seeded, by field name (`location`, `inventory_item_id`…), used where a schema names one. */
export type KnownValues = Record<string, string>

const PLAUSIBLE_DATE_TIME = '2026-06-01T12:00:00.000Z'

/**
 * A value the schema accepts, as far as a schema can say (the ids of `known` where a field names one):
 * its required fields only, or `full` with every field.
 */
export function plausible(schema: Schema, known: KnownValues, full: boolean, name = ''): unknown {
  if (schema.anyOf) return plausible(schema.anyOf[0]!, known, full, name)
  if (schema.examples?.length) return schema.examples[0]
  if (schema.enum?.length) return schema.enum[0]
  switch (schema.type) {
    case 'object': {
      const names = full ? Object.keys(schema.properties ?? {}) : (schema.required ?? [])
      const fields = names.map((field) => [field, plausible(schema.properties?.[field] ?? {}, known, full, field)])
      return Object.fromEntries(fields)
    }
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 0) }, () => plausible(schema.items ?? {}, known, full, name))
    case 'integer':
    case 'number':
      return Math.min(Math.max(schema.minimum ?? 1, 1), schema.maximum ?? 1)
    case 'boolean':
      return true
    default:
      if (known[name]) return known[name]
      if (schema.format === 'date-time') return PLAUSIBLE_DATE_TIME
      if (schema.format === 'email') return 'orders@wholesaler.example'
      return 'fuzz'.padEnd(schema.minLength ?? 1, 'z')
  }
}

/** Dates that do not exist, lie at the ends of the calendar (and past them once a time zone applies), or are written another way. */
const ODD_DATES = [
  '2026-02-30',
  '2026-13-01T00:00:00Z',
  '0000-01-01',
  '0000-01-01T00:00:00Z',
  '0001-01-01',
  '0001-01-01T00:00:00+01:00',
  '9999-12-31',
  '9999-12-31T23:59:59Z',
  '9999-12-31T23:59:59-12:00',
  '+275760-09-13T00:00:00Z',
  '2016-12-31T23:59:60Z',
  '2026-06-01T25:00:00Z',
  '2026-06-01T12:00:00+14:00',
  '2026-06-01 12:00:00Z',
  '20260601',
  '1970-01-01',
]
const oddDate = fc.constantFrom(...ODD_DATES)

/** Numbers past any column, below zero, or with more decimals than any column keeps. */
const oddNumber = fc
  .constantFrom('1e300', '99999999999999999999', '-1e20', '1e-300', '-0', '0.0000001', '123456789.123456789', '1e20', '-1', '0')
  .map((number) => new RawJson(number))

/** JSON a field should never accept: another type, NUL, too deep, too big, too long. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, '', [], {}, 'not a number', [1, 'a'], { nested: { a: 1 } }),
  oddNumber,
  fc.string({ maxLength: 20 }).map((text) => `${text}\u0000${text}`),
  fc.constantFrom(201, 1001, 5000, 70_000).map((length) => 'x'.repeat(length)),
  fc.integer({ min: 33, max: 200 }).map((depth) => new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`)),
  fc.constant(new RawJson(`${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`)),
  fc.constantFrom('\ud800', 'e\u0301', '😀'.repeat(300), '\u202e', '%00', '../../etc/passwd', "'; DROP TABLE x; --"),
  oddDate,
  fc.jsonValue({ maxDepth: 3 }),
)

/** Every place in a value a defect can go: the root, each field, each array element. */
function pathsIn(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [at]
  const entries = Array.isArray(value) ? value.map((item, index) => [index, item] as const) : Object.entries(value)
  return [at, ...entries.flatMap(([key, item]) => pathsIn(item, [...at, key]))]
}

function valueAt(value: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>((at, key) => (at as Record<string | number, unknown>)[key], value)
}

function replacedAt(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement
  const [head, ...rest] = path
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>
  copy[head!] = replacedAt(copy[head!], rest, replacement)
  return copy
}

function withoutAt(value: unknown, path: (string | number)[]): unknown {
  if (path.length === 0 || value === null || typeof value !== 'object') return value
  const [head, ...rest] = path
  if (rest.length > 0) return replacedAt(value, [head!], withoutAt((value as Record<string | number, unknown>)[head!], rest))
  if (Array.isArray(value)) return value.filter((_, index) => index !== head)
  const { [head!]: _removed, ...others } = value as Record<string | number, unknown>
  return others
}

/** Field names no schema has, including the ones that pollute prototypes. */
const unknownField = fc.constantFrom('unknown_field', '__proto__', 'constructor', 'prototype', '', 'Name', 'id\u0000')

/** Bodies that are not JSON objects, or not JSON at all. */
const rawJunk = fc.oneof(
  fc.constantFrom('', '{', '[', 'null', '"text"', '123', '{"a":1,}', '\ufeff{}', 'nul', '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}'),
  fc.string({ maxLength: 200 }),
)

const contentTypes = fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', 'multipart/form-data; boundary=x', 'application/xml')

/** A body as sent: its text and its content type (none when undefined). */
interface SentBody {
  text: string
  contentType: string | undefined
}

/** A body with its defect. */
export function defectiveBody(schema: Schema, known: KnownValues): fc.Arbitrary<SentBody> {
  return fc.constantFrom(plausible(schema, known, false), plausible(schema, known, true)).chain((valid) => defectiveVariants(valid))
}

/** The ways `valid` is made defective. */
function defectiveVariants(valid: unknown): fc.Arbitrary<SentBody> {
  const paths = pathsIn(valid)
  const json = (text: string): SentBody => ({ text, contentType: 'application/json' })
  const replacing = (targets: (string | number)[][], values: fc.Arbitrary<unknown>) =>
    fc.tuple(fc.constantFrom(...targets), values).map(([path, value]) => json(toJsonText(replacedAt(valid, path, value))))
  // Numbers and date-times get their own odd values more often than chance would give them.
  const numberPaths = paths.filter((path) => typeof valueAt(valid, path) === 'number')
  const datePaths = paths.filter((path) => valueAt(valid, path) === PLAUSIBLE_DATE_TIME)
  const objectPaths = paths.filter((path) => {
    const value = valueAt(valid, path)
    return value !== null && typeof value === 'object' && !Array.isArray(value)
  })
  return fc.oneof(
    replacing(paths, wrongValue),
    ...(numberPaths.length > 0 ? [replacing(numberPaths, oddNumber)] : []),
    ...(datePaths.length > 0 ? [replacing(datePaths, oddDate)] : []),
    ...(objectPaths.length > 0
      ? [
          fc.tuple(fc.constantFrom(...objectPaths), unknownField, wrongValue).map(([path, field, value]) => {
            // Written into the text itself: as a key of a JavaScript object, `__proto__` would set its prototype.
            const object = toJsonText(valueAt(valid, path))
            const extra = `${JSON.stringify(field)}:${toJsonText(value)}`
            return json(toJsonText(replacedAt(valid, path, new RawJson(object === '{}' ? `{${extra}}` : `${object.slice(0, -1)},${extra}}`))))
          }),
        ]
      : []),
    ...(paths.length > 1 ? [fc.constantFrom(...paths.slice(1)).map((path) => json(toJsonText(withoutAt(valid, path))))] : []),
    rawJunk.map(json),
    fc.tuple(contentTypes, fc.constant(toJsonText(valid))).map(([contentType, text]) => ({ text, contentType })),
    fc.constant({ text: toJsonText(valid), contentType: undefined }),
  )
}

/** A path segment as sent: broken percent-encodings, NUL, too long, odd characters. */
export const defectiveSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('%zz', '%C3%28', '%', '%00', '..', '%2e%2e', '%2F', '%20', 'a'.repeat(150), 'a'.repeat(600), '-1', '1e300', '99999999999999999999', 'ＡＢＣ', 'null'),
  fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }).map(encodeURIComponent),
)

/** A query value as sent (already encoded, or deliberately not). */
const defectiveQueryValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('1e300', '99999999999999999999', '-1e20', '1e20', 'NaN', 'Infinity', '-1', '0', '', '1.5', 'true', '[]', '%zz', '%C3%28', '%', '%00', 'x'.repeat(5000)),
  fc.string({ maxLength: 30, unit: 'grapheme' }).map(encodeURIComponent),
)

/** A parameter that takes a date, by its schema, its example or its name. */
function takesDate(parameter: Parameter): boolean {
  return parameter.schema.format === 'date-time' || /^\d{4}-\d\d-\d\d/.test(String(parameter.example ?? '')) || parameter.name.includes('date')
}

/** A query string with at least one defect: a bad value for a known parameter, a repeated one, or an unknown one. */
export function defectiveQuery(operation: Operation): fc.Arbitrary<string> {
  const unknown = ['unknown_param', 'page[]', '__proto__'].map((name) => ({ name, in: 'query' as const, schema: {} }))
  const pair = fc
    .constantFrom(...operation.query, ...unknown)
    .chain((parameter) =>
      (takesDate(parameter) ? fc.oneof(defectiveQueryValue, { weight: 2, arbitrary: oddDate.map(encodeURIComponent) }) : defectiveQueryValue).map(
        (value) => `${encodeURIComponent(parameter.name)}=${value}`,
      ),
    )
  return fc.array(pair, { minLength: 1, maxLength: 4 }).map((pairs) => pairs.join('&'))
}

export interface FuzzRequest {
  method: string
  url: string
  headers: Record<string, string>
  payload?: string
  /** What the request does wrong, to read in a failure. */
  defect: string
}

/**
 * One request per draw for `operation`: path parameters either a seeded id (from `ids`, by name) or a
 * defective segment, then a defective body or query. An operation with no body and no query has its
 * defect in the path; a DELETE always does, so that the seeds survive the run.
 */
export function defectiveRequest(operation: Operation, ids: KnownValues, known: KnownValues): fc.Arbitrary<FuzzRequest> {
  const pathMustBeWrong = operation.method === 'DELETE' || (!operation.body && operation.query.length === 0) || (operation.method === 'POST' && !operation.body)
  const segments = operation.pathParameters.map((name) =>
    pathMustBeWrong || !ids[name] ? defectiveSegment : fc.oneof({ weight: 3, arbitrary: fc.constant(encodeURIComponent(ids[name])) }, { weight: 1, arbitrary: defectiveSegment }),
  )
  const body: fc.Arbitrary<SentBody | undefined> = operation.body ? defectiveBody(operation.body, known) : fc.constant(undefined)
  // A body carries the defect where there is one; otherwise the query does (or the path, above).
  const query = operation.query.length === 0 ? fc.constant(undefined) : operation.body ? fc.option(defectiveQuery(operation), { nil: undefined }) : defectiveQuery(operation)
  const idempotencyKey = fc.option(fc.constantFrom('fuzz-key', '', 'k'.repeat(300)), { nil: undefined, freq: 4 })
  return fc.tuple(fc.tuple(...segments), body, query, idempotencyKey).map(([values, sent, queryString, key]) => {
    let path = operation.path
    operation.pathParameters.forEach((name, index) => (path = path.replace(`{${name}}`, values[index]!)))
    const headers: Record<string, string> = {}
    if (sent?.contentType) headers['content-type'] = sent.contentType
    if (key !== undefined) headers['x-idempotency-key'] = key
    const url = queryString ? `${path}?${queryString}` : path
    const shown = sent ? ` body ${sent.contentType ?? '(no content type)'} ${sent.text.length > 300 ? `${sent.text.slice(0, 300)}… (${sent.text.length})` : sent.text}` : ''
    return { method: operation.method, url, headers, payload: sent?.text, defect: `${operation.method} ${url.slice(0, 300)}${shown}` }
  })
}
