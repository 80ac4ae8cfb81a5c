import { type Static, type TSchema, Type } from 'typebox'
import { Compile } from 'typebox/compile'
import { PosAdapterError } from '../adapter.js'

/**
 * Lightspeed K-Series' wire shapes, the subset barstock reads, as TypeBox schemas: the client checks
 * every answer against them (a shape Lightspeed never documented is invalid_response, naming the
 * field), and the simulator builds its answers from the same types. Field names and types follow
 * Lightspeed's published OpenAPI document (api-docs.lsk.lightspeed.app; see docs/pos-vendors.md).
 * Objects accept fields not listed here: Lightspeed sends many more than barstock reads.
 */

export const LIGHTSPEED_VENDOR = 'Lightspeed'

/** Money and quantities of the financial API are decimal strings ("7.50", "-2"). */
const DecimalString = Type.String({ pattern: '^-?\\d+(\\.\\d+)?$' })
/** An optional text field; a null is read as absent. */
const OptionalText = Type.Optional(Type.Union([Type.String(), Type.Null()]))
const Link = Type.Object({ href: Type.String() })

/** The answer of `POST /oauth/token` (OAuth2). */
export const LightspeedToken = Type.Object({
  access_token: Type.String(),
  token_type: Type.String(),
  /** Seconds. */
  expires_in: Type.Number(),
  refresh_token: Type.String(),
  scope: Type.Optional(Type.String()),
})
export type LightspeedToken = Static<typeof LightspeedToken>

/** The token endpoint's errors are OAuth2's. */
export interface LightspeedOAuthError {
  error: string
  error_description?: string
}

/** The data APIs' error body. */
export interface LightspeedError {
  status: number
  timestamp: string
  message: string
}

/** An item of `GET /items/v1/items`: prices and cost are JSON numbers there; the SKU is optional. */
export const LightspeedItem = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  sku: OptionalText,
  prices: Type.Optional(Type.Array(Type.Object({ amount: Type.Number(), name: OptionalText }))),
  costPrice: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  accountingGroup: Type.Optional(Type.Union([Type.Object({ id: Type.Integer(), name: Type.String() }), Type.Null()])),
  active: Type.Optional(Type.Boolean()),
})
export type LightspeedItem = Static<typeof LightspeedItem>
export const LightspeedItems = Type.Array(LightspeedItem)

/** A POS user of `GET /staff/v1/businessLocations/{id}/userTypes/POS`. */
export const LightspeedStaffMember = Type.Object({
  staffId: Type.Integer(),
  username: OptionalText,
  firstName: OptionalText,
  lastName: OptionalText,
  active: Type.Optional(Type.Boolean()),
})
export type LightspeedStaffMember = Static<typeof LightspeedStaffMember>

/** One page of POS users: `{data:{staff}, links, page}`, pages numbered from 1. */
export const LightspeedStaffPage = Type.Object({
  data: Type.Object({ staff: Type.Array(LightspeedStaffMember) }),
  links: Type.Optional(Type.Object({ first: Type.Optional(Link), self: Type.Optional(Link), next: Type.Optional(Link), last: Type.Optional(Link) })),
  page: Type.Object({ page: Type.Integer(), size: Type.Integer(), totalElements: Type.Integer(), totalPages: Type.Integer() }),
})
export type LightspeedStaffPage = Static<typeof LightspeedStaffPage>

/** Every sale `type` the financial API documents. */
export const LIGHTSPEED_SALE_TYPES = ['SALE', 'VOID', 'RECALL', 'REFUND', 'SPLIT', 'UPDATE', 'TRANSFER', 'FLOAT', 'TRANSITORY', 'CROSS_BL', 'CANCEL'] as const
export type LightspeedSaleType = (typeof LIGHTSPEED_SALE_TYPES)[number]

export const LightspeedSalesLine = Type.Object({
  id: Type.String(),
  /** The line this one belongs to: a modifier's parent. */
  parentLineId: OptionalText,
  sku: OptionalText,
  name: Type.String(),
  quantity: DecimalString,
  totalNetAmountWithTax: DecimalString,
  staffId: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  staffName: OptionalText,
  voidReason: OptionalText,
})
export type LightspeedSalesLine = Static<typeof LightspeedSalesLine>

export const LightspeedPayment = Type.Object({
  code: OptionalText,
  description: OptionalText,
  netAmountWithTax: Type.Optional(DecimalString),
  tip: Type.Optional(DecimalString),
})
export type LightspeedPayment = Static<typeof LightspeedPayment>

/** A receipt (a "sale") of the financial API. */
export const LightspeedSale = Type.Object({
  accountFiscId: Type.String(),
  receiptId: Type.String(),
  /** The accounts this one derives from (a refund's sale, a re-closed account's earlier states). */
  source: Type.Optional(Type.Object({ initialAccountId: OptionalText, previousAccountId: OptionalText })),
  type: Type.Enum([...LIGHTSPEED_SALE_TYPES]),
  cancelled: Type.Optional(Type.Boolean()),
  timeofCloseAndPaid: Type.String({ format: 'date-time' }),
  salesLines: Type.Array(LightspeedSalesLine),
  payments: Type.Optional(Type.Array(LightspeedPayment)),
})
export type LightspeedSale = Static<typeof LightspeedSale>

/** A page of `GET /f/finance/{id}/financials/{from}/{to}`; the next one is `_links.nextPage.href`. */
export const LightspeedFinancials = Type.Object({
  businessLocationId: Type.Optional(Type.Number()),
  sales: Type.Array(LightspeedSale),
  dataComplete: Type.Optional(Type.Boolean()),
  _links: Type.Optional(Type.Object({ self: Type.Optional(Link), nextPage: Type.Optional(Link) })),
})
export type LightspeedFinancials = Static<typeof LightspeedFinancials>

const compiled = new Map<TSchema, ReturnType<typeof Compile>>()

/** The value at a JSON pointer of `body` ("/sales/3/type"), for error messages. */
function valueAt(body: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), body)
}

/** `body` as `schema` says, or invalid_response naming the first field that is not what Lightspeed documents. */
export function readWire<T extends TSchema>(schema: T, body: unknown, what: string): Static<T> {
  let validator = compiled.get(schema)
  if (!validator) compiled.set(schema, (validator = Compile(schema)))
  if (validator.Check(body)) return body as Static<T>
  const [problem] = validator.Errors(body)
  const field = problem?.instancePath || '(the body)'
  throw new PosAdapterError(
    'invalid_response',
    `${LIGHTSPEED_VENDOR} ${what}: ${field} ${problem?.message ?? 'is not the documented shape'} (got ${JSON.stringify(valueAt(body, field))})`,
  )
}
