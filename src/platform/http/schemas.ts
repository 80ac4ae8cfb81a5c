import { Type, type TSchema } from 'typebox'

/** Shared schemas of the API grammar: envelope, errors, pagination. */

export const Meta = Type.Object(
  {
    request_id: Type.String({ description: 'The request’s id, also sent as the X-Request-Id header', examples: ['req_01jd3m4n5p6q7r8s9t0v1w2x3y'] }),
    timestamp: Type.String({ format: 'date-time', description: 'When the answer was made (UTC)', examples: ['2026-11-22T21:30:00.000Z'] }),
  },
  { $id: 'Meta', description: 'The request’s id and time, on every /v1 answer' },
)

export const ErrorBody = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String({ description: 'A stable machine-readable code (never renamed once published): branch on it', examples: ['item_not_found'] }),
        message: Type.String({ description: 'What went wrong, for a person', examples: ['Inventory item item_01jd2x3v4w5y6z7a8b9c0d1e2f does not exist'] }),
        details: Type.Optional(
          Type.Record(Type.String(), Type.Unknown(), {
            description: 'More about the error where it helps: `parameter` and `value` for invalid_parameter, `required` and `provided` for insufficient_permissions',
          }),
        ),
      },
      { description: 'The error' },
    ),
    meta: Type.Optional(Meta),
  },
  { $id: 'ErrorResponse', description: 'The shape of every error answer' },
)

export const Pagination = Type.Object(
  {
    total: Type.Integer({ description: 'Items in all pages', minimum: 0, examples: [137] }),
    page: Type.Integer({ description: 'This page’s number, from 1', minimum: 1, examples: [1] }),
    per_page: Type.Integer({ description: 'Items per page, 1 to 100', minimum: 1, maximum: 100, examples: [50] }),
    total_pages: Type.Integer({ description: 'Pages in all (0 for an empty list)', minimum: 0, examples: [3] }),
    next_page_url: Type.Union([Type.String(), Type.Null()], {
      description: 'The path and query of the next page; null on the last',
      examples: ['/v1/inventory/items?category=spirits&page=2'],
    }),
    prev_page_url: Type.Union([Type.String(), Type.Null()], { description: 'The path and query of the previous page; null on the first', examples: [null] }),
  },
  { $id: 'Pagination', description: 'Where this page sits in the list' },
)

/** `{data, meta}` around a payload. */
export function envelope<T extends TSchema>(data: T) {
  return Type.Object({ data: described(data, 'The answer'), meta: Type.Optional(Meta) })
}

/** The schema with a description of its own where it has none (a field's description says what it is for). */
function described<T extends TSchema>(schema: T, description: string): T {
  return (schema as { description?: string }).description ? schema : { ...schema, description }
}

/** `{data: [...], pagination, meta}` around a list. */
export function listEnvelope<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item, { description: 'This page’s items' }),
    pagination: Pagination,
    meta: Type.Optional(Meta),
  })
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
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: NUMBER_LIMITS.page, default: 1, description: 'Page number, 1 to 1,000,000; past the last page, data is empty', examples: [1] }),
  ),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Items per page, 1 to 100', examples: [50] })),
}

export const Deleted = (idField: string) =>
  Type.Object({
    [idField]: Type.String({ description: 'The deleted resource’s id', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
    deleted: Type.Literal(true, { description: 'Always true' }),
  })

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 time, UTC', examples: ['2026-11-22T21:30:00.000Z'] })

/** A text a person types (a name, a SKU): not empty and not only spaces. */
export const NOT_BLANK = '\\S'

/** A value or null; the value's description and examples describe the field. */
export const Nullable = <T extends TSchema>(schema: T, description?: string) => {
  const { description: own, examples } = schema as { description?: string; examples?: unknown[] }
  const text = description ?? own
  return Type.Union([schema, Type.Null()], { ...(text && { description: text }), ...(examples && { examples }) })
}

/** A list's date_from or date_to (parsed by date-filter.ts parseDateRange). */
export const DateQuery = (example: string) =>
  Type.String({ description: 'ISO 8601 date or date-time in the years 0001 to 9999; a bare date_to includes that whole day (UTC)', examples: [example] })
