import { PosAdapterError, type VendorTransport } from '../adapter.js'
import { rejectStatus, VendorHttp } from '../vendor-http.js'

/**
 * Clover's REST API v3, the subset barstock reads: inventory items (with categories), modifier groups
 * (with their modifiers), orders by modification and creation time (with line items and their
 * modifications, employee, payments and refunds expanded), employees (with roles), and the OAuth v2
 * refresh of an expiring token. Every data route is scoped to one merchant and authenticated by a
 * bearer token; lists page by `offset` and `limit`. The wire types below are the vendor's, shared with
 * the simulator so both sides speak the same shapes.
 */

export const CLOVER_VENDOR = 'Clover'

/** Clover's largest page (its default is 100). */
export const CLOVER_MAX_PAGE_SIZE = 1000

/** Every Clover list, and every expanded collection inside a resource, is wrapped like this. */
export interface CloverList<T> {
  elements: T[]
  href?: string
}

/** A reference to another resource; expanded, it carries the resource's other fields too. */
export interface CloverRef {
  id: string
}

/** Money is integer cents of the merchant's currency; times are epoch milliseconds. */
export interface CloverCategory {
  id: string
  name: string
  sortOrder?: number
}

export interface CloverItem {
  id: string
  name: string
  sku?: string
  code?: string
  price: number
  priceType?: 'FIXED' | 'VARIABLE' | 'PER_UNIT'
  hidden?: boolean
  available?: boolean
  categories?: CloverList<CloverCategory>
}

/** A modifier of the catalog; `price` in cents. Listed under its group: `GET …/modifier_groups?expand=modifiers`. */
export interface CloverModifier {
  id: string
  name: string
  price?: number
  available?: boolean
  modifierGroup?: CloverRef
}

export interface CloverModifierGroup {
  id: string
  name: string
  showByDefault?: boolean
  /** The group's modifier ids, comma-separated. */
  modifierIds?: string
  modifiers?: CloverList<CloverModifier>
}

/** A modifier applied to one line item (`expand=lineItems.modifications`); `amount` in cents. */
export interface CloverModification {
  id: string
  name: string
  amount?: number
  modifier?: CloverRef
  lineItemRef?: CloverRef
}

/**
 * One unit sold (Clover writes one line per unit); `unitQty` is thousandths for items sold by measure.
 * `createdTime` is when the line was rung, which may be after the order's first payment (a reopened order).
 */
export interface CloverLineItem {
  id: string
  item?: CloverRef
  name: string
  price: number
  unitQty?: number
  createdTime?: number
  refunded?: boolean
  exchanged?: boolean
  modifications?: CloverList<CloverModification>
}

/** Clover's documented payment results. */
export type CloverPaymentResult = 'SUCCESS' | 'FAIL' | 'INITIATED' | 'VOIDED' | 'VOIDING' | 'VOID_FAILED' | 'AUTH' | 'AUTH_COMPLETED' | 'DISCOUNT' | 'OFFLINE_RETRYING' | 'PENDING'

export interface CloverPayment {
  id: string
  amount: number
  tipAmount?: number
  result?: CloverPaymentResult
  /** When the payment was recorded on the server: for a pre-authorised tab, when the card was held. */
  createdTime: number
  clientCreatedTime?: number
  /** Its last change: for a pre-authorised tab, its capture when the tab was closed. */
  modifiedTime?: number
}

/** A refund; `lineItems` names the line items it took back (none: money only). */
export interface CloverRefund {
  id: string
  amount: number
  createdTime: number
  clientCreatedTime?: number
  payment?: CloverRef
  lineItems?: CloverList<CloverRef>
}

export interface CloverRole {
  id: string
  name: string
  systemRole?: string
}

export interface CloverEmployee {
  id: string
  name: string
  nickname?: string
  role?: 'OWNER' | 'ADMIN' | 'MANAGER' | 'EMPLOYEE'
  roles?: CloverList<CloverRole>
}

export interface CloverOrder {
  id: string
  currency?: string
  state?: string
  paymentState?: string
  total?: number
  /** When the order was opened (a tab: when it was started), on the server. */
  createdTime: number
  clientCreatedTime?: number
  /** Its last change: a payment, a line added, a refund. */
  modifiedTime?: number
  employee?: CloverRef & Partial<CloverEmployee>
  lineItems?: CloverList<CloverLineItem>
  payments?: CloverList<CloverPayment>
  refunds?: CloverList<CloverRefund>
}

/** A webhook body: what changed, per merchant; `objectId` is `<type>:<id>` (`O:` orders, `I:` items). */
export interface CloverPush {
  appId: string
  merchants: Record<string, { objectId: string; type: 'CREATE' | 'UPDATE' | 'DELETE'; ts: number }[]>
}

/** What Clover posts, without `X-Clover-Auth`, when the app's webhook URL is set up; the code is typed into the dashboard. */
export interface CloverWebhookVerification {
  verificationCode: string
}

/** Clover's error body on 4xx. */
export interface CloverError {
  message: string
}

/** The JSON body of `POST /oauth/v2/refresh`. */
export interface CloverRefreshRequest {
  client_id: string
  refresh_token: string
}

