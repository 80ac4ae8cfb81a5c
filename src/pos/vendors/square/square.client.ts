import { PosAdapterError, type VendorTransport } from '../adapter.js'
import { rejectStatus, VendorHttp, type VendorRequest, transportOf } from '../vendor-http.js'

/**
 * Square's Connect v2 API, the subset barstock reads: RetrieveLocation (to verify the token and the
 * location), ListCatalog, SearchOrders, ListPayments (which name the team member who took each order's
 * payment) and SearchTeamMembers, plus OAuth's ObtainToken to renew an expiring access token. Auth is a
 * bearer access token; every call names the API version in `Square-Version`; lists page with an opaque
 * `cursor`. The wire types below are Square's, shared with
 * the simulator so both sides speak the same shapes.
 */

export const SQUARE_VENDOR = 'Square'

/** The API version barstock was written against (the version in Square's published OpenAPI document). */
export const SQUARE_API_VERSION = '2025-08-20'

/** Money is an integer in the currency's smallest unit (cents for USD, yen for JPY, fils for KWD). */
export interface SquareMoney {
  amount: number
  currency: string
}

export interface SquareLocation {
  id: string
  name: string
  status: 'ACTIVE' | 'INACTIVE'
  currency: string
  timezone: string
}

export interface SquareCatalogObject {
  type: string
  id: string
  updated_at?: string
  version?: number
  is_deleted?: boolean
  /** Present at every location but `absent_at_location_ids` when true (the default), else only at `present_at_location_ids`. */
  present_at_all_locations?: boolean
  present_at_location_ids?: string[]
  absent_at_location_ids?: string[]
  item_data?: {
    name: string
    categories?: { id: string; ordinal?: number }[]
    reporting_category?: { id: string }
    variations?: SquareCatalogObject[]
    modifier_list_info?: { modifier_list_id: string; enabled?: boolean }[]
    is_archived?: boolean
  }
  item_variation_data?: {
    item_id: string
    name?: string
    sku?: string
    pricing_type?: 'FIXED_PRICING' | 'VARIABLE_PRICING'
    price_money?: SquareMoney
  }
  category_data?: { name: string }
  /** A MODIFIER_LIST, with its MODIFIER objects nested. */
  modifier_list_data?: { name: string; modifiers?: SquareCatalogObject[] }
  /** A MODIFIER (CatalogModifier): what order line item modifiers reference. */
  modifier_data?: { name: string; price_money?: SquareMoney; modifier_list_id?: string }
}

/** A modifier applied to a line item; `quantity` is per unit of the line (extra cheese: 2 per burger). */
export interface SquareOrderLineItemModifier {
  uid: string
  catalog_object_id?: string
  name?: string
  quantity?: string
  base_price_money?: SquareMoney
  /** base_price_money times the line item's quantity. */
  total_price_money?: SquareMoney
}

export interface SquareOrderLineItem {
  uid: string
  name?: string
  /** A decimal string ("2", "0.5" for items sold by measure). */
  quantity: string
  catalog_object_id?: string
  variation_name?: string
  modifiers?: SquareOrderLineItemModifier[]
  base_price_money?: SquareMoney
  variation_total_price_money?: SquareMoney
  gross_sales_money?: SquareMoney
  total_money?: SquareMoney
}

export interface SquareReturnLineItemModifier {
  uid: string
  /** The modifier's uid on the line item of the original sale. */
  source_modifier_uid?: string
  catalog_object_id?: string
  name?: string
  quantity?: string
  base_price_money?: SquareMoney
  total_price_money?: SquareMoney
}

export interface SquareReturnLineItem {
  uid: string
  source_line_item_uid?: string
  name?: string
  quantity: string
  catalog_object_id?: string
  return_modifiers?: SquareReturnLineItemModifier[]
  base_price_money?: SquareMoney
  total_money?: SquareMoney
}

export interface SquareOrderReturn {
  uid: string
  /** The sale order whose lines this return gives back; unset for unlinked returns. */
  source_order_id?: string
  return_line_items?: SquareReturnLineItem[]
}

export interface SquareTender {
  id: string
  location_id: string
  transaction_id: string
  created_at: string
  amount_money: SquareMoney
  tip_money?: SquareMoney
  type: string
  payment_id?: string
}

export interface SquareRefund {
  id: string
  location_id: string
  transaction_id?: string
  tender_id?: string
  created_at?: string
  reason: string
  amount_money: SquareMoney
  status: 'PENDING' | 'APPROVED' | 'REJECTED' | 'FAILED'
}

export type SquareOrderState = 'OPEN' | 'COMPLETED' | 'CANCELED' | 'DRAFT'

export interface SquareOrder {
  id: string
  location_id: string
  state: SquareOrderState
  created_at: string
  updated_at: string
  closed_at?: string
  line_items?: SquareOrderLineItem[]
  returns?: SquareOrderReturn[]
  tenders?: SquareTender[]
  refunds?: SquareRefund[]
  total_money?: SquareMoney
  total_tip_money?: SquareMoney
}

