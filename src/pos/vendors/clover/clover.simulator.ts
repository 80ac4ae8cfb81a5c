import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SimulatorHandler, SimulatorOptions } from '../../adapter.js'
import { checksClosedBetween, dollarsToCents, historyRange, MENU, menuEntry, STAFF, stableId, type SimCheck, type StaffEntry } from '../../simulation/bar-data.js'
import { BoundedCache } from '../../simulation/bounded-cache.js'
import { FailureSwitch, readBody, sendJson } from '../../simulation/simulator-server.js'
import {
  CLOVER_MAX_PAGE_SIZE,
  DEFAULT_CLOVER_REFRESH_FIELDS,
  type CloverEmployee,
  type CloverError,
  type CloverItem,
  type CloverLineItem,
  type CloverOrder,
  type CloverRefreshFields,
  type CloverRefreshRequest,
} from './clover.client.js'

/**
 * Clover's API subset, served over the simulated bar: `/v3/merchants/{mId}/items|orders|employees` with
 * offset/limit pages, `expand`, the `createdTime` filters and the 90-day limit on orders, bearer tokens,
 * and the OAuth v2 refresh with single-use refresh tokens. Any token is accepted except one starting with
 * `invalid`, or with `expired` (how tests hand the adapter a stored token that has run out), or one this
 * simulator issued and whose time is up.
 */

const DAY_MS = 86_400_000
const ORDER_HISTORY_LIMIT_MS = 90 * DAY_MS
const DEFAULT_PAGE_SIZE = 100
/** How long the simulator's access tokens live (wall clock, as a real token's would). */
const ACCESS_TOKEN_TTL_MS = 30 * 60_000
const REFRESH_TOKEN_TTL_MS = 365 * DAY_MS
/** Longer than any simulated tab stays open (bar-data's close within 90 minutes of opening). */
const LONGEST_TAB_MS = DAY_MS

type Expansions = ReadonlySet<string>

function titleCase(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1)
}

class CloverSimulator {
  private readonly failures: FailureSwitch
  private readonly issuedAccessTokens = new Map<string, number>()
  private readonly spentRefreshTokens = new Set<string>()
  private readonly historyDays: number
  private readonly now: () => Date
  /** An orders query's checks, kept while its pages are read: each page is then a slice, not the whole window again. */
  private readonly orderSearches = new BoundedCache<string, readonly SimCheck[]>(4)
  /** Menu, staff and role ids, hashed once. */
  private readonly fixedIds = new Map<string, string>()