/**
 * Names of the fields of the refresh answer. ⚠ Unconfirmed: Clover documents `access_token`,
 * `access_token_expiration` (epoch seconds) and `refresh_token`; a deployment can override them.
 */
export interface CloverRefreshFields {
  accessToken: string
  accessTokenExpiration: string
  refreshToken: string
}

export const DEFAULT_CLOVER_REFRESH_FIELDS: CloverRefreshFields = {
  accessToken: 'access_token',
  accessTokenExpiration: 'access_token_expiration',
  refreshToken: 'refresh_token',
}

export interface CloverTokens {
  accessToken: string
  refreshToken: string
  /** When the access token expires, if Clover said. */
  expiresAt: Date | undefined
}

/** Where the client gets its bearer token, and how it asks for a new one after a 401. */
export interface CloverTokenSource {
  accessToken(): Promise<string>
  /** Renews the token Clover just refused; false when it cannot (no refresh token). */
  renewAfterRejection(rejected: string): Promise<boolean>
}

/** The vendor transport (timeouts, abort signal, connection policy) rides along: see VendorTransport. */
export interface CloverClientOptions extends VendorTransport {
  baseUrl: string
  merchantId: string
  refreshFields: CloverRefreshFields
}

export type CloverQuery = Record<string, string | number | string[] | undefined>

export class CloverClient {
  private readonly http: VendorHttp

  constructor(private readonly options: CloverClientOptions) {
    this.http = new VendorHttp({ vendor: CLOVER_VENDOR, ...options })
  }

  /** Trades a single-use refresh token for new tokens; a refused token is invalid_credentials. */
  async refresh(appId: string, refreshToken: string): Promise<CloverTokens> {
    const body: CloverRefreshRequest = { client_id: appId, refresh_token: refreshToken }
    const response = await this.http.send<Record<string, unknown> | CloverError>({ method: 'POST', path: '/oauth/v2/refresh', json: body })
    if (response.status !== 200) {
      // A refresh token Clover will not take (used, revoked, expired) means the merchant must reconnect.
      const status = response.status === 400 ? 401 : response.status
      rejectStatus(CLOVER_VENDOR, status, errorMessage(response.body))
    }
    return this.readTokens(response.body)
  }

  /** One page of a merchant resource (`items`, `orders`, `employees`). */
  async listPage<T>(tokens: CloverTokenSource, resource: string, query: CloverQuery): Promise<T[]> {
    const body = await this.get(tokens, resource, query)
    const elements = (body as Partial<CloverList<T>> | undefined)?.elements
    if (!Array.isArray(elements)) throw new PosAdapterError('invalid_response', `${CLOVER_VENDOR} ${resource} answered no elements list`)
    return elements
  }

  /**
   * Every page of a merchant resource, `pageSize` at a time, until a short page. Each next page is asked
   * for before the one in hand is handed over, so it travels while the caller works on this one.
   */
  async *listAll<T>(tokens: CloverTokenSource, resource: string, query: CloverQuery, pageSize: number): AsyncGenerator<T[]> {
    const pageAt = (offset: number) => this.listPage<T>(tokens, resource, { ...query, limit: pageSize, offset })
    let next: Promise<T[]> | undefined = pageAt(0)
    for (let offset = 0; next; offset += pageSize) {
      const page: T[] = await next
      next = page.length < pageSize ? undefined : pageAt(offset + pageSize)
      // A failure of the page ahead surfaces when it is awaited, not as an unhandled rejection meanwhile.
      next?.catch(() => undefined)
      yield page
    }
  }

  private async get(tokens: CloverTokenSource, resource: string, query: CloverQuery): Promise<unknown> {
    const request = { path: `/v3/merchants/${encodeURIComponent(this.options.merchantId)}/${resource}`, query }
    let token = await tokens.accessToken()
    let response = await this.http.send({ ...request, headers: { authorization: `Bearer ${token}` } })
    if (response.status === 401 && (await tokens.renewAfterRejection(token))) {
      token = await tokens.accessToken()
      response = await this.http.send({ ...request, headers: { authorization: `Bearer ${token}` } })
    }
    if (response.status !== 200) rejectStatus(CLOVER_VENDOR, response.status, errorMessage(response.body))
    return response.body
  }

  private readTokens(body: unknown): CloverTokens {
    const fields = this.options.refreshFields
    const record = (body ?? {}) as Record<string, unknown>
    const accessToken = record[fields.accessToken]
    const refreshToken = record[fields.refreshToken]
    const expiration = record[fields.accessTokenExpiration]
    if (typeof accessToken !== 'string' || typeof refreshToken !== 'string') {
      throw new PosAdapterError('invalid_response', `${CLOVER_VENDOR} refresh answered without ${fields.accessToken} and ${fields.refreshToken}`)
    }
    const expiresAt = typeof expiration === 'number' ? new Date(expiration * 1000) : undefined
    return { accessToken, refreshToken, expiresAt }
  }
}

function errorMessage(body: unknown): string {
  const message = (body as Partial<CloverError> | undefined)?.message
  return typeof message === 'string' ? message : 'no error message'
}
