/**
 * The request shapes the Square simulator accepts: for each body and query it serves, the fields
 * Square's OpenAPI document (shared/spec/vendor-specs/square.json) defines and the simulator honours.
 * A field outside these is refused with Square's documented 400 codes (UNKNOWN_BODY_PARAMETER,
 * UNKNOWN_QUERY_PARAMETER), a value of the wrong JSON type with EXPECTED_<TYPE> or INVALID_ENUM_VALUE,
 * naming the field, so an adapter that sends a field Square does not know fails its tests. The tests
 * check every field named here against square.json.
 */

/** A field's expected JSON value: a scalar type, an enum's values, a list of strings, or a nested object. */
export type FieldShape = 'string' | 'integer' | 'boolean' | 'string[]' | { enum: readonly string[] } | { enumList: readonly string[] } | ObjectShape
export interface ObjectShape {
  [field: string]: FieldShape
}

const TIME_RANGE: ObjectShape = { start_at: 'string', end_at: 'string' }
const ORDER_STATES = ['OPEN', 'COMPLETED', 'CANCELED', 'DRAFT'] as const

/** SearchOrdersRequest, as far as the simulator filters and sorts. */
export const SEARCH_ORDERS_BODY: ObjectShape = {
  location_ids: 'string[]',
  cursor: 'string',
  limit: 'integer',
  query: {
    filter: {
      state_filter: { states: { enumList: ORDER_STATES } },
      date_time_filter: { closed_at: TIME_RANGE },
    },
    sort: { sort_field: { enum: ['CREATED_AT', 'UPDATED_AT', 'CLOSED_AT'] }, sort_order: { enum: ['DESC', 'ASC'] } },
  },
}

/** SearchTeamMembersRequest: the simulator pages every team member. */
export const SEARCH_TEAM_MEMBERS_BODY: ObjectShape = { limit: 'integer', cursor: 'string' }

/** ObtainTokenRequest with grant_type refresh_token (the only grant the simulator serves). */
export const OBTAIN_TOKEN_BODY: ObjectShape = {
  client_id: 'string',
  client_secret: 'string',
  grant_type: { enum: ['refresh_token'] },
  refresh_token: 'string',
}

/** ListCatalog's query parameters. */
export const LIST_CATALOG_QUERY = ['cursor', 'types'] as const
/** ListPayments' query parameters the simulator honours. */
export const LIST_PAYMENTS_QUERY = ['begin_time', 'end_time', 'sort_order', 'cursor', 'location_id', 'limit'] as const

/** Why a request does not fit its shape: Square's error code and the field's dotted path. */
export interface ShapeViolation {
  code: string
  field: string
  detail: string
}

const TYPE_CODES = { string: 'EXPECTED_STRING', integer: 'EXPECTED_INTEGER', boolean: 'EXPECTED_BOOLEAN' } as const

/** The first way `value` (a parsed JSON body) breaks `shape`, or undefined when it fits. */
export function bodyViolation(value: unknown, shape: ObjectShape, path = ''): ShapeViolation | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { code: 'EXPECTED_OBJECT', field: path, detail: `Expected an object at ${path || 'the body'}` }
  }
  for (const [name, fieldValue] of Object.entries(value)) {
    const field = path ? `${path}.${name}` : name
    const fieldShape = shape[name]
    if (fieldShape === undefined) return { code: 'UNKNOWN_BODY_PARAMETER', field, detail: `Unknown body parameter \`${field}\`` }
    // Square's document marks most fields nullable: null means unset.
    if (fieldValue === null) continue
    const violation = fieldViolation(fieldValue, fieldShape, field)
    if (violation) return violation
  }
  return undefined
}

function fieldViolation(value: unknown, shape: FieldShape, field: string): ShapeViolation | undefined {
  if (typeof shape === 'string') {
    if (shape === 'string[]') return listViolation(value, field, (item) => typeof item === 'string', 'EXPECTED_STRING')
    const fits = shape === 'integer' ? Number.isInteger(value) : typeof value === shape
    return fits ? undefined : { code: TYPE_CODES[shape], field, detail: `Expected ${shape} for \`${field}\`` }
  }
  if ('enum' in shape && Array.isArray(shape.enum)) return enumViolation(value, shape.enum, field)
  if ('enumList' in shape && Array.isArray(shape.enumList)) {
    const values = shape.enumList
    return listViolation(value, field, (item) => enumViolation(item, values, field) === undefined, 'INVALID_ENUM_VALUE')
  }
  return bodyViolation(value, shape as ObjectShape, field)
}

function enumViolation(value: unknown, values: readonly string[], field: string): ShapeViolation | undefined {
  if (typeof value === 'string' && values.includes(value)) return undefined
  return { code: 'INVALID_ENUM_VALUE', field, detail: `\`${String(value)}\` is not a valid enum value for \`${field}\`` }
}

function listViolation(value: unknown, field: string, fits: (item: unknown) => boolean, itemCode: string): ShapeViolation | undefined {
  if (!Array.isArray(value)) return { code: 'EXPECTED_ARRAY', field, detail: `Expected an array for \`${field}\`` }
  return value.every(fits) ? undefined : { code: itemCode, field, detail: `Unexpected item in \`${field}\`` }
}

/** The first query parameter not in `allowed`, as Square's UNKNOWN_QUERY_PARAMETER. */
export function queryViolation(query: URLSearchParams, allowed: readonly string[]): ShapeViolation | undefined {
  for (const name of query.keys()) {
    if (!allowed.includes(name)) return { code: 'UNKNOWN_QUERY_PARAMETER', field: name, detail: `Unknown query parameter \`${name}\`` }
  }
  return undefined
}
