import { PosAdapterError, type VendorTransport } from '../adapter.js'
import { rejectStatus, VendorHttp } from '../vendor-http.js'
import {
  LIGHTSPEED_VENDOR,
  LightspeedFinancials,
  LightspeedItems,
  LightspeedStaffPage,
  LightspeedToken,
  readWire,
  type LightspeedItem,
  type LightspeedOAuthError,
  type LightspeedError,
  type LightspeedSale,
  type LightspeedStaffMember,
} from './lightspeed.wire.js'

/**
 * Lightspeed Restaurant (K-Series), the subset barstock reads: the OAuth2 token endpoint (refresh grant,
 * single-use refresh tokens), items of a business location (offset/amount pages), the financial API's
 * receipts closed in a range (pages chained by `_links.nextPage.href`), and the location's POS users
 * (numbered pages). Every answer is checked against its shape in lightspeed.wire.ts.
 */

/** The largest `amount` of the items API and `pageSize` of the financial API. */
export const LIGHTSPEED_MAX_PAGE_SIZE = 1000

/** Where the client gets its bearer token, and how it asks for a new one after a 401. */
export interface LightspeedTokenSource {
  accessToken(): Promise<string>
  /** Forgets the token Lightspeed just refused, so the next accessToken() fetches another. */
  discard(rejected: string): void
}

/** The vendor transport (timeouts, abort signal, connection policy) rides along: see VendorTransport. */
export interface LightspeedClientOptions extends VendorTransport {
  baseUrl: string
  clientId: string
  clientSecret: string
  businessLocationId: string
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
    return readWire(LightspeedToken, response.body, 'token answer')
  }

  /** One page of the location's items. */
  async listItems(tokens: LightspeedTokenSource, offset: number, amount: number): Promise<LightspeedItem[]> {
    const query = { businessLocationId: this.options.businessLocationId, offset, amount }
    return readWire(LightspeedItems, await this.get(tokens, '/items/v1/items', query), 'items')
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

  /** Receipts closed in [from, to), page by page, following `_links.nextPage.href`. */
  async *listSales(tokens: LightspeedTokenSource, from: Date, to: Date, pageSize: number): AsyncGenerator<LightspeedSale[]> {
    const location = encodeURIComponent(this.options.businessLocationId)
    let path = `${FINANCE_PATH}${location}/financials/${from.toISOString()}/${to.toISOString()}`
    let query: Record<string, string | number> | undefined = { include: 'staff,payments', pageSize }
    for (;;) {
      const page = readWire(LightspeedFinancials, await this.get(tokens, path, query), 'financials')
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
