import { hash, randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SimulatorHandler, SimulatorOptions } from '../adapter.js'
import { checksClosedBetween, MENU, MODIFIERS, STAFF, type SimCheck } from '../../simulation/bar-data.js'
import { FailureSwitch, readBody, sendJson } from '../../simulation/simulator-server.js'
import { LIGHTSPEED_MAX_PAGE_SIZE } from './lightspeed.client.js'
import { receiptsOfCheck, type ReceiptIds, type ReceiptOptions } from './lightspeed.simulated-receipts.js'
import type {
  LightspeedError,
  LightspeedFinancials,
  LightspeedItem,
  LightspeedOAuthError,
  LightspeedSale,
  LightspeedStaffMember,
  LightspeedStaffPage,
  LightspeedToken,
} from './lightspeed.wire.js'
import { DAY_MS } from '../../../platform/zoned-time.js'

/**
 * Lightspeed K-Series' API subset, served over the simulated bar: `POST /oauth/token` (refresh grant with
 * Basic client auth, single-use refresh tokens), items by offset/amount, the financial API's receipts
 * closed in a range (pages of `pageSize` that begin at the account named by `nextPageToken`, linked by
 * `_links.nextPage.href`, in no particular order, as v1 documents) and the POS users in numbered pages.
 * Query parameters the reference does not list are refused with 400, as are values out of range. Any
 * client is accepted except a secret starting with `invalid`; data calls need a token this simulator
 * issued and that has not expired.
 */

const LONGEST_RANGE_MS = 365 * DAY_MS
/** The bar takes lines back at most 48 hours after closing; a window's receipts come from checks this much older. */
const LATEST_CHANGE_AFTER_CLOSE_MS = 3 * DAY_MS
/** Documented defaults: items `amount` 100, financials `pageSize` 1000, staff `size` 10. */
const DEFAULT_ITEMS_AMOUNT = 100
const DEFAULT_STAFF_PAGE_SIZE = 10
/** How long the simulator's access tokens live (wall clock, as a real token's would); the simulator's choice. */
const ACCESS_TOKEN_TTL_SECONDS = 3600
const SCOPES = 'financial-api items staff-api'

/** The query parameters each route documents. */
const ITEMS_PARAMETERS = ['businessLocationId', 'sku', 'name', 'accountingGroupId', 'itemIds', 'offset', 'amount']
const FINANCIALS_PARAMETERS = ['include', 'pageSize', 'nextPageToken']
const FINANCIALS_INCLUDES = ['staff', 'table', 'consumer', 'payments', 'revenue_center', 'account_profile', 'payment_authorization']
const STAFF_PARAMETERS = ['page', 'size', 'sort', 'isActive', 'startDate', 'endDate']

/** What a location has set up that the simulated bar does not say. */
export interface LightspeedLocationSetup {
  /** Menu keys of items kept without a SKU (K-Series makes the SKU optional): their sales lines carry none. */
  itemsWithoutSku: readonly string[]
  /**
   * Checks the bar cancels in the back office, and when it files each cancellation. K-Series dates such
   * a receipt to the original transaction (a CANCEL receipt at the check's close), so it appears, once
   * filed, in a window already read. None by default.
   */
  backOfficeCancellations?: ReadonlyMap<string, Date>
}

/** The simulator's location keeps the fries without a SKU, as kitchens often do. */
export const DEFAULT_LOCATION_SETUP: LightspeedLocationSetup = { itemsWithoutSku: ['fries'] }

type ErrorWriter = (status: number, message: string, headers?: Record<string, string>) => void

function unknownParameter(url: URL, documented: readonly string[]): string | undefined {
  return [...url.searchParams.keys()].find((name) => !documented.includes(name))
}

class LightspeedSimulator {
  private readonly failures: FailureSwitch
  private readonly accessTokens = new Map<string, number>()
  private readonly spentRefreshTokens = new Set<string>()
  private readonly historyDays: number
  private readonly now: () => Date
  private readonly itemsWithoutSku: ReadonlySet<string>
  private readonly backOfficeCancellations: ReadonlyMap<string, Date>
  private readonly rendered = new WeakMap<SimCheck, { key: string; receipts: LightspeedSale[] }>()
  private readonly ids: ReceiptIds = {
    number: (key) => this.numericId(`receipt:${key}`),
    staff: (key) => this.numericId(`staff:${key}`),
  }

