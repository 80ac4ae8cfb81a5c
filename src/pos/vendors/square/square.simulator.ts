import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SimulatorHandler, SimulatorOptions } from '../adapter.js'
import { checksClosedBetween, STAFF } from '../../simulation/bar-data.js'
import { BoundedCache } from '../../simulation/bounded-cache.js'
import { FailureSwitch, readBody, sendJson } from '../../simulation/simulator-server.js'
import type { SquareError, SquareObtainTokenResponse, SquareRefreshTokenRequest, SquareTeamMember } from './square.client.js'
import {
  bodyViolation,
  LIST_CATALOG_QUERY,
  LIST_PAYMENTS_QUERY,
  OBTAIN_TOKEN_BODY,
  queryViolation,
  SEARCH_ORDERS_BODY,
  SEARCH_TEAM_MEMBERS_BODY,
  type ObjectShape,
  type ShapeViolation,
} from './square.request-shapes.js'
import { orderState, ordersOfCheck, paymentsOfCheck, SquareIds, SquareRenderer, type OrderRef, type PaymentRef } from './square.simulator-render.js'
import { DAY_MS } from '../../../platform/zoned-time.js'

/**
 * Square's Connect v2 API subset, serving the simulated bar (rendered by square.simulator-render.ts):
 * RetrieveLocation, ListCatalog (pages of 100), SearchOrders (closed_at filter, both ends inclusive as
 * Square documents; state filter; cursor; limit ≤ 1000), ListPayments (limit ≤ 100), SearchTeamMembers,
 * and ObtainToken with a refresh token. Requests are checked against square.request-shapes.ts. Any bearer
 * token is accepted except one starting with `invalid` (Square's 401) and one it issued that has
 * expired (401 ACCESS_TOKEN_EXPIRED).
 */

const HOUR_MS = 3_600_000
const DEFAULT_HISTORY_DAYS = 120
const CATALOG_PAGE_SIZE = 100
const ORDERS_DEFAULT_LIMIT = 500
const ORDERS_MAX_LIMIT = 1000
const PAYMENTS_MAX_LIMIT = 100
const TEAM_MEMBERS_MAX_LIMIT = 200
/** The bar takes a line back at most 48 hours after its check closed, and closes a reopened check within the hour. */
const LATEST_AFTER_CLOSE_MS = 48 * HOUR_MS
/** PKCE refresh tokens expire in 90 days (ObtainTokenResponse.refresh_token). */
const PKCE_REFRESH_TOKEN_TTL_MS = 90 * DAY_MS

export interface SquareSimulatorConfig {
  /** ISO 4217 code of the seller's currency; the bar's cents are its minor units. */
  currency: string
  /** How long an access token from ObtainToken lasts (Square: 30 days), on the simulator's clock. */
  accessTokenTtlMs: number
  /**
   * The most orders a SearchOrders page holds, whatever `limit` asks: square.json calls `limit` "the
   * maximum number of results to be returned in a single page" (a test reads a few days in several pages).
   */
  ordersPerPage: number
}

export const DEFAULT_SQUARE_SIMULATOR_CONFIG: SquareSimulatorConfig = { currency: 'USD', accessTokenTtlMs: 30 * DAY_MS, ordersPerPage: ORDERS_MAX_LIMIT }

const ERROR_CATEGORIES: Record<number, string> = {
  400: 'INVALID_REQUEST_ERROR',
  401: 'AUTHENTICATION_ERROR',
  404: 'INVALID_REQUEST_ERROR',
  429: 'RATE_LIMIT_ERROR',
}
const DEFAULT_CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  404: 'NOT_FOUND',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
}

/** A request the simulator refuses, answered with Square's error body. */
class SquareRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly field?: string,
  ) {
    super(detail)
  }

  static of(violation: ShapeViolation): SquareRequestError {
    return new SquareRequestError(400, violation.code, violation.detail, violation.field)
  }
}

function writeSquareError(res: ServerResponse, status: number, detail: string, headers: Record<string, string> = {}, code?: string, field?: string): void {
  const error: SquareError = {
    category: ERROR_CATEGORIES[status] ?? 'API_ERROR',
    code: code ?? DEFAULT_CODES[status] ?? 'INTERNAL_SERVER_ERROR',
    detail,
    ...(field ? { field } : {}),
  }
  sendJson(res, status, { errors: [error] }, headers)
}