  constructor(
    private readonly options: SimulatorOptions,
    private readonly refreshFields: CloverRefreshFields,
  ) {
    this.failures = new FailureSwitch(options.failure)
    this.historyDays = options.historyDays ?? 120
    this.now = options.now ?? (() => new Date())
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const writeError = (status: number, message: string, headers?: Record<string, string>) => {
      const body: CloverError = { message }
      sendJson(res, status, body, headers)
    }
    if (await this.failures.intercept(res, writeError)) return
    const url = new URL(req.url ?? '/', 'http://simulator')
    if (req.method === 'POST' && url.pathname === '/oauth/v2/refresh') return this.refresh(await readBody(req), res, writeError)
    const route = /^\/v3\/merchants\/([A-Za-z0-9]+)\/(items|orders|employees)$/.exec(url.pathname)
    if (req.method !== 'GET' || !route) return writeError(404, '404 Not Found')
    if (!this.acceptsToken(req.headers.authorization)) return writeError(401, '401 Unauthorized')
    const limit = Number(url.searchParams.get('limit') ?? DEFAULT_PAGE_SIZE)
    const offset = Number(url.searchParams.get('offset') ?? 0)
    if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(offset) || offset < 0) return writeError(400, 'Invalid limit or offset')
    const expand = new Set((url.searchParams.get('expand') ?? '').split(',').filter(Boolean))
    const end = offset + Math.min(limit, CLOVER_MAX_PAGE_SIZE)
    sendJson(res, 200, { elements: this.resource(route[2] as 'items' | 'orders' | 'employees', url.searchParams.getAll('filter'), expand, offset, end) })
  }

  /** Elements [offset, end) of a resource; only those are rendered. */
  private resource(name: 'items' | 'orders' | 'employees', filters: string[], expand: Expansions, offset: number, end: number): unknown[] {
    switch (name) {
      case 'items':
        return MENU.slice(offset, end).map((entry) => this.item(entry.key, expand))
      case 'employees':
        return STAFF.slice(offset, end).map((staff) => this.employee(staff, expand))
      case 'orders':
        return this.ordersCreatedIn(filters).slice(offset, end).map((check) => this.order(check, expand))
    }
  }

  private acceptsToken(header: string | undefined): boolean {
    const token = /^Bearer (\S+)$/.exec(header ?? '')?.[1]
    if (!token || token.startsWith('invalid') || token.startsWith('expired')) return false
    const expiresAt = this.issuedAccessTokens.get(token)
    return expiresAt === undefined || expiresAt > Date.now()
  }

  private refresh(text: string, res: ServerResponse, writeError: (status: number, message: string) => void): void {
    let body: Partial<CloverRefreshRequest>
    try {
      body = JSON.parse(text) as Partial<CloverRefreshRequest>
    } catch {
      return writeError(400, 'Body is not JSON')
    }
    const refreshToken = body.refresh_token
    if (typeof body.client_id !== 'string' || !body.client_id || typeof refreshToken !== 'string' || !refreshToken) {
      return writeError(400, 'client_id and refresh_token are required')
    }
    if (refreshToken.startsWith('invalid') || this.spentRefreshTokens.has(refreshToken)) return writeError(401, 'Invalid refresh token')
    this.spentRefreshTokens.add(refreshToken)
    const accessToken = randomUUID()
    const accessExpiresAt = Date.now() + ACCESS_TOKEN_TTL_MS
    this.issuedAccessTokens.set(accessToken, accessExpiresAt)
    sendJson(res, 200, {
      [this.refreshFields.accessToken]: accessToken,
      [this.refreshFields.accessTokenExpiration]: Math.floor(accessExpiresAt / 1000),
      [this.refreshFields.refreshToken]: randomUUID(),
      refresh_token_expiration: Math.floor((Date.now() + REFRESH_TOKEN_TTL_MS) / 1000),
    })
  }

  /** Checks opened in the filtered createdTime range, newest first, within Clover's 90 days. */
  private ordersCreatedIn(filters: string[]): readonly SimCheck[] {
    const now = this.now().getTime()
    let from = now - ORDER_HISTORY_LIMIT_MS
    let to = now
    for (const filter of filters) {
      const [, field, operator, value] = /^(\w+)(>=|<=|>|<)(\d+)$/.exec(filter) ?? []
      if (field !== 'createdTime') continue
      const time = Number(value)
      if (operator === '>=') from = Math.max(from, time)
      if (operator === '>') from = Math.max(from, time + 1)
      if (operator === '<') to = Math.min(to, time)
      if (operator === '<=') to = Math.min(to, time + 1)
    }
    if (from >= to) return []
    const history = { now: this.now(), historyDays: this.historyDays, volume: this.options.volume }
    const closedRange = historyRange(new Date(from), new Date(to + LONGEST_TAB_MS), history)
    return this.orderSearches.get(`${from}:${to}:${closedRange.from}:${closedRange.to}`, () => {
      const closedSoonAfter = checksClosedBetween(this.options.seed, new Date(from), new Date(to + LONGEST_TAB_MS), history)
      return closedSoonAfter.filter((check) => check.openedAt.getTime() >= from && check.openedAt.getTime() < to).reverse()
    })
  }

  private id(kind: string, key: string): string {
    return stableId(this.options.seed, `clover:${kind}:${key}`)
  }

  /** The id of a menu entry, staff member or role: few of them, asked for on every line. */
  private fixedId(kind: string, key: string): string {
    const name = `${kind}:${key}`
    let id = this.fixedIds.get(name)
    if (id === undefined) {
      id = this.id(kind, key)
      this.fixedIds.set(name, id)
    }
    return id
  }

  private item(key: string, expand: Expansions): CloverItem {
    const entry = menuEntry(key)
    const item: CloverItem = { id: this.fixedId('item', key), name: entry.name, sku: entry.sku, price: dollarsToCents(entry.price), priceType: 'FIXED', hidden: false, available: true }
    if (expand.has('categories')) item.categories = { elements: [{ id: this.fixedId('category', entry.category), name: entry.category }] }
    return item
  }

  private employee(staff: StaffEntry, expand: Expansions): CloverEmployee {
    const systemRole = staff.role === 'manager' ? 'MANAGER' : 'EMPLOYEE'
    const employee: CloverEmployee = { id: this.fixedId('employee', staff.key), name: `${staff.firstName} ${staff.lastName}`, nickname: staff.firstName, role: systemRole }
    if (expand.has('roles')) employee.roles = { elements: [{ id: this.fixedId('role', staff.role), name: titleCase(staff.role), systemRole }] }
    return employee
  }

  /** Clover removes a voided line from the order, and writes one line item per unit sold. */
  private lineItems(check: SimCheck): CloverLineItem[] {
    return check.lines
      .filter((line) => !line.voided)
      .flatMap((line) =>
        Array.from({ length: line.quantity }, (_, unit) => ({
          id: this.id('line', `${line.lineId}:${unit}`),
          item: { id: this.fixedId('item', line.itemKey) },
          name: menuEntry(line.itemKey).name,
          price: dollarsToCents(line.unitPrice),
          refunded: line.refunded,
          exchanged: false,
        })),
      )
  }

  private order(check: SimCheck, expand: Expansions): CloverOrder {
    const lines = this.lineItems(check)
    const total = lines.reduce((sum, line) => sum + line.price, 0)
    const refunded = lines.filter((line) => line.refunded).reduce((sum, line) => sum + line.price, 0)
    const paymentId = this.id('payment', check.checkId)
    const staff = STAFF.find((member) => member.key === check.staffKey)!
    const order: CloverOrder = {
      id: this.id('order', check.checkId),
      currency: 'USD',
      state: 'locked',
      paymentState: refunded === 0 ? 'PAID' : refunded === total ? 'REFUNDED' : 'PARTIALLY_REFUNDED',
      total,
      createdTime: check.openedAt.getTime(),
      modifiedTime: check.closedAt.getTime(),
      employee: expand.has('employee') ? this.employee(staff, new Set()) : { id: this.fixedId('employee', staff.key) },
    }
    if (expand.has('lineItems')) order.lineItems = { elements: lines }
    if (expand.has('payments')) {
      order.payments = { elements: [{ id: paymentId, amount: total, tipAmount: dollarsToCents(check.tip), result: 'SUCCESS', createdTime: check.closedAt.getTime() }] }
    }
    if (expand.has('refunds')) {
      const refunds = refunded === 0 ? [] : [{ id: this.id('refund', check.checkId), amount: refunded, createdTime: check.closedAt.getTime(), payment: { id: paymentId } }]
      order.refunds = { elements: refunds }
    }
    return order
  }
}

/** A Clover simulator for one seed; `refreshFields` names the refresh answer's fields as the adapter expects them. */
export function createCloverSimulator(options: SimulatorOptions, refreshFields = DEFAULT_CLOVER_REFRESH_FIELDS): SimulatorHandler {
  const simulator = new CloverSimulator(options, refreshFields)
  return (req, res) => {
    simulator.handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { message: `Simulator error: ${(error as Error).message}` } satisfies CloverError)
    })
  }
}
