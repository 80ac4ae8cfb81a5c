import { PosAdapterError } from '../../adapter.js'
import { rejectStatus, VendorHttp } from '../vendor-http.js'
import { LightspeedStaffPage, readWire, type LightspeedStaffMember } from './lightspeed.wire.js'

/**
 * Lightspeed Restaurant (K-Series), the subset barstock reads: the OAuth2 token endpoint (refresh grant,
 * single-use refresh tokens), items of a business location (offset/amount pages), the financial API's
 * sales closed in a range (pages chained by `_links.nextPage.href`), and the location's POS users. The
 * wire types below are the vendor's, shared with the simulator so both sides speak the same shapes.
 */

export const LIGHTSPEED_VENDOR = 'Lightspeed'

/** The largest `amount` of the items API and `pageSize` of the financial API. */
export const LIGHTSPEED_MAX_PAGE_SIZE = 1000

/** The answer of `POST /oauth/token` (OAuth2). */
export interface LightspeedToken {
  access_token: string
  token_type: string
  /** Seconds. */
  expires_in: number
  refresh_token: string
  scope?: string
}

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

/** Money and quantities travel as decimal strings ("7.50", "2"); ids of items and staff are numbers. */
export interface LightspeedItem {
  id: number
  name: string
  sku: string
  prices: { amount: string; name: string }[]
  costPrice?: string
  accountingGroup?: { id: number; name: string }
  active: boolean
}

export interface LightspeedSalesLine {
  id: string
  sku: string
  name: string
  quantity: string
  totalNetAmountWithTax: string
  staffId?: number
  /** With `include=staff`. */
  staffName?: string
  voidReason?: string | null
}

/** With `include=payments`. */
export interface LightspeedPayment {
  code: string
  description: string
  netAmountWithTax: string
  tip?: string
}

export interface LightspeedSale {
  receiptId: string
  type: 'SALE' | 'VOID' | 'REFUND'
  cancelled: boolean
  /** ISO 8601; the spelling is the one pos-vendors.md gives (see the mapper for the other). */
  timeofCloseAndPaid: string
  salesLines: LightspeedSalesLine[]
  payments?: LightspeedPayment[]
}

export interface LightspeedFinancials {
  sales: LightspeedSale[]
  nextPageToken?: string | null
  _links?: { nextPage?: { href: string } }
}

/** Where the client gets its bearer token, and how it asks for a new one after a 401. */
export interface LightspeedTokenSource {
  accessToken(): Promise<string>
  /** Forgets the token Lightspeed just refused, so the next accessToken() fetches another. */
  discard(rejected: string): void
}

export interface LightspeedClientOptions {
  baseUrl: string
  clientId: string
  clientSecret: string
  businessLocationId: string
  timeoutMs?: number
  maxRetryWaitMs?: number
}

const FINANCE_PATH = '/f/finance/'

export class LightspeedClient {
  private readonly http: VendorHttp

  constructor(private readonly options: LightspeedClientOptions) {
    this.http = new VendorHttp({ vendor: LIGHTSPEED_VENDOR, ...options })
  }

  /** Spends a single-use refresh token for an access token and its successor; refused is invalid_credentials. */
  async refresh(refreshToken: string): Promise<LightspeedToken> {
    const basic = Buffer.from(`${this.options.clientId}:${this.options.clientSecret}`).toString('base64')
    const response = await this.http.send<LightspeedToken | LightspeedOAuthError>({
      method: 'POST',
      path: '/oauth/token',
      headers: { authorization: `Basic ${basic}` },
      form: { grant_type: 'refresh_token', refresh_token: refreshToken },
    })
    if (response.status !== 200) {
      const error = response.body as Partial<LightspeedOAuthError> | undefined
      const message = [error?.error, error?.error_description].filter(Boolean).join(': ') || 'no error message'
      // invalid_grant (a spent or revoked refresh token) comes as 400: the location has to reconnect.
      rejectStatus(LIGHTSPEED_VENDOR, response.status === 400 ? 401 : response.status, message)
    }
    const token = response.body as Partial<LightspeedToken>
    if (typeof token.access_token !== 'string' || typeof token.refresh_token !== 'string' || typeof token.expires_in !== 'number') {
      throw new PosAdapterError('invalid_response', `${LIGHTSPEED_VENDOR} token answer lacks access_token, refresh_token or expires_in`)
    }
    return token as LightspeedToken
  }

