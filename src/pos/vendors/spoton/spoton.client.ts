import { PosAdapterError, type VendorTransport } from '../adapter.js'
import { rejectStatus, VendorHttp } from '../vendor-http.js'

/**
 * SpotOn's Restaurant POS Export API (read-only), the subset barstock reads: the location (to verify the
 * key), menu items, report categories, employees, and orders by closing time. Every route is scoped to
 * one location and authenticated by the `x-api-key` header; nothing is paginated. The wire types below
 * are the vendor's, shared with the simulator so both sides speak the same shapes.
 */

export const SPOTON_VENDOR = 'SpotOn'

/** Money and quantities travel as decimal strings ("12.50", "2"); timestamps as RFC 3339. */
export interface SpotOnLocation {
  id: string
  name: string
  deleted: boolean
}

export interface SpotOnMenuItem {
  id: string
  locationId: string
  deleted: boolean
  available: boolean
  name: string
  openItem: boolean
  reportCategoryId: string
  standardPriceAmount: string
  plu: string
}

export interface SpotOnReportCategory {
  id: string
  locationId: string
  name: string
  /** Absent on a top-level category. */
  parentId?: string
  deleted: boolean
}

export interface SpotOnJobPosition {
  id: string
  locationId: string
  name: string
  deleted: boolean
}

export interface SpotOnEmployee {
  id: string
  locationID: string
  firstName: string
  lastName: string
  nickName: string
  active: boolean
  deleted: boolean
  jobPositions: SpotOnJobPosition[]
}

export interface SpotOnOrderMenuItem {
  menuItemId: string
  name: string
  createdAt: string
  quantity: string
  preDiscountsAmount: string
  discountsAmount: string
  postDiscountsAmount: string
  taxesAmount: string
  totalAmount: string
  /** Menu items rung under this one (a combo's parts, an add-on); they show the parent's quantity. */
  subItems?: SpotOnOrderMenuItem[]
  /** Modifier options chosen for the item; they name no menu item and carry no quantity. */
  modifiers?: SpotOnOrderModifier[]
}

export interface SpotOnOrderModifier {
  modifierId: string
  modifierOptionId: string
  text: string
  preDiscountsAmount: string
  postDiscountsAmount: string
  totalAmount: string
}

export interface SpotOnOrderGuest {
  name: string
  items: SpotOnOrderMenuItem[]
  voidedItems: SpotOnOrderMenuItem[]
}

export interface SpotOnOrderPayment {
  createdAt: string
  amount: string
  tipAmount: string
  employeeId: string
  employeeName: string
}

export interface SpotOnOrderCheck {
  gratuityAmount: string
  totalAmount: string
  paymentsAmount: string
  balanceAmount: string
  guests: SpotOnOrderGuest[]
  payments: SpotOnOrderPayment[]
  items: SpotOnOrderMenuItem[]
  voidedItems: SpotOnOrderMenuItem[]
}

export interface SpotOnOrder {
  id: string
  deleted: boolean
  locationId: string
  createdByEmployeeId: string
  createdByEmployeeName: string
  createdAt: string
  closedAt: string | null
  /** RFC 3339 with milliseconds: the last change, a void or refund after closing included. */
  updatedAt: string
  totalAmount: string
  balanceDueAmount: string
  checks: SpotOnOrderCheck[]
}

/** SpotOn's error body, on every 4xx and 5xx. */
export interface SpotOnError {
  message: string
  code: string
}

/** The vendor transport (timeouts, abort signal, connection policy) rides along: see VendorTransport. */
export interface SpotOnClientOptions extends VendorTransport {
  baseUrl: string
  apiKey: string
  locationId: string
}

/** RFC 3339 without milliseconds: the export API refuses fractional seconds in its ranges. */
export function toSpotOnTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

export class SpotOnClient {
  private readonly http: VendorHttp

  constructor(private readonly options: SpotOnClientOptions) {
    this.http = new VendorHttp({ vendor: SPOTON_VENDOR, ...options })
  }

  async getLocation(): Promise<SpotOnLocation> {
    return (await this.getWithClock<SpotOnLocation>('')).body
  }

  /**
   * SpotOn's clock, from the `Date` header of a location read: the export refuses ranges ending less
   * than 5 minutes before SpotOn's now, not ours. Our clock where the header is missing or unreadable.
   */
  async serverNow(): Promise<Date> {
    const { date } = await this.getWithClock<SpotOnLocation>('')
    return date ?? new Date()
  }

  listMenuItems(): Promise<SpotOnMenuItem[]> {
    return this.getList<SpotOnMenuItem>('/menu-items')
  }

  listReportCategories(): Promise<SpotOnReportCategory[]> {
    return this.getList<SpotOnReportCategory>('/report-categories')
  }

  listEmployees(): Promise<SpotOnEmployee[]> {
    return this.getList<SpotOnEmployee>('/employees')
  }

  /**
   * Orders closed in [start, end), and orders closed earlier but updated in it (`includeUpdatedActivity`):
   * whole seconds, at most 26 hours, ending 5 minutes ago at the latest.
   */
  listOrdersClosedOrUpdatedBetween(start: Date, end: Date): Promise<SpotOnOrder[]> {
    return this.getList<SpotOnOrder>('/orders', {
      closedAtStart: toSpotOnTimestamp(start),
      closedAtEnd: toSpotOnTimestamp(end),
      includeUpdatedActivity: 'true',
    })
  }

  private async getList<T>(resource: string, query?: Record<string, string>): Promise<T[]> {
    const body = await this.get<unknown>(resource, query)
    if (!Array.isArray(body)) throw new PosAdapterError('invalid_response', `${SPOTON_VENDOR} ${resource} did not answer a list`)
    return body as T[]
  }

  private async get<T>(resource: string, query?: Record<string, string>): Promise<T> {
    return (await this.getWithClock<T>(resource, query)).body
  }

  private async getWithClock<T>(resource: string, query?: Record<string, string>): Promise<{ body: T; date: Date | null }> {
    const response = await this.http.send<T | SpotOnError>({
      path: `/locations/${encodeURIComponent(this.options.locationId)}${resource}`,
      query,
      headers: { 'x-api-key': this.options.apiKey },
    })
    if (response.status !== 200) {
      const error = response.body as Partial<SpotOnError> | undefined
      rejectStatus(SPOTON_VENDOR, response.status, error?.message ?? 'no error message')
    }
    if (response.body === undefined || response.body === null) {
      throw new PosAdapterError('invalid_response', `${SPOTON_VENDOR} answered an empty body`)
    }
    const header = response.headers.date
    const date = typeof header === 'string' && !Number.isNaN(Date.parse(header)) ? new Date(header) : null
    return { body: response.body as T, date }
  }
}
