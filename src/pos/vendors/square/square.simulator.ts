import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SimulatorHandler, SimulatorOptions } from '../../adapter.js'
import { checksClosedBetween, dollarsToCents, historyRange, MENU, menuEntry, STAFF, stableId, type SimCheck, type SimLine, type StaffEntry } from '../../simulation/bar-data.js'
import { BoundedCache } from '../../simulation/bounded-cache.js'
import { FailureSwitch, readBody, sendJson } from '../../simulation/simulator-server.js'
import type {
  SquareCatalogObject,
  SquareError,
  SquareMoney,
  SquareOrder,
  SquareOrderLineItem,
  SquareOrderState,
  SquarePayment,
  SquareRefund,
  SquareTeamMember,
} from './square.client.js'

/**
 * Square's Connect v2 API subset, serving the simulated bar: RetrieveLocation, ListCatalog (pages of
 * 100), SearchOrders (closed_at filter, state filter, cursor, limit ≤ 1000), ListPayments (limit ≤ 100)
 * and SearchTeamMembers. Any bearer token is accepted except one starting with `invalid`, refused with
 * Square's 401 body. Voided lines never appear on an order (Square's register removes them from the
 * ticket); a refunded line stays on its sale order, which lists the refund, and comes back on a return
 * order closed at the same moment (the simulated bar does not say when refunds happen).
 */

const DAY_MS = 86_400_000
const DEFAULT_HISTORY_DAYS = 120
const CURRENCY = 'USD'
const CATALOG_PAGE_SIZE = 100
const ORDERS_DEFAULT_LIMIT = 500
const ORDERS_MAX_LIMIT = 1000
const PAYMENTS_MAX_LIMIT = 100
const TEAM_MEMBERS_MAX_LIMIT = 200

const ERROR_KINDS: Record<number, { category: string; code: string }> = {
  400: { category: 'INVALID_REQUEST_ERROR', code: 'BAD_REQUEST' },
  401: { category: 'AUTHENTICATION_ERROR', code: 'UNAUTHORIZED' },
  404: { category: 'INVALID_REQUEST_ERROR', code: 'NOT_FOUND' },
  429: { category: 'RATE_LIMIT_ERROR', code: 'RATE_LIMITED' },
  500: { category: 'API_ERROR', code: 'INTERNAL_SERVER_ERROR' },
  503: { category: 'API_ERROR', code: 'SERVICE_UNAVAILABLE' },
}

/** A request the simulator refuses, answered with Square's error body. */
class SquareRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    detail: string,
  ) {
    super(detail)
  }
}

function writeSquareError(res: ServerResponse, status: number, detail: string, headers: Record<string, string> = {}, code?: string): void {
  const kind = ERROR_KINDS[status] ?? { category: 'API_ERROR', code: 'INTERNAL_SERVER_ERROR' }
  const error: SquareError = { category: kind.category, code: code ?? kind.code, detail }
  sendJson(res, status, { errors: [error] }, headers)
}

function cents(amount: number): SquareMoney {
  return { amount, currency: CURRENCY }
}

/** Square's ids for the simulated bar's things, stable per seed; the menu's and staff's are hashed once. */
class SquareIds {
  private readonly menuIds = new Map<string, string>()
  constructor(private readonly seed: number) {}
  private menuId(key: string, length: number): string {
    let id = this.menuIds.get(key)
    if (id === undefined) {
      id = stableId(this.seed, key, length)
      this.menuIds.set(key, id)
    }
    return id
  }
  category = (name: string) => this.menuId(`square:category:${name}`, 24)
  item = (key: string) => this.menuId(`square:item:${key}`, 24)
  variation = (key: string) => this.menuId(`square:variation:${key}`, 24)
  order = (checkId: string) => stableId(this.seed, `square:order:${checkId}`, 27)
  returnOrder = (checkId: string) => stableId(this.seed, `square:return:${checkId}`, 27)
  lineUid = (lineId: string) => stableId(this.seed, `square:line:${lineId}`, 22)
  payment = (checkId: string) => stableId(this.seed, `square:payment:${checkId}`, 28)
  returnUid = (checkId: string) => stableId(this.seed, `square:return-uid:${checkId}`, 22)
  refund = (checkId: string) => stableId(this.seed, `square:refund:${checkId}`, 28)
  teamMember = (key: string) => `TM${this.menuId(`square:team:${key}`, 14)}`
}