  constructor(
    private readonly options: SimulatorOptions,
    location: LightspeedLocationSetup,
  ) {
    this.failures = new FailureSwitch(options.failure)
    this.historyDays = options.historyDays ?? 120
    this.now = options.now ?? (() => new Date())
    this.itemsWithoutSku = new Set(location.itemsWithoutSku)
    this.backOfficeCancellations = location.backOfficeCancellations ?? new Map()
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const writeError: ErrorWriter = (status, message, headers) => {
      const body: LightspeedError = { status, timestamp: new Date().toISOString(), message }
      sendJson(res, status, body, headers)
    }
    if (await this.failures.intercept(res, writeError)) return
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'simulator'}`)
    if (req.method === 'POST' && url.pathname === '/oauth/token') return this.issueToken(req, await readBody(req), res)
    if (req.method !== 'GET') return writeError(405, 'Method not allowed')
    const staffRoute = /^\/staff\/v1\/businessLocations\/(\d+)\/userTypes\/POS$/.exec(url.pathname)
    const salesRoute = /^\/f\/finance\/(\d+)\/financials\/([^/]+)\/([^/]+)$/.exec(url.pathname)
    const itemsRoute = url.pathname === '/items/v1/items'
    if (!itemsRoute && !staffRoute && !salesRoute) return writeError(404, 'Not found')
    if (!this.acceptsToken(req.headers.authorization)) return writeError(401, 'Unauthorized')
    const unknown = unknownParameter(url, staffRoute ? STAFF_PARAMETERS : salesRoute ? FINANCIALS_PARAMETERS : ITEMS_PARAMETERS)
    if (unknown !== undefined) return writeError(400, `Unknown query parameter '${unknown}'`)
    if (staffRoute) return this.staff(url, res, writeError)
    if (salesRoute) return this.sales(url, decodeURIComponent(salesRoute[2]!), decodeURIComponent(salesRoute[3]!), res, writeError)
    return this.items(url, res, writeError)
  }

  private issueToken(req: IncomingMessage, text: string, res: ServerResponse): void {
    const oauthError = (status: number, error: string, description: string) => sendJson(res, status, { error, error_description: description } satisfies LightspeedOAuthError)
    const basic = /^Basic (\S+)$/.exec(req.headers.authorization ?? '')?.[1]
    const [clientId, clientSecret] = Buffer.from(basic ?? '', 'base64')
      .toString('utf8')
      .split(':')
    if (!clientId || !clientSecret || clientSecret.startsWith('invalid')) return oauthError(401, 'invalid_client', 'Client authentication failed')
    const form = new URLSearchParams(text)
    const unknown = [...form.keys()].find((name) => name !== 'grant_type' && name !== 'refresh_token')
    if (unknown !== undefined) return oauthError(400, 'invalid_request', `Unexpected parameter ${unknown}`)
    if (form.get('grant_type') !== 'refresh_token') return oauthError(400, 'unsupported_grant_type', 'Only refresh_token is supported')
    const refreshToken = form.get('refresh_token')
    if (!refreshToken || refreshToken.startsWith('invalid') || this.spentRefreshTokens.has(refreshToken)) {
      return oauthError(400, 'invalid_grant', 'Invalid refresh token')
    }
    this.spentRefreshTokens.add(refreshToken)
    const accessToken = randomBytes(24).toString('base64url')
    this.accessTokens.set(accessToken, Date.now() + ACCESS_TOKEN_TTL_SECONDS * 1000)
    const token: LightspeedToken = {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_SECONDS,
      refresh_token: randomBytes(24).toString('base64url'),
      scope: SCOPES,
    }
    sendJson(res, 200, token)
  }

  private acceptsToken(header: string | undefined): boolean {
    const token = /^Bearer (\S+)$/.exec(header ?? '')?.[1]
    const expiresAt = token === undefined ? undefined : this.accessTokens.get(token)
    return expiresAt !== undefined && expiresAt > Date.now()
  }

  private numericId(key: string): number {
    // 48 bits: a JSON number survives it exactly.
    return parseInt(hash('sha256', `${this.options.seed}:lightspeed:${key}`, 'hex').slice(0, 12), 16)
  }

  /** The menu and the modifiers (items of their own in K-Series), prices as JSON numbers. */
  private items(url: URL, res: ServerResponse, writeError: ErrorWriter): void {
    const offset = Number(url.searchParams.get('offset') ?? 0)
    const amount = Number(url.searchParams.get('amount') ?? DEFAULT_ITEMS_AMOUNT)
    if (!url.searchParams.get('businessLocationId')) return writeError(400, 'businessLocationId is required')
    if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(amount) || amount < 1 || amount > LIGHTSPEED_MAX_PAGE_SIZE) {
      return writeError(400, `offset must be 0 or more and amount between 1 and ${LIGHTSPEED_MAX_PAGE_SIZE}`)
    }
    const items: LightspeedItem[] = [...MENU, ...MODIFIERS].map((entry) => ({
      id: this.numericId(`item:${entry.key}`),
      name: entry.name,
      ...(this.itemsWithoutSku.has(entry.key) ? {} : { sku: entry.sku }),
      prices: [{ amount: Number(entry.price), name: 'Default' }],
      accountingGroup: { id: this.numericId(`group:${entry.category}`), name: entry.category },
      active: true,
    }))
    sendJson(res, 200, items.slice(offset, offset + amount))
  }

  /** POS users in pages numbered from 1 (`page`, `size`), with links and page info. */
  private staff(url: URL, res: ServerResponse, writeError: ErrorWriter): void {
    const page = Number(url.searchParams.get('page') ?? 1)
    const size = Number(url.searchParams.get('size') ?? DEFAULT_STAFF_PAGE_SIZE)
    if (!Number.isInteger(page) || page < 1 || !Number.isInteger(size) || size < 1) return writeError(400, 'page and size must be 1 or more')
    const staff: LightspeedStaffMember[] = STAFF.map((member) => ({
      staffId: this.numericId(`staff:${member.key}`),
      username: `${member.firstName} ${member.lastName}`,
      firstName: member.firstName,
      lastName: member.lastName,
      active: true,
    }))
    const totalPages = Math.max(1, Math.ceil(staff.length / size))
    const linkTo = (target: number) => {
      const link = new URL(url)
      link.searchParams.set('page', String(target))
      link.searchParams.set('size', String(size))
      return { href: link.toString() }
    }
    const body: LightspeedStaffPage = {
      data: { staff: staff.slice((page - 1) * size, page * size) },
      links: { first: linkTo(1), self: linkTo(page), last: linkTo(totalPages), ...(page < totalPages ? { next: linkTo(page + 1) } : {}) },
      page: { page, size, totalElements: staff.length, totalPages },
    }
    sendJson(res, 200, body)
  }

  /** A check's receipts, rendered once for a moment and a set of includes: the pages of a listing all ask again. */
  private receiptsOf(check: SimCheck, now: Date, options: ReceiptOptions): LightspeedSale[] {
    const key = `${now.getTime()}:${options.withStaffNames}:${options.withPayments}`
    const cached = this.rendered.get(check)
    if (cached?.key === key) return cached.receipts
    const receipts = receiptsOfCheck(check, now, this.ids, options)
    this.rendered.set(check, { key, receipts })
    return receipts
  }

  /** Receipts closed in [from, to) as of now, ordered by account id (v1 promises no order). */
  private sales(url: URL, fromText: string, toText: string, res: ServerResponse, writeError: ErrorWriter): void {
    const from = new Date(fromText)
    const to = new Date(toText)
    if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || from >= to) return writeError(400, 'from and to must be ISO 8601 times, from before to')
    if (to.getTime() - from.getTime() > LONGEST_RANGE_MS) return writeError(400, 'The range cannot exceed 365 days')
    const pageSize = Number(url.searchParams.get('pageSize') ?? LIGHTSPEED_MAX_PAGE_SIZE)
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > LIGHTSPEED_MAX_PAGE_SIZE) return writeError(400, `pageSize must be between 1 and ${LIGHTSPEED_MAX_PAGE_SIZE}`)
    const include = (url.searchParams.get('include') ?? '').split(',').filter(Boolean)
    const unknownInclude = include.find((name) => !FINANCIALS_INCLUDES.includes(name))
    if (unknownInclude !== undefined) return writeError(400, `Unknown include '${unknownInclude}'`)
    const now = this.now()
    const options = {
      withStaffNames: include.includes('staff'),
      withPayments: include.includes('payments'),
      itemsWithoutSku: this.itemsWithoutSku,
      backOfficeCancellations: this.backOfficeCancellations,
    }
    const history = { now, historyDays: this.historyDays, volume: this.options.volume }
    const receipts = checksClosedBetween(this.options.seed, new Date(from.getTime() - LATEST_CHANGE_AFTER_CLOSE_MS), to, history)
      .flatMap((check) => this.receiptsOf(check, now, options))
      .filter((receipt) => receipt.timeofCloseAndPaid >= from.toISOString() && receipt.timeofCloseAndPaid < to.toISOString())
      .sort((a, b) => a.accountFiscId.localeCompare(b.accountFiscId))
    // "The accountId where the results should begin."
    const pageToken = url.searchParams.get('nextPageToken')
    const offset = pageToken === null ? 0 : receipts.findIndex((receipt) => receipt.accountFiscId === pageToken)
    if (offset < 0) return writeError(400, `Invalid nextPageToken '${pageToken}'`)
    const body: LightspeedFinancials = {
      businessLocationId: Number(url.pathname.split('/')[3]),
      sales: receipts.slice(offset, offset + pageSize),
      dataComplete: true,
      _links: { self: { href: url.toString() } },
    }
    const next = receipts[offset + pageSize]
    if (next) {
      const link = new URL(url)
      link.searchParams.set('nextPageToken', next.accountFiscId)
      body._links = { ...body._links, nextPage: { href: link.toString() } }
    }
    sendJson(res, 200, body)
  }
}

export function createLightspeedSimulator(options: SimulatorOptions, location: LightspeedLocationSetup = DEFAULT_LOCATION_SETUP): SimulatorHandler {
  const simulator = new LightspeedSimulator(options, location)
  return (req, res) => {
    simulator.handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, { status: 500, timestamp: new Date().toISOString(), message: `Simulator error: ${(error as Error).message}` } satisfies LightspeedError)
    })
  }
}