  /** One page of the location's items. */
  async listItems(tokens: LightspeedTokenSource, offset: number, amount: number): Promise<LightspeedItem[]> {
    const query = { businessLocationId: this.options.businessLocationId, offset, amount }
    return this.expectList<LightspeedItem>(await this.get(tokens, '/items/v1/items', query), 'items')
  }

  /** Every POS user of the location, page by page (pages are numbered from 1). */
  async listStaff(tokens: LightspeedTokenSource, pageSize: number): Promise<LightspeedStaffMember[]> {
    const path = `/staff/v1/businessLocations/${encodeURIComponent(this.options.businessLocationId)}/userTypes/POS`
    const staff: LightspeedStaffMember[] = []
    for (let page = 1; ; page++) {
      const answer = readWire(LightspeedStaffPage, await this.get(tokens, path, { page, size: pageSize }), 'POS users')
      staff.push(...answer.data.staff)
      if (page >= answer.page.totalPages) return staff
    }
  }

  /** Sales closed in [from, to), page by page, following `_links.nextPage.href`. */
  async *listSales(tokens: LightspeedTokenSource, from: Date, to: Date, pageSize: number): AsyncGenerator<LightspeedSale[]> {
    const location = encodeURIComponent(this.options.businessLocationId)
    let path = `${FINANCE_PATH}${location}/financials/${from.toISOString()}/${to.toISOString()}`
    let query: Record<string, string | number> | undefined = { include: 'staff,payments', pageSize }
    for (;;) {
      const page = (await this.get(tokens, path, query)) as Partial<LightspeedFinancials> | undefined
      if (!Array.isArray(page?.sales)) throw new PosAdapterError('invalid_response', `${LIGHTSPEED_VENDOR} financials answered no sales list`)
      yield page.sales
      const next = page._links?.nextPage?.href
      if (!next) return
      path = this.nextPagePath(next)
      query = undefined
    }
  }

  /**
   * The next page's path and query, replayed on our own base URL: the link names Lightspeed's host, and
   * a response must not be able to send our bearer token anywhere else.
   */
  private nextPagePath(href: string): string {
    let url: URL
    try {
      url = new URL(href, 'http://link.invalid')
    } catch {
      throw new PosAdapterError('invalid_response', `${LIGHTSPEED_VENDOR} sent a next page link that is not a URL`)
    }
    if (!url.pathname.startsWith(FINANCE_PATH)) throw new PosAdapterError('invalid_response', `${LIGHTSPEED_VENDOR} sent a next page link outside the financial API`)
    return url.pathname + url.search
  }

  private expectList<T>(body: unknown, what: string): T[] {
    if (!Array.isArray(body)) throw new PosAdapterError('invalid_response', `${LIGHTSPEED_VENDOR} ${what} did not answer a list`)
    return body as T[]
  }

  private async get(tokens: LightspeedTokenSource, path: string, query?: Record<string, string | number>): Promise<unknown> {
    let token = await tokens.accessToken()
    let response = await this.http.send({ path, query, headers: { authorization: `Bearer ${token}` } })
    if (response.status === 401) {
      // A token can be revoked before it expires: fetch another once.
      tokens.discard(token)
      token = await tokens.accessToken()
      response = await this.http.send({ path, query, headers: { authorization: `Bearer ${token}` } })
    }
    if (response.status !== 200) {
      const message = (response.body as Partial<LightspeedError> | undefined)?.message
      rejectStatus(LIGHTSPEED_VENDOR, response.status, typeof message === 'string' ? message : 'no error message')
    }
    return response.body
  }
}