function renderCatalog(ids: SquareIds): SquareCatalogObject[] {
  const categories = [...new Set(MENU.map((entry) => entry.category))].map(
    (name): SquareCatalogObject => ({ type: 'CATEGORY', id: ids.category(name), is_deleted: false, present_at_all_locations: true, category_data: { name } }),
  )
  const variations = MENU.map(
    (entry): SquareCatalogObject => ({
      type: 'ITEM_VARIATION',
      id: ids.variation(entry.key),
      is_deleted: false,
      present_at_all_locations: true,
      // Square names the only variation of an item "Regular".
      item_variation_data: { item_id: ids.item(entry.key), name: 'Regular', sku: entry.sku, pricing_type: 'FIXED_PRICING', price_money: cents(dollarsToCents(entry.price)) },
    }),
  )
  const items = MENU.map(
    (entry, index): SquareCatalogObject => ({
      type: 'ITEM',
      id: ids.item(entry.key),
      is_deleted: false,
      present_at_all_locations: true,
      item_data: { name: entry.name, categories: [{ id: ids.category(entry.category), ordinal: 0 }], variations: [variations[index] as SquareCatalogObject] },
    }),
  )
  return [...categories, ...items, ...variations]
}

function renderTeamMember(ids: SquareIds, staff: StaffEntry): SquareTeamMember {
  const title = staff.role.charAt(0).toUpperCase() + staff.role.slice(1)
  return {
    id: ids.teamMember(staff.key),
    is_owner: false,
    status: 'ACTIVE',
    given_name: staff.firstName,
    family_name: staff.lastName,
    wage_setting: { job_assignments: [{ job_title: title, pay_type: 'NONE' }] },
  }
}

function renderLine(ids: SquareIds, line: SimLine): SquareOrderLineItem {
  const entry = menuEntry(line.itemKey)
  const unitCents = dollarsToCents(line.unitPrice)
  return {
    uid: ids.lineUid(line.lineId),
    name: entry.name,
    quantity: String(line.quantity),
    catalog_object_id: ids.variation(entry.key),
    variation_name: 'Regular',
    base_price_money: cents(unitCents),
    gross_sales_money: cents(unitCents * line.quantity),
    total_money: cents(unitCents * line.quantity),
  }
}

/** The orders a check becomes, by state: its sale (cancelled when every line was voided), then its return if any. */
function orderStatesOf(check: SimCheck): SquareOrderState[] {
  const sold = check.lines.filter((line) => !line.voided)
  // A check whose every line was voided was cancelled at the register.
  const sale = sold.length ? 'COMPLETED' : 'CANCELED'
  return sold.some((line) => line.refunded) ? [sale, 'COMPLETED'] : [sale]
}

/** The sale order of a check, then its return order when some of its lines were refunded. */
function renderOrders(ids: SquareIds, check: SimCheck, locationId: string): SquareOrder[] {
  const sold = check.lines.filter((line) => !line.voided)
  const refunded = sold.filter((line) => line.refunded)
  const lineItems = sold.map((line) => renderLine(ids, line))
  const totalCents = lineItems.reduce((total, line) => total + (line.total_money?.amount ?? 0), 0)
  const tipCents = dollarsToCents(check.tip)
  const orderId = ids.order(check.checkId)
  const paymentId = ids.payment(check.checkId)
  const closedAt = check.closedAt.toISOString()
  const refund: SquareRefund | undefined = refunded.length
    ? {
        id: ids.refund(check.checkId),
        location_id: locationId,
        transaction_id: orderId,
        tender_id: paymentId,
        created_at: closedAt,
        reason: 'Returned goods',
        amount_money: cents(refunded.reduce((total, line) => total + dollarsToCents(line.unitPrice) * line.quantity, 0)),
        status: 'APPROVED',
      }
    : undefined
  const sale: SquareOrder = {
    id: orderId,
    location_id: locationId,
    state: orderStatesOf(check)[0] as SquareOrderState,
    created_at: check.openedAt.toISOString(),
    updated_at: closedAt,
    closed_at: closedAt,
    line_items: lineItems,
    tenders: [
      {
        id: paymentId,
        location_id: locationId,
        transaction_id: orderId,
        created_at: closedAt,
        amount_money: cents(totalCents + tipCents),
        tip_money: cents(tipCents),
        type: 'CARD',
        payment_id: paymentId,
      },
    ],
    refunds: refund ? [refund] : [],
    total_money: cents(totalCents),
    total_tip_money: cents(tipCents),
  }
  if (!refund) return [sale]
  const returnOrder: SquareOrder = {
    id: ids.returnOrder(check.checkId),
    location_id: locationId,
    state: 'COMPLETED',
    created_at: closedAt,
    updated_at: closedAt,
    closed_at: closedAt,
    returns: [
      {
        uid: ids.returnUid(check.checkId),
        source_order_id: orderId,
        return_line_items: refunded.map((line) => {
          const sale = renderLine(ids, line)
          return { ...sale, uid: ids.lineUid(`return:${line.lineId}`), source_line_item_uid: sale.uid }
        }),
      },
    ],
    refunds: [refund],
    total_money: cents(0),
  }
  return [sale, returnOrder]
}

