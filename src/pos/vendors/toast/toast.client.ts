import { PosAdapterError, type VendorTransport } from '../adapter.js'
import { rejectStatus, VendorHttp, type VendorRequest, transportOf } from '../vendor-http.js'

/**
 * Toast's platform APIs, the subset barstock reads: authentication (machine-client login), menus v2,
 * orders v2 `ordersBulk`, and labor v1 employees and jobs. Every data call carries the bearer token and
 * `Toast-Restaurant-External-ID`. Only `ordersBulk` is paginated (`page` + `pageSize` ≤ 100). The wire
 * types below are Toast's, shared with the simulator so both sides speak the same shapes.
 */

export const TOAST_VENDOR = 'Toast'

export const TOAST_LOGIN_PATH = '/authentication/v1/authentication/login'

export interface ToastLoginRequest {
  clientId: string
  clientSecret: string
  userAccessType: 'TOAST_MACHINE_CLIENT'
}

export interface ToastLoginResponse {
  token: { tokenType: 'Bearer'; scope?: string; expiresIn: number; accessToken: string; idToken?: string; refreshToken?: string }
  status: 'SUCCESS'
}

export interface ToastReference {
  guid: string
  entityType?: string
}

/** Money and quantities are JSON numbers in the major unit (12.5 is $12.50). */
export interface ToastMenuItem extends ToastReference {
  name: string
  price: number | null
  pricingStrategy?: string
  sku: string | null
  plu: string | null
  salesCategory: (ToastReference & { name: string }) | null
  unitOfMeasure: string
  /** The `referenceId`s of the item's modifier groups in `ToastRestaurantMenus.modifierGroupReferences`. */
  modifierGroupReferences?: number[]
}

/** A modifier option: a menu item sold as a modifier (its `guid` is what a modifier selection's `item.guid` names). */
export interface ToastModifierOption {
  referenceId: number
  guid: string
  name: string
  price: number | null
  sku?: string | null
  plu?: string | null
  salesCategory?: (ToastReference & { name: string }) | null
}

export interface ToastModifierGroup {
  referenceId: number
  guid: string
  name: string
  modifierOptionReferences: number[]
}

export interface ToastMenuGroup extends ToastReference {
  name: string
  menuGroups: ToastMenuGroup[]
  menuItems: ToastMenuItem[]
}

export interface ToastMenu extends ToastReference {
  name: string
  menuGroups: ToastMenuGroup[]
}

export interface ToastRestaurantMenus {
  restaurantGuid: string
  lastUpdated: string
  restaurantTimeZone: string
  menus: ToastMenu[]
  /** Keyed by `referenceId`. */
  modifierGroupReferences?: Record<string, ToastModifierGroup>
  modifierOptionReferences?: Record<string, ToastModifierOption>
}

export interface ToastMenusMetadata {
  restaurantGuid: string
  lastUpdated: string
}

/**
 * A menu item selection, or a modifier selection in another's `modifiers[]`. Swagger 2.0 has no null:
 * a field Toast has no value for is absent.
 */
export interface ToastSelection extends ToastReference {
  item: ToastReference
  itemGroup?: ToastReference
  optionGroup?: ToastReference
  salesCategory?: ToastReference
  displayName: string
  quantity: number
  unitOfMeasure?: string
  /** Net price of the whole selection, modifiers included (after discounts, before tax). */
  price: number
  /** Gross price of the whole selection (before discounts and tax). */
  preDiscountPrice: number
  /** The price of one unit, without quantity, taxes, discounts and modifiers. */
  receiptLinePrice?: number
  tax?: number
  voided: boolean
  voidDate?: string
  voidBusinessDate?: number
  refundDetails?: ToastRefundDetails
  createdDate?: string
  modifiedDate?: string
  modifiers?: ToastSelection[]
}

export interface ToastRefundDetails {
  refundAmount?: number
  taxRefundAmount?: number
  /** Associates the items and the payment refunded in the same transaction. */
  refundTransaction?: ToastReference
}

export interface ToastRefund {
  refundAmount?: number
  tipRefundAmount?: number
  refundDate?: string
  refundBusinessDate?: number
  refundTransaction?: ToastReference
}

export interface ToastPayment extends ToastReference {
  paidDate?: string
  paidBusinessDate?: number
  type: string
  amount: number
  tipAmount: number
  server?: ToastReference
  refundStatus?: 'NONE' | 'PARTIAL' | 'FULL'
  refund?: ToastRefund
  orderGuid?: string
  checkGuid?: string
}

export interface ToastCheck extends ToastReference {
  openedDate?: string
  closedDate?: string
  modifiedDate?: string
  paidDate?: string
  deleted?: boolean
  voided?: boolean
  paymentStatus?: 'OPEN' | 'PAID' | 'CLOSED'
  amount?: number
  totalAmount?: number
  selections: ToastSelection[]
  payments?: ToastPayment[]
}