function earlier(a: Date, b: Date): Date {
  return a < b ? a : b
}

function encodeCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString('base64url')
}

function decodeCursor(cursor: unknown): number {
  if (cursor === undefined || cursor === null || cursor === '') return 0
  const match = /^offset:(\d+)$/.exec(Buffer.from(String(cursor), 'base64url').toString())
  if (!match) throw new SquareRequestError(400, 'INVALID_CURSOR', 'The pagination cursor is invalid.', 'cursor')
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
  if (!Number.isInteger(limit) || limit < 1) throw new SquareRequestError(400, 'INVALID_VALUE', `limit must be a positive integer, got ${String(value)}`, 'limit')
  return Math.min(limit, max)
}

function timeOf(value: unknown, fallback: Date, field: string): Date {
  if (value === undefined || value === null || value === '') return fallback
  const time = Date.parse(String(value))
  if (Number.isNaN(time)) throw new SquareRequestError(400, 'INVALID_TIME', `${field} is not an RFC 3339 timestamp`, field)
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

/** A JSON body that fits `shape`, else Square's 400 naming the field. */
function parseBody<T>(text: string, shape: ObjectShape): T {
  let body: unknown
  try {
    body = text ? JSON.parse(text) : {}
  } catch {
    throw new SquareRequestError(400, 'EXPECTED_JSON_BODY', 'The request body is not valid JSON.')
  }
  const violation = bodyViolation(body, shape)
  if (violation) throw SquareRequestError.of(violation)
  return body as T
}

function checkQuery(query: URLSearchParams, allowed: readonly string[]): void {
  const violation = queryViolation(query, allowed)
  if (violation) throw SquareRequestError.of(violation)
}

/** Tokens ObtainToken handed out: access tokens with their expiry, refresh tokens already spent. */
class TokenDesk {
  private readonly accessExpiry = new Map<string, number>()
  private readonly spentRefreshTokens = new Set<string>()

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => Date,
  ) {}

  /**
   * With `client_secret` (the code flow) the same refresh token comes back and stays valid; without it
   * (the PKCE flow) the refresh token is single-use and a new one comes back.
   */
  refresh(body: Partial<SquareRefreshTokenRequest>): SquareObtainTokenResponse {
    if (!body.client_id) throw new SquareRequestError(400, 'MISSING_REQUIRED_PARAMETER', 'client_id is required', 'client_id')
    if (!body.grant_type) throw new SquareRequestError(400, 'MISSING_REQUIRED_PARAMETER', 'grant_type is required', 'grant_type')
    const refreshToken = body.refresh_token
    if (!refreshToken) throw new SquareRequestError(400, 'MISSING_REQUIRED_PARAMETER', 'refresh_token is required', 'refresh_token')
    if (refreshToken.startsWith('invalid') || this.spentRefreshTokens.has(refreshToken)) {
      throw new SquareRequestError(401, 'UNAUTHORIZED', 'The refresh token is not valid.')
    }
    const now = this.now().getTime()
    const accessToken = `EAAA${randomUUID().replaceAll('-', '')}`
    this.accessExpiry.set(accessToken, now + this.ttlMs)
    const answer: SquareObtainTokenResponse = {
      access_token: accessToken,
      token_type: 'bearer',
      expires_at: new Date(now + this.ttlMs).toISOString(),
      merchant_id: 'MLSIMBAR000001',
      short_lived: false,
    }
    if (body.client_secret) return { ...answer, refresh_token: refreshToken }
    this.spentRefreshTokens.add(refreshToken)
    return { ...answer, refresh_token: `EQAA${randomUUID().replaceAll('-', '')}`, refresh_token_expires_at: new Date(now + PKCE_REFRESH_TOKEN_TTL_MS).toISOString() }
  }

  /** Throws Square's 401 unless `token` may call the API now. */
  authorise(token: string | undefined): void {
    if (!token || token.startsWith('invalid')) throw new SquareRequestError(401, 'UNAUTHORIZED', 'This request could not be authorized.')
    const expiresAt = this.accessExpiry.get(token)
    if (expiresAt !== undefined && this.now().getTime() >= expiresAt) {
      throw new SquareRequestError(401, 'ACCESS_TOKEN_EXPIRED', 'The access token has expired.')
    }
  }
}

