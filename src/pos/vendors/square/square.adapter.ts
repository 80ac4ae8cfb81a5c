import {
  PosAdapterError,
  type PosAdapter,
  type PosAdapterOptions,
  type PosCredentials,
  type PosProduct,
  type PosSaleLine,
  type PosStaffMember,
  type SalesListingProgress,
  type SalesWindow,
} from '../adapter.js'
import { SQUARE_VENDOR, SquareClient, type SquareOrder, type SquarePayment, type SquareTokenSource } from './square.client.js'
import { closedAtOf, mapCatalog, mapOrderLines, mapReturnLines, mapTeamMember, type OrderStaff } from './square.mapper.js'
import { ListingProgress } from '../listing-progress.js'
import { transportOf } from '../vendor-http.js'
import { RenewableAccessToken, type RenewedTokens } from '../oauth-renewal.js'

/**
 * Square with a personal or OAuth access token: there is no login to cache, the token is sent on every
 * call, and an OAuth one is renewed as it nears its 30 days. Sales are completed orders by closing time; who sold them comes from the order's
 * payments, and goods taken back from return orders, which Square files as orders of their own.
 */

/** MODIFIER_LIST brings its modifiers nested, as ITEM brings its variations. */
const CATALOG_TYPES = ['ITEM', 'ITEM_VARIATION', 'CATEGORY', 'MODIFIER_LIST'] as const

/**
 * How long before an order closes its payment may have been created: a bar tab's card is authorised
 * when the tab opens, hours before it closes. Payments older than this are not matched to their order.
 */
const PAYMENT_LOOKBACK_MS = 12 * 3_600_000

/** What a deployment can tune about Square (index.ts reads it from the environment). */
export interface SquareConfig {
  /** The Square application's id (ObtainToken's client_id); without it an OAuth token cannot be renewed. */
  applicationId: string | undefined
  /** The application secret: the code flow sends it, the PKCE flow has none. */
  applicationSecret: string | undefined
  /** An OAuth access token with less than this left before its expires_at is renewed before use. */
  renewBeforeExpiryMs: number
}

export function createSquareAdapter(options: PosAdapterOptions, config: SquareConfig): PosAdapter {
  const locationId = options.credentials.location_id ?? ''
  const clientOptions = { baseUrl: options.baseUrl, ...transportOf(options) }
  const tokens = squareTokens(options, config, new SquareClient({ ...clientOptions, tokens: NO_TOKEN }))
  const client = new SquareClient({ ...clientOptions, tokens })
  return {
    async verify() {
      await client.retrieveLocation(locationId)
    },
    async listProducts(): Promise<PosProduct[]> {
      return mapCatalog(await collect(client.listCatalog(CATALOG_TYPES)), locationId)
    },
    listSales: (window, progress) => listSales(client, locationId, window, progress),
    async listStaff(): Promise<PosStaffMember[]> {
      return (await collect(client.searchTeamMembers())).map(mapTeamMember)
    },
  }
}

/** ObtainToken is called without an access token. */
const NO_TOKEN: SquareTokenSource = { accessToken: async () => '', renewAfterRejection: async () => false }

/**
 * The connection's access token, renewed with its refresh token when it is close to `expires_at` or
 * Square refuses it (ACCESS_TOKEN_EXPIRED). In the PKCE flow the refresh token is single-use and rotated;
 * the code flow's comes back unchanged.
 */
function squareTokens(options: PosAdapterOptions, config: SquareConfig, oauth: SquareClient): SquareTokenSource {
  const refresh = async (credentials: PosCredentials): Promise<RenewedTokens> => {
    const clientId = config.applicationId
    if (!clientId)
      throw new PosAdapterError('invalid_credentials', `${SQUARE_VENDOR} access token needs renewing and no Square application id (SQUARE_APPLICATION_ID) is configured`)
    const secret = config.applicationSecret
    const answer = await oauth.obtainToken({
      client_id: clientId,
      ...(secret ? { client_secret: secret } : {}),
      grant_type: 'refresh_token',
      refresh_token: credentials.refresh_token ?? '',
    })
    const renewed = { ...credentials, access_token: answer.access_token, refresh_token: answer.refresh_token ?? credentials.refresh_token ?? '', expires_at: answer.expires_at }
    return { credentials: renewed, expiresAt: expiryOf(renewed) }
  }
  return RenewableAccessToken.ofConnection(options, { grant: 'refresh_token', refresh, renewBeforeExpiryMs: config.renewBeforeExpiryMs }, expiryOf(options.credentials))
}

/** When an OAuth access token expires (its expires_at), ms; undefined for a personal token. */
function expiryOf(credentials: PosCredentials): number | undefined {
  const expiresAt = Date.parse(credentials.expires_at ?? '')
  return Number.isNaN(expiresAt) ? undefined : expiresAt
}

async function collect<T>(pages: AsyncIterable<T[]>): Promise<T[]> {
  const all: T[] = []
  for await (const page of pages) all.push(...page)
  return all
}

/** Where the orders listing got to: the close time of the last order taken (ISO 8601). */
interface OrdersPosition {
  closedFrom: string
}

const ORDERS_QUERY = 'orders'