/** The payment of a check's sale order: the order's total and tip, taken when it closed. */
/** One order of a search's results: the `part`th of the orders its check becomes (see orderStatesOf). */
interface OrderRef {
  check: SimCheck
  part: number
}

function indexOrders(checks: readonly SimCheck[], states: readonly string[] | undefined, newestFirst: boolean): OrderRef[] {
  const orders: OrderRef[] = []
  for (const check of checks) {
    orderStatesOf(check).forEach((state, part) => {
      if (!states || states.includes(state)) orders.push({ check, part })
    })
  }
  return newestFirst ? orders.reverse() : orders
}

function renderPayment(ids: SquareIds, check: SimCheck, locationId: string): SquarePayment {
  const amount = check.lines.reduce((total, line) => (line.voided ? total : total + dollarsToCents(line.unitPrice) * line.quantity), 0)
  const tip = dollarsToCents(check.tip)
  const staffId = ids.teamMember(check.staffKey)
  const closedAt = check.closedAt.toISOString()
  return {
    id: ids.payment(check.checkId),
    created_at: closedAt,
    updated_at: closedAt,
    amount_money: cents(amount),
    tip_money: cents(tip),
    total_money: cents(amount + tip),
    status: 'COMPLETED',
    source_type: 'CARD',
    location_id: locationId,
    order_id: ids.order(check.checkId),
    team_member_id: staffId,
    employee_id: staffId,
  }
}

function encodeCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString('base64url')
}

function decodeCursor(cursor: unknown): number {
  if (cursor === undefined || cursor === null || cursor === '') return 0
  const match = /^offset:(\d+)$/.exec(Buffer.from(String(cursor), 'base64url').toString())
  if (!match) throw new SquareRequestError(400, 'INVALID_CURSOR', 'The pagination cursor is invalid.')
  return Number(match[1])
}

/** One page of `items` and the cursor of the next, Square style (no cursor on the last page). */
function pageOf<T>(items: readonly T[], cursor: unknown, limit: number): { page: T[]; cursor?: string } {
  const offset = decodeCursor(cursor)
  const page = items.slice(offset, offset + limit)
  return offset + limit < items.length ? { page, cursor: encodeCursor(offset + limit) } : { page }
}

function limitOf(value: unknown, fallback: number, max: number): number {
  if (value === undefined || value === null || value === '') return fallback
  const limit = Number(value)
  if (!Number.isInteger(limit) || limit < 1) throw new SquareRequestError(400, 'INVALID_VALUE', `limit must be a positive integer, got ${String(value)}`)
  return Math.min(limit, max)
}

function timeOf(value: unknown, fallback: Date, field: string): Date {
  if (value === undefined || value === null || value === '') return fallback
  const time = Date.parse(String(value))
  if (Number.isNaN(time)) throw new SquareRequestError(400, 'INVALID_TIME', `${field} is not an RFC 3339 timestamp`)
  return new Date(time)
}

interface SearchOrdersBody {
  location_ids?: string[]
  cursor?: string
  limit?: number
  query?: {
    filter?: {
      date_time_filter?: { closed_at?: { start_at?: string; end_at?: string } }
      state_filter?: { states?: string[] }
    }
    sort?: { sort_field?: string; sort_order?: 'ASC' | 'DESC' }
  }
}

function parseJson<T>(text: string): T {
  try {
    return (text ? JSON.parse(text) : {}) as T
  } catch {
    throw new SquareRequestError(400, 'INVALID_REQUEST_ERROR', 'The request body is not valid JSON.')
  }
}