class SquareSimulator {
  private readonly failures: FailureSwitch
  private readonly ids: SquareIds
  private readonly now: () => Date
  private readonly historyDays: number
  private readonly tokens: TokenDesk
  private readonly teamMembers: SquareTeamMember[]
  // A search's results, kept while its pages are read: each page is then a slice, not the whole window again.
  private readonly orderSearches = new BoundedCache<string, readonly OrderRef[]>(4)
  private readonly paymentSearches = new BoundedCache<string, readonly PaymentRef[]>(4)

  constructor(
    private readonly options: SimulatorOptions,
    private readonly config: SquareSimulatorConfig,
  ) {
    this.failures = new FailureSwitch(options.failure)
    this.ids = new SquareIds(options.seed)
    this.now = options.now ?? (() => new Date())
    this.historyDays = options.historyDays ?? DEFAULT_HISTORY_DAYS
    this.tokens = new TokenDesk(config.accessTokenTtlMs, this.now)
    this.teamMembers = STAFF.map((staff) => this.renderer('').teamMember(staff))
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (await this.failures.intercept(res, (status, message, headers) => writeSquareError(res, status, message, headers))) return
    const url = new URL(req.url ?? '/', 'http://simulator')
    try {
      sendJson(res, 200, await this.route(req, url))
    } catch (error) {
      if (!(error instanceof SquareRequestError)) throw error
      writeSquareError(res, error.status, error.message, {}, error.code, error.field)
    }
  }

  private async route(req: IncomingMessage, url: URL): Promise<unknown> {
    const method = req.method ?? 'GET'
    // ObtainToken is the one call made without an access token.
    if (method === 'POST' && url.pathname === '/oauth2/token') return this.tokens.refresh(parseBody(await readBody(req), OBTAIN_TOKEN_BODY))
    this.authorise(req)
    const location = /^\/v2\/locations\/([^/]+)$/.exec(url.pathname)
    if (method === 'GET' && location) {
      checkQuery(url.searchParams, [])
      const id = decodeURIComponent(location[1] as string)
      return { location: { id, name: 'Simulated Bar', status: 'ACTIVE', currency: this.config.currency, timezone: 'Etc/UTC' } }
    }
    if (method === 'GET' && url.pathname === '/v2/catalog/list') return this.listCatalog(url.searchParams)
    if (method === 'POST' && url.pathname === '/v2/orders/search') return this.searchOrders(parseBody(await readBody(req), SEARCH_ORDERS_BODY))
    if (method === 'GET' && url.pathname === '/v2/payments') return this.listPayments(url.searchParams)
    if (method === 'POST' && url.pathname === '/v2/team-members/search') {
      const body = parseBody<{ limit?: number; cursor?: string }>(await readBody(req), SEARCH_TEAM_MEMBERS_BODY)
      const { page, cursor } = pageOf(this.teamMembers, body.cursor, limitOf(body.limit, 100, TEAM_MEMBERS_MAX_LIMIT))
      return { team_members: page, cursor }
    }
    throw new SquareRequestError(404, 'NOT_FOUND', `Resource not found: ${method} ${url.pathname}`)
  }