function isOrdersPosition(value: unknown): value is OrdersPosition {
  const closedFrom = (value as Partial<OrdersPosition> | null)?.closedFrom
  return typeof closedFrom === 'string' && !Number.isNaN(Date.parse(closedFrom))
}

/**
 * Completed orders closed in the window, page by page: sale orders become their lines (and modifiers),
 * return orders corrections of the lines they name, whenever those were sold. Square's closed_at range
 * includes its end, so an order closed exactly at the window's end is left to the next window.
 *
 * Resumed by close time, not by cursor: Square's cursors live minutes ("a page of retrieved records has
 * a limited lifespan", its pagination guide), but orders come sorted by closed_at and a COMPLETED order
 * never changes, so listing again from the last close taken misses nothing. That bound is inclusive:
 * orders closed at the same instant come again, and their lines are skipped as seen.
 */
async function* listSales(client: SquareClient, locationId: string, window: SalesWindow, listing?: SalesListingProgress): AsyncIterable<PosSaleLine[]> {
  const progress = new ListingProgress(isOrdersPosition, listing)
  const start = progress.startOf(ORDERS_QUERY)
  if (start === 'finished') return
  const from = start ? new Date(start.closedFrom) : window.start
  const staffNames = new Map((await collect(client.searchTeamMembers())).map((member) => [member.id, mapTeamMember(member).name]))
  const payments = new WindowPayments(client, locationId, { start: from, end: window.end })
  for await (const page of client.searchOrders({ locationId, closedFrom: from, closedTo: window.end })) {
    const orders = page.filter((order) => closedAtOf(order) < window.end)
    const staffOfOrder = await paymentStaff(payments, orders, staffNames)
    const lines = orders.flatMap((order) => [...mapOrderLines(order, staffOfOrder.get(order.id) ?? NO_STAFF), ...mapReturnLines(order)])
    if (lines.length > 0) yield lines
    const last = page.at(-1)
    if (last) progress.record(ORDERS_QUERY, { closedFrom: closedAtOf(last).toISOString() })
  }
  progress.record(ORDERS_QUERY, 'finished')
}

const NO_STAFF: OrderStaff = { staffId: null, staffName: null }

/** Who took each order's payment (Square names the team member on the payment, not the order). */
async function paymentStaff(payments: WindowPayments, orders: readonly SquareOrder[], staffNames: ReadonlyMap<string, string>): Promise<Map<string, OrderStaff>> {
  let earliestClose = Infinity
  let latestClose = -Infinity
  for (const order of orders) {
    const time = Date.parse(order.closed_at ?? '')
    if (Number.isNaN(time)) continue
    earliestClose = Math.min(earliestClose, time)
    latestClose = Math.max(latestClose, time)
  }
  const staff = new Map<string, OrderStaff>()
  if (earliestClose === Infinity) return staff
  const orderIds = new Set(orders.map((order) => order.id))
  for (const payment of await payments.createdBetween(earliestClose - PAYMENT_LOOKBACK_MS, latestClose + 1)) {
    const staffId = payment.team_member_id ?? payment.employee_id
    if (!payment.order_id || !orderIds.has(payment.order_id) || !staffId) continue
    staff.set(payment.order_id, { staffId, staffName: staffNames.get(staffId) ?? null })
  }
  return staff
}

/**
 * The window's payments, oldest first. Orders pages come oldest first too, so the payment ranges of
 * consecutive pages overlap by the lookback: one ListPayments over the whole window, read ahead only as
 * far as the latest page needs and forgotten once older than its range, serves each payment once. A
 * range outside that pattern (older than the one before, or beyond the window) is asked for on its own.
 */
class WindowPayments {
  private readonly streamFrom: number
  private readonly streamTo: number
  private readonly stream: AsyncIterator<SquarePayment[]>
  private streamDone = false
  private lastFrom = -Infinity
  /** Payments read from the stream and not yet older than every range still to come, oldest first. */
  private held: { createdAt: number; payment: SquarePayment }[] = []

  constructor(
    private readonly client: SquareClient,
    private readonly locationId: string,
    window: SalesWindow,
  ) {
    this.streamFrom = window.start.getTime() - PAYMENT_LOOKBACK_MS
    this.streamTo = window.end.getTime()
    this.stream = client.listPayments({ locationId, createdFrom: new Date(this.streamFrom), createdTo: window.end })[Symbol.asyncIterator]()
  }

  /** Payments created in [from, to), oldest first. */
  async createdBetween(from: number, to: number): Promise<SquarePayment[]> {
    if (from < this.lastFrom || from < this.streamFrom || to > this.streamTo) {
      return collect(this.client.listPayments({ locationId: this.locationId, createdFrom: new Date(from), createdTo: new Date(to) }))
    }
    this.lastFrom = from
    // Read on until a payment created at or after `to` shows the range is complete (an unreadable time proves nothing).
    while (!this.streamDone && !((this.held.at(-1)?.createdAt ?? -Infinity) >= to)) {
      const next = await this.stream.next()
      if (next.done) this.streamDone = true
      else for (const payment of next.value) this.held.push({ createdAt: Date.parse(payment.created_at), payment })
    }
    this.held = this.held.filter((entry) => !(entry.createdAt < from))
    return this.held.filter((entry) => !(entry.createdAt >= to)).map((entry) => entry.payment)
  }
}