export interface ToastOrder extends ToastReference {
  diningOption: ToastReference
  businessDate?: number
  openedDate?: string
  closedDate?: string
  paidDate?: string
  modifiedDate?: string
  voided?: boolean
  deleted?: boolean
  server?: ToastReference
  checks: ToastCheck[]
}

export interface ToastEmployee extends ToastReference {
  firstName?: string
  chosenName?: string
  lastName?: string
  deleted: boolean
  jobReferences: ToastReference[]
}

export interface ToastJob extends ToastReference {
  title: string
  deleted: boolean
}

/** Toast's error body. */
export interface ToastError {
  status: string | number
  code: number
  message: string
  messageKey?: string | null
  requestId?: string
  canRetry?: string | null
}

/** `ordersBulk` allows at most 100 orders a page. */
export const TOAST_ORDERS_PAGE_SIZE = 100

/** The vendor transport (timeouts, abort signal, connection policy) rides along: see VendorTransport. */
export interface ToastClientOptions extends VendorTransport {
  baseUrl: string
  restaurantGuid: string
}

/** A refused token: the caller logs in again once and retries. */
export class ToastTokenRejected extends Error {}

export class ToastClient {
  private readonly http: VendorHttp

  constructor(private readonly options: ToastClientOptions) {
    this.http = new VendorHttp({ vendor: TOAST_VENDOR, baseUrl: options.baseUrl, ...transportOf(options) })
  }

  /** A new access token for the machine client; 401/403 are invalid_credentials. */
  async login(clientId: string, clientSecret: string): Promise<ToastLoginResponse['token']> {
    const login: ToastLoginRequest = { clientId, clientSecret, userAccessType: 'TOAST_MACHINE_CLIENT' }
    const response = await this.http.send<ToastLoginResponse | ToastError>({ method: 'POST', path: TOAST_LOGIN_PATH, json: login })
    const body = this.accept(response.status, response.body) as ToastLoginResponse
    if (typeof body.token?.accessToken !== 'string' || typeof body.token.expiresIn !== 'number') {
      throw new PosAdapterError('invalid_response', `${TOAST_VENDOR} login answered without a token`)
    }
    return body.token
  }

  async menus(token: string): Promise<ToastRestaurantMenus> {
    const body = await this.get<ToastRestaurantMenus>(token, { path: '/menus/v2/menus' })
    if (!Array.isArray(body.menus)) throw unreadable('menus')
    return body
  }

  async menusMetadata(token: string): Promise<ToastMenusMetadata> {
    return this.get<ToastMenusMetadata>(token, { path: '/menus/v2/metadata' })
  }

  /** One page (1-based) of orders modified in [modifiedFrom, modifiedTo). */
  async ordersPage(token: string, modifiedFrom: Date, modifiedTo: Date, page: number): Promise<ToastOrder[]> {
    const body = await this.get<ToastOrder[]>(token, {
      path: '/orders/v2/ordersBulk',
      query: { startDate: toastDate(modifiedFrom), endDate: toastDate(modifiedTo), page, pageSize: TOAST_ORDERS_PAGE_SIZE },
    })
    if (!Array.isArray(body)) throw unreadable('a list of orders')
    return body
  }

  async employees(token: string): Promise<ToastEmployee[]> {
    const body = await this.get<ToastEmployee[]>(token, { path: '/labor/v1/employees' })
    if (!Array.isArray(body)) throw unreadable('a list of employees')
    return body
  }

  async jobs(token: string): Promise<ToastJob[]> {
    const body = await this.get<ToastJob[]>(token, { path: '/labor/v1/jobs' })
    if (!Array.isArray(body)) throw unreadable('a list of jobs')
    return body
  }

  private async get<T>(token: string, req: VendorRequest): Promise<T> {
    const response = await this.http.send<T | ToastError>({
      ...req,
      headers: { authorization: `Bearer ${token}`, 'toast-restaurant-external-id': this.options.restaurantGuid },
    })
    // On a data call a 401 means the token lapsed or was revoked, not that the client's secret is wrong.
    if (response.status === 401) throw new ToastTokenRejected(errorMessage(response.body))
    return this.accept(response.status, response.body) as T
  }

  private accept(status: number, body: unknown): unknown {
    if (status >= 200 && status < 300) {
      if (typeof body !== 'object' || body === null) throw unreadable('a JSON body')
      return body
    }
    rejectStatus(TOAST_VENDOR, status, errorMessage(body))
  }
}

function errorMessage(body: unknown): string {
  const error = body as Partial<ToastError> | undefined
  return typeof error?.message === 'string' ? `${error.code ?? ''} ${error.message}`.trim() : 'no error body'
}

/** Toast wants ISO 8601 with milliseconds and a numeric offset ("2016-01-01T14:13:12.000+0000"). */
export function toastDate(date: Date): string {
  return date.toISOString().replace('Z', '+0000')
}

function unreadable(expected: string): PosAdapterError {
  return new PosAdapterError('invalid_response', `${TOAST_VENDOR} answered without ${expected}`)
}