  private authorise(req: IncomingMessage): void {
    this.tokens.authorise(/^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1])
    const version = req.headers['square-version']
    if (version !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(String(version))) {
      throw new SquareRequestError(400, 'INVALID_SQUARE_VERSION_FORMAT', `Invalid Square-Version ${String(version)}`)
    }
  }

  private renderer(locationId: string): SquareRenderer {
    return new SquareRenderer(this.ids, this.config.currency, locationId)
  }

  private listCatalog(query: URLSearchParams): unknown {
    checkQuery(query, LIST_CATALOG_QUERY)
    const types = query
      .get('types')
      ?.toUpperCase()
      .split(',')
      .map((type) => type.trim()) ?? ['ITEM', 'CATEGORY', 'MODIFIER_LIST']
    const objects = this.renderer('').catalog()
    const { page, cursor } = pageOf(
      objects.filter((object) => types.includes(object.type)),
      query.get('cursor'),
      CATALOG_PAGE_SIZE,
    )
    return { objects: page, cursor }
  }

  private searchOrders(body: SearchOrdersBody): unknown {
    const locationId = body.location_ids?.[0]
    if (!locationId) throw new SquareRequestError(400, 'MISSING_REQUIRED_PARAMETER', 'location_ids must name at least one location', 'location_ids')
    const closedAt = body.query?.filter?.date_time_filter?.closed_at
    const sort = body.query?.sort
    if (closedAt && sort?.sort_field !== 'CLOSED_AT') {
      throw new SquareRequestError(400, 'BAD_REQUEST', 'A closed_at filter requires sorting by CLOSED_AT')
    }
    const states = body.query?.filter?.state_filter?.states
    // Square's default order is newest first.
    const newestFirst = sort?.sort_order !== 'ASC'
    const start = timeOf(closedAt?.start_at, new Date(this.now().getTime() - this.historyDays * DAY_MS), 'start_at')
    const until = earlier(timeOf(closedAt?.end_at, this.now(), 'end_at'), this.now())
    const key = `${start.getTime()}:${until.getTime()}:${JSON.stringify(states)}:${newestFirst}`
    const orders = this.orderSearches.get(key, () => this.ordersClosedBetween(start, until, states, newestFirst))
    const { page, cursor } = pageOf(orders, body.cursor, Math.min(limitOf(body.limit, ORDERS_DEFAULT_LIMIT, ORDERS_MAX_LIMIT), this.config.ordersPerPage))
    const asOf = this.now()
    const renderer = this.renderer(locationId)
    return { orders: page.map((order) => renderer.order(order, asOf)), cursor }
  }

  /**
   * Orders closed in [start, until], both ends inclusive as Square's SearchOrdersDateTimeFilter says.
   * `until` is no later than now, so the list is the same whenever its pages are read.
   */
  private ordersClosedBetween(start: Date, until: Date, states: readonly string[] | undefined, newestFirst: boolean): OrderRef[] {
    // Returns and reopened rounds close after their check: look back far enough to find their checks.
    const checks = this.checksClosedBetween(new Date(start.getTime() - LATEST_AFTER_CLOSE_MS), new Date(until.getTime() + 1))
    const orders = checks
      .flatMap((check) => ordersOfCheck(check, until))
      .filter((order) => order.closedAt >= start && (!states || states.includes(orderState(order))))
      .sort((a, b) => a.closedAt.getTime() - b.closedAt.getTime())
    return newestFirst ? orders.reverse() : orders
  }

  private listPayments(query: URLSearchParams): unknown {
    checkQuery(query, LIST_PAYMENTS_QUERY)
    const locationId = query.get('location_id') ?? 'MAIN'
    const newestFirst = query.get('sort_order') !== 'ASC'
    const start = timeOf(query.get('begin_time'), new Date(this.now().getTime() - 365 * DAY_MS), 'begin_time')
    const end = earlier(timeOf(query.get('end_time'), this.now(), 'end_time'), new Date(this.now().getTime() + 1))
    const key = `${start.getTime()}:${end.getTime()}:${newestFirst}`
    const payments = this.paymentSearches.get(key, () => this.paymentsCreatedBetween(start, end, newestFirst))
    const { page, cursor } = pageOf(payments, query.get('cursor'), limitOf(query.get('limit'), PAYMENTS_MAX_LIMIT, PAYMENTS_MAX_LIMIT))
    const renderer = this.renderer(locationId)
    return { payments: page.map((payment) => renderer.payment(payment)), cursor }
  }

  /** Payments created in [start, end) (begin_time is inclusive; ⚠ end_time taken as exclusive); `end` is at most just after now. */
  private paymentsCreatedBetween(start: Date, end: Date, newestFirst: boolean): PaymentRef[] {
    const asOf = new Date(end.getTime() - 1)
    const checks = this.checksClosedBetween(new Date(start.getTime() - LATEST_AFTER_CLOSE_MS), end)
    const payments = checks
      .flatMap((check) => paymentsOfCheck(check, asOf))
      .filter((payment) => payment.createdAt >= start)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
    return newestFirst ? payments.reverse() : payments
  }

  private checksClosedBetween(start: Date, end: Date) {
    return checksClosedBetween(this.options.seed, start, end, { now: this.now(), historyDays: this.historyDays, volume: this.options.volume })
  }
}

/** A Square simulator for one seed; `config` sets the seller's currency and the access tokens' lifetime. */
export function createSquareSimulator(options: SimulatorOptions, config: SquareSimulatorConfig = DEFAULT_SQUARE_SIMULATOR_CONFIG): SimulatorHandler {
  const simulator = new SquareSimulator(options, config)
  return (req, res) => {
    simulator.handle(req, res).catch((error: Error) => writeSquareError(res, 500, error.message))
  }
}
