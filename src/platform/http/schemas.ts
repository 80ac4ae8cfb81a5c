import { Type, type TSchema } from 'typebox'

/** Shared schemas of the API grammar: envelope, errors, pagination. */

export const Meta = Type.Object(
  {
    request_id: Type.String({ description: 'Also sent as the X-Request-Id header' }),
    timestamp: Type.String({ format: 'date-time' }),
  },
  { $id: 'Meta', description: 'Present on every /v1 response' },
)

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'A stable machine-readable code; see docs/errors.md' }),
      message: Type.String(),
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
    meta: Type.Optional(Meta),
  },
  { $id: 'ErrorResponse' },
)

export const Pagination = Type.Object(
  {
    total: Type.Integer(),
    page: Type.Integer(),
    per_page: Type.Integer(),
    total_pages: Type.Integer(),
    next_page_url: Type.Union([Type.String(), Type.Null()]),
    prev_page_url: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'Pagination' },
)

/** `{data, meta}` around a payload. */
export function envelope<T extends TSchema>(data: T) {
  return Type.Object({ data, meta: Type.Optional(Meta) })
}

/** `{data: [...], pagination, meta}` around a list. */
export function listEnvelope<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), pagination: Pagination, meta: Type.Optional(Meta) })
}

/**
 * The ranges of numeric input, so that no value a client sends can overflow a column (400
 * invalid_parameter naming the limit, never a database error): quantities and money up to a billion
 * (stock columns keep numeric(16, 4), money numeric(14, 2) or (16, 4)), conversion factors up to a million.
 */
export const NUMBER_LIMITS = { quantity: 1_000_000_000, money: 1_000_000_000, conversionFactor: 1_000_000, page: 1_000_000 } as const

/**
 * The lower end of a quantity that the domain checks itself (invalid_quantity, as the API specifies, not a
 * schema error): documented in the schema as the `x-minimum` extension.
 */
export function domainMinimum(minimum: number, exclusive = false): Record<string, number> {
  return exclusive ? { 'x-exclusive-minimum': minimum } : { 'x-minimum': minimum }
}

export const PageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: NUMBER_LIMITS.page, default: 1, description: 'Page number, 1 to 1,000,000' })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Page size, 1 to 100' })),
}

export const Deleted = (idField: string) =>
  Type.Object({ [idField]: Type.String(), deleted: Type.Literal(true) })

export const Timestamp = Type.String({ format: 'date-time' })

/** A text a person types (a name, a SKU): not empty and not only spaces. */
export const NOT_BLANK = '\\S'

/** A value or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