export function createSquareSimulator(options: SimulatorOptions): SimulatorHandler {
  const failures = new FailureSwitch(options.failure)
  const ids = new SquareIds(options.seed)
  const now = options.now ?? (() => new Date())
  const historyDays = options.historyDays ?? DEFAULT_HISTORY_DAYS
  const catalog = renderCatalog(ids)
  const teamMembers = STAFF.map((staff) => renderTeamMember(ids, staff))
  const history = () => ({ now: now(), historyDays, volume: options.volume })
  const earliest = () => new Date(now().getTime() - historyDays * DAY_MS)
  // A search's results, kept while its pages are read: each page is then a slice, not the whole window again.
  const orderSearches = new BoundedCache<string, readonly OrderRef[]>(4)
  const paymentSearches = new BoundedCache<string, readonly SimCheck[]>(4)

  /** The checks closed in [start, end), through `searches` under a key naming the history they cover. */
  function searched<T>(searches: BoundedCache<string, readonly T[]>, start: Date, end: Date, variant: string, index: (checks: SimCheck[]) => T[]): readonly T[] {
    const { from, to } = historyRange(start, end, history())
    return searches.get(`${from}:${to}:${variant}`, () => index(checksClosedBetween(options.seed, start, end, history())))
  }

  function searchOrders(body: SearchOrdersBody): unknown {
    const locationId = body.location_ids?.[0]
    if (!locationId) throw new SquareRequestError(400, 'MISSING_REQUIRED_PARAMETER', 'location_ids must name at least one location')
    const closedAt = body.query?.filter?.date_time_filter?.closed_at
    const sort = body.query?.sort
    if (closedAt && sort?.sort_field !== 'CLOSED_AT') {
      throw new SquareRequestError(400, 'BAD_REQUEST', 'A closed_at filter requires sorting by CLOSED_AT')
    }
    const states = body.query?.filter?.state_filter?.states
    // Square's default order is newest first.
    const newestFirst = sort?.sort_order !== 'ASC'
    const start = timeOf(closedAt?.start_at, earliest(), 'start_at')
    const end = timeOf(closedAt?.end_at, now(), 'end_at')
    const orders = searched(orderSearches, start, end, `${JSON.stringify(states)}:${newestFirst}`, (checks) => indexOrders(checks, states, newestFirst))
    const { page, cursor } = pageOf(orders, body.cursor, limitOf(body.limit, ORDERS_DEFAULT_LIMIT, ORDERS_MAX_LIMIT))
    return { orders: page.map((order) => renderOrders(ids, order.check, locationId)[order.part]), cursor }
  }

  function listPayments(query: URLSearchParams): unknown {
    const locationId = query.get('location_id') ?? 'MAIN'
    const newestFirst = query.get('sort_order') !== 'ASC'
    const start = timeOf(query.get('begin_time'), new Date(now().getTime() - 365 * DAY_MS), 'begin_time')
    const end = timeOf(query.get('end_time'), now(), 'end_time')
    const paid = searched(paymentSearches, start, end, String(newestFirst), (checks) => {
      const withPayment = checks.filter((check) => check.lines.some((line) => !line.voided))
      return newestFirst ? withPayment.reverse() : withPayment
    })
    const { page, cursor } = pageOf(paid, query.get('cursor'), limitOf(query.get('limit'), PAYMENTS_MAX_LIMIT, PAYMENTS_MAX_LIMIT))
    return { payments: page.map((check) => renderPayment(ids, check, locationId)), cursor }
  }

  async function route(req: IncomingMessage, url: URL): Promise<unknown> {
    const method = req.method ?? 'GET'
    const location = /^\/v2\/locations\/([^/]+)$/.exec(url.pathname)
    if (method === 'GET' && location) {
      const id = decodeURIComponent(location[1] as string)
      return { location: { id, name: 'Simulated Bar', status: 'ACTIVE', currency: CURRENCY, timezone: 'Etc/UTC' } }
    }
    if (method === 'GET' && url.pathname === '/v2/catalog/list') {
      const types = url.searchParams.get('types')?.toUpperCase().split(',').map((type) => type.trim()) ?? ['ITEM', 'CATEGORY']
      const { page, cursor } = pageOf(catalog.filter((object) => types.includes(object.type)), url.searchParams.get('cursor'), CATALOG_PAGE_SIZE)
      return { objects: page, cursor }
    }
    if (method === 'POST' && url.pathname === '/v2/orders/search') return searchOrders(parseJson<SearchOrdersBody>(await readBody(req)))
    if (method === 'GET' && url.pathname === '/v2/payments') return listPayments(url.searchParams)
    if (method === 'POST' && url.pathname === '/v2/team-members/search') {
      const body = parseJson<{ limit?: number; cursor?: string }>(await readBody(req))
      const { page, cursor } = pageOf(teamMembers, body.cursor, limitOf(body.limit, 100, TEAM_MEMBERS_MAX_LIMIT))
      return { team_members: page, cursor }
    }
    throw new SquareRequestError(404, 'NOT_FOUND', `Resource not found: ${method} ${url.pathname}`)
  }

  function authorise(req: IncomingMessage): void {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1]
    if (!token || token.startsWith('invalid')) throw new SquareRequestError(401, 'UNAUTHORIZED', 'This request could not be authorized.')
    const version = req.headers['square-version']
    if (version !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(String(version))) {
      throw new SquareRequestError(400, 'INVALID_SQUARE_VERSION_FORMAT', `Invalid Square-Version ${String(version)}`)
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (await failures.intercept(res, (status, message, headers) => writeSquareError(res, status, message, headers))) return
    const url = new URL(req.url ?? '/', 'http://simulator')
    try {
      authorise(req)
      sendJson(res, 200, await route(req, url))
    } catch (error) {
      if (!(error instanceof SquareRequestError)) throw error
      writeSquareError(res, error.status, error.message, {}, error.code)
    }
  }

  return (req, res) => {
    handle(req, res).catch((error: Error) => writeSquareError(res, 500, error.message))
  }
}