export interface SquarePayment {
  id: string
  created_at: string
  updated_at: string
  amount_money: SquareMoney
  tip_money?: SquareMoney
  total_money: SquareMoney
  status: string
  source_type: string
  location_id: string
  order_id?: string
  team_member_id?: string
  employee_id?: string
}

export interface SquareTeamMember {
  id: string
  is_owner?: boolean
  status: 'ACTIVE' | 'INACTIVE'
  given_name?: string
  family_name?: string
  wage_setting?: { job_assignments?: { job_title?: string; pay_type?: string }[] }
}

/** ObtainToken with grant_type refresh_token: client_secret for the code flow, none for the PKCE flow. */
export interface SquareRefreshTokenRequest {
  client_id: string
  client_secret?: string
  grant_type: 'refresh_token'
  refresh_token: string
}

export interface SquareObtainTokenResponse {
  access_token: string
  token_type: string
  /** ISO 8601; OAuth access tokens last 30 days. */
  expires_at: string
  merchant_id?: string
  /** The code flow answers the same refresh token; the PKCE flow a new single-use one. */
  refresh_token?: string
  short_lived?: boolean
  refresh_token_expires_at?: string
  errors?: SquareError[]
}

/** Square's error body: every 4xx and 5xx carries one or more of these. */
export interface SquareError {
  category: string
  code: string
  detail?: string
  field?: string
}

export interface SquareOrdersQuery {
  locationId: string
  closedFrom: Date
  closedTo: Date
}

export interface SquarePaymentsQuery {
  locationId: string
  createdFrom: Date
  createdTo: Date
}

/** Where the client gets its bearer token, and how it asks for a new one after a 401. */
export interface SquareTokenSource {
  accessToken(): Promise<string>
  /** Renews the token Square just refused; false when it cannot (a personal token, no refresh token). */
  renewAfterRejection(rejected: string): Promise<boolean>
}

/** The vendor transport (timeouts, abort signal, connection policy) rides along: see VendorTransport. */
export interface SquareClientOptions extends VendorTransport {
  baseUrl: string
  tokens: SquareTokenSource
}

/** SearchOrders allows up to 1000 orders a page; fewer round trips for a sync. */
const ORDERS_PAGE_LIMIT = 1000
/** ListPayments and SearchTeamMembers allow at most 100 a page. */
const PAYMENTS_PAGE_LIMIT = 100
const TEAM_MEMBERS_PAGE_LIMIT = 100

interface Page<T> {
  items: T[]
  cursor: string | undefined
}

export class SquareClient {
  private readonly http: VendorHttp

  constructor(private readonly options: SquareClientOptions) {
    this.http = new VendorHttp({ vendor: SQUARE_VENDOR, baseUrl: options.baseUrl, ...transportOf(options) })
  }

  /** The location the credentials name; a location this token cannot see is invalid_credentials. */
  async retrieveLocation(locationId: string): Promise<SquareLocation> {
    const response = await this.send<{ location?: SquareLocation; errors?: SquareError[] }>({ path: `/v2/locations/${encodeURIComponent(locationId)}` })
    if (response.status === 404) {
      throw new PosAdapterError('invalid_credentials', `${SQUARE_VENDOR} has no location ${locationId} for this access token`)
    }
    const body = this.accept(response.status, response.body)
    if (!body.location || typeof body.location.id !== 'string') throw unreadable('a location')
    return body.location
  }

  /** Every catalog object of the given types, following the cursor (Square's page size is 100). */
  listCatalog(types: readonly string[]): AsyncIterable<SquareCatalogObject[]> {
    return this.paginate(async (cursor) => {
      const body = await this.call<{ objects?: SquareCatalogObject[]; cursor?: string }>({
        path: '/v2/catalog/list',
        query: { types: types.join(','), cursor },
      })
      return { items: arrayOf(body.objects, 'catalog objects'), cursor: body.cursor }
    })
  }

  /** Completed orders closed in [closedFrom, closedTo), oldest first, a page at a time. */
  searchOrders(query: SquareOrdersQuery): AsyncIterable<SquareOrder[]> {
    return this.paginate(async (cursor) => {
      const body = await this.call<{ orders?: SquareOrder[]; cursor?: string }>({
        method: 'POST',
        read: true,
        path: '/v2/orders/search',
        json: {
          location_ids: [query.locationId],
          query: {
            filter: {
              date_time_filter: { closed_at: { start_at: query.closedFrom.toISOString(), end_at: query.closedTo.toISOString() } },
              state_filter: { states: ['COMPLETED'] },
            },
            // Square requires sorting by the field the date filter names.
            sort: { sort_field: 'CLOSED_AT', sort_order: 'ASC' },
          },
          limit: ORDERS_PAGE_LIMIT,
          cursor,
        },
      })
      return { items: arrayOf(body.orders, 'orders'), cursor: body.cursor }
    })
  }

  /** Payments created in [createdFrom, createdTo) at the location, oldest first. */
  listPayments(query: SquarePaymentsQuery): AsyncIterable<SquarePayment[]> {
    return this.paginate(async (cursor) => {
      const body = await this.call<{ payments?: SquarePayment[]; cursor?: string }>({
        path: '/v2/payments',
        query: {
          location_id: query.locationId,
          begin_time: query.createdFrom.toISOString(),
          end_time: query.createdTo.toISOString(),
          sort_order: 'ASC',
          limit: PAYMENTS_PAGE_LIMIT,
          cursor,
        },
      })
      return { items: arrayOf(body.payments, 'payments'), cursor: body.cursor }
    })
  }

  /** Every team member (active and inactive: past sales still name people who left). */
  searchTeamMembers(): AsyncIterable<SquareTeamMember[]> {
    return this.paginate(async (cursor) => {
      const body = await this.call<{ team_members?: SquareTeamMember[]; cursor?: string }>({
        method: 'POST',
        read: true,
        path: '/v2/team-members/search',
        json: { limit: TEAM_MEMBERS_PAGE_LIMIT, cursor },
      })
      return { items: arrayOf(body.team_members, 'team members'), cursor: body.cursor }
    })
  }

  /** Follows the cursor; each next page is asked for before the one in hand is handed over, so it travels while the caller works. */
  private async *paginate<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncIterable<T[]> {
    let next: Promise<Page<T>> | undefined = fetchPage(undefined)
    while (next) {
      const page: Page<T> = await next
      next = page.cursor ? fetchPage(page.cursor) : undefined
      // A failure of the page ahead surfaces when it is awaited, not as an unhandled rejection meanwhile.
      next?.catch(() => undefined)
      yield page.items
    }
  }

  /**
   * ObtainToken with a refresh token. Square refusing it (revoked, spent, or past its 15 days' grace)
   * means the bar must connect again: invalid_credentials.
   */
  async obtainToken(body: SquareRefreshTokenRequest): Promise<SquareObtainTokenResponse> {
    const response = await this.http.send<Partial<SquareObtainTokenResponse>>({
      method: 'POST',
      path: '/oauth2/token',
      headers: { 'square-version': SQUARE_API_VERSION },
      json: body,
    })
    if (response.status >= 400 && response.status < 500) rejectStatus(SQUARE_VENDOR, 401, `refresh refused: ${errorText(response.body)}`)
    const answer = this.accept(response.status, response.body)
    if (typeof answer.access_token !== 'string' || !answer.access_token) throw unreadable('an access_token in the ObtainToken answer')
    if (Number.isNaN(Date.parse(answer.expires_at ?? ''))) throw unreadable(`a readable expires_at in the ObtainToken answer (got ${JSON.stringify(answer.expires_at)})`)
    if (answer.refresh_token !== undefined && typeof answer.refresh_token !== 'string') throw unreadable('a string refresh_token in the ObtainToken answer')
    return answer as SquareObtainTokenResponse
  }

  private async call<T>(req: VendorRequest): Promise<T> {
    const response = await this.send<T & { errors?: SquareError[] }>(req)
    return this.accept(response.status, response.body)
  }

  /** Sends with the current token; a 401 the token source can cure (an expired OAuth token) is sent once more. */
  private async send<T>(req: VendorRequest) {
    const tokens = this.options.tokens
    const token = await tokens.accessToken()
    const response = await this.http.send<T>(this.withToken(req, token))
    if (response.status !== 401 || !(await tokens.renewAfterRejection(token))) return response
    return this.http.send<T>(this.withToken(req, await tokens.accessToken()))
  }

  private withToken(req: VendorRequest, token: string): VendorRequest {
    return { ...req, headers: { authorization: `Bearer ${token}`, 'square-version': SQUARE_API_VERSION, ...req.headers } }
  }

  /** A 2xx body, or the error Square's `errors[]` describes (401/403: the token was refused). */
  private accept<T extends { errors?: SquareError[] }>(status: number, body: T | undefined): T {
    if (status >= 200 && status < 300) {
      if (typeof body !== 'object' || body === null) throw unreadable('a JSON object')
      return body
    }
    rejectStatus(SQUARE_VENDOR, status, errorText(body))
  }
}

/** Square's first error as `CODE: detail`. */
function errorText(body: { errors?: SquareError[] } | undefined): string {
  const first = Array.isArray(body?.errors) ? body.errors[0] : undefined
  return first ? `${first.code}: ${first.detail ?? first.category}` : 'no error body'
}

function arrayOf<T>(value: T[] | undefined, what: string): T[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) throw unreadable(`a list of ${what}`)
  return value
}

function unreadable(expected: string): PosAdapterError {
  return new PosAdapterError('invalid_response', `${SQUARE_VENDOR} answered without ${expected}`)
}
