import { createHash, randomBytes } from 'node:crypto'
import type Big from 'big.js'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SimulatorHandler, SimulatorOptions } from '../../adapter.js'
import { decimal, MONEY_DECIMALS, sum } from '../../../platform/decimal.js'
import { checksClosedBetween, MENU, menuEntry, STAFF, type SimCheck, type SimLine } from '../../simulation/bar-data.js'
import { FailureSwitch, readBody, sendJson } from '../../simulation/simulator-server.js'
import {
  LIGHTSPEED_MAX_PAGE_SIZE,
  type LightspeedError,
  type LightspeedFinancials,
  type LightspeedItem,
  type LightspeedOAuthError,
  type LightspeedSale,
  type LightspeedSalesLine,
  type LightspeedToken,
} from './lightspeed.client.js'
import type { LightspeedStaffMember, LightspeedStaffPage } from './lightspeed.wire.js'

/**
 * Lightspeed K-Series' API subset, served over the simulated bar: `POST /oauth/token` (refresh grant with
 * Basic client auth, single-use refresh tokens), items by offset/amount, the financial API's sales by
 * closing time with `pageSize`/`nextPageToken` pages and `_links.nextPage.href`, and the POS users. Any
 * client is accepted except a secret starting with `invalid`; data calls need a token this simulator
 * issued and that has not expired.
 */

const DAY_MS = 86_400_000
const LONGEST_RANGE_MS = 365 * DAY_MS
const DEFAULT_PAGE_SIZE = 100
/** The staff API's default `size`. */
const DEFAULT_STAFF_PAGE_SIZE = 10
/** How long the simulator's access tokens live (wall clock, as a real token's would); the simulator's choice. */
const ACCESS_TOKEN_TTL_SECONDS = 3600
const SCOPES = 'financial-api items staff-api'
/** The bar's voids, as the register records them. */
const VOID_REASON = 'Entered by mistake'

type ErrorWriter = (status: number, message: string, headers?: Record<string, string>) => void

function money(value: Big): string {
  return value.toFixed(MONEY_DECIMALS)
}

class LightspeedSimulator {
  private readonly failures: FailureSwitch
  private readonly accessTokens = new Map<string, number>()
  private readonly spentRefreshTokens = new Set<string>()
  private readonly historyDays: number
  private readonly now: () => Date

  constructor(private readonly options: SimulatorOptions) {
    this.failures = new FailureSwitch(options.failure)
    this.historyDays = options.historyDays ?? 120
    this.now = options.now ?? (() => new Date())
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
    if (url.pathname !== '/items/v1/items' && !staffRoute && !salesRoute) return writeError(404, 'Not found')
    if (!this.acceptsToken(req.headers.authorization)) return writeError(401, 'Unauthorized')
    if (staffRoute) return this.staff(url, res, writeError)
    if (salesRoute) return this.sales(url, decodeURIComponent(salesRoute[2]!), decodeURIComponent(salesRoute[3]!), res, writeError)
    return this.items(url, res, writeError)
  }

  private issueToken(req: IncomingMessage, text: string, res: ServerResponse): void {
    const oauthError = (status: number, error: string, description: string) => sendJson(res, status, { error, error_description: description } satisfies LightspeedOAuthError)
    const basic = /^Basic (\S+)$/.exec(req.headers.authorization ?? '')?.[1]
    const [clientId, clientSecret] = Buffer.from(basic ?? '', 'base64').toString('utf8').split(':')
    if (!clientId || !clientSecret || clientSecret.startsWith('invalid')) return oauthError(401, 'invalid_client', 'Client authentication failed')
    const form = new URLSearchParams(text)
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
    return parseInt(createHash('sha256').update(`${this.options.seed}:lightspeed:${key}`).digest('hex').slice(0, 12), 16)
  }

  private items(url: URL, res: ServerResponse, writeError: ErrorWriter): void {
    const offset = Number(url.searchParams.get('offset') ?? 0)
    const amount = Number(url.searchParams.get('amount') ?? DEFAULT_PAGE_SIZE)
    if (!url.searchParams.get('businessLocationId')) return writeError(400, 'businessLocationId is required')
    if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(amount) || amount < 1 || amount > LIGHTSPEED_MAX_PAGE_SIZE) {
      return writeError(400, `offset must be 0 or more and amount between 1 and ${LIGHTSPEED_MAX_PAGE_SIZE}`)
    }
    const items: LightspeedItem[] = MENU.map((entry) => ({
      id: this.numericId(`item:${entry.key}`),
      name: entry.name,
      sku: entry.sku,
      prices: [{ amount: entry.price, name: 'Default' }],
      accountingGroup: { id: this.numericId(`group:${entry.category}`), name: entry.category },
      active: true,
    }))
    sendJson(res, 200, items.slice(offset, offset + amount))
  }

  /** POS users in pages numbered from 1 (`page`, `size`, default 10), with links and page info. */
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

  private sales(url: URL, fromText: string, toText: string, res: ServerResponse, writeError: ErrorWriter): void {
    const from = new Date(fromText)
    const to = new Date(toText)
    if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || from >= to) return writeError(400, 'from and to must be ISO 8601 times, from before to')
    if (to.getTime() - from.getTime() > LONGEST_RANGE_MS) return writeError(400, 'The range cannot exceed 365 days')
    const pageSize = Number(url.searchParams.get('pageSize') ?? DEFAULT_PAGE_SIZE)
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > LIGHTSPEED_MAX_PAGE_SIZE) return writeError(400, `pageSize must be between 1 and ${LIGHTSPEED_MAX_PAGE_SIZE}`)
    const pageToken = url.searchParams.get('nextPageToken')
    const offset = pageToken === null ? 0 : Number(Buffer.from(pageToken, 'base64url').toString('utf8'))
    if (!Number.isInteger(offset) || offset < 0) return writeError(400, 'Invalid nextPageToken')
    const include = new Set((url.searchParams.get('include') ?? '').split(','))
    const receipts = checksClosedBetween(this.options.seed, from, to, { now: this.now(), historyDays: this.historyDays, volume: this.options.volume }).flatMap((check) => this.receiptsOf(check, include))
    const body: LightspeedFinancials = { sales: receipts.slice(offset, offset + pageSize), nextPageToken: null, _links: {} }
    if (offset + pageSize < receipts.length) {
      const next = new URL(url)
      next.searchParams.set('nextPageToken', Buffer.from(String(offset + pageSize)).toString('base64url'))
      body.nextPageToken = next.searchParams.get('nextPageToken')
      body._links = { nextPage: { href: next.toString() } }
    }
    sendJson(res, 200, body)
  }

  /** A check's SALE receipt and, when lines of it were refunded, the REFUND receipt holding them. */
  private receiptsOf(check: SimCheck, include: ReadonlySet<string>): LightspeedSale[] {
    const staff = STAFF.find((member) => member.key === check.staffKey)!
    const lineOf = (line: SimLine, sign: 1 | -1): LightspeedSalesLine => {
      const entry = menuEntry(line.itemKey)
      const salesLine: LightspeedSalesLine = {
        id: String(this.numericId(`line:${line.lineId}:${sign}`)),
        sku: entry.sku,
        name: entry.name,
        quantity: String(sign * line.quantity),
        totalNetAmountWithTax: money(decimal(line.unitPrice).times(sign * line.quantity)),
        staffId: this.numericId(`staff:${staff.key}`),
        voidReason: line.voided ? VOID_REASON : null,
      }
      if (include.has('staff')) salesLine.staffName = `${staff.firstName} ${staff.lastName}`
      return salesLine
    }
    const receipt = (suffix: string, type: LightspeedSale['type'], salesLines: LightspeedSalesLine[], tip: string): LightspeedSale => {
      const sale: LightspeedSale = { receiptId: `R${this.numericId(`receipt:${check.checkId}${suffix}`)}`, type, cancelled: false, timeofCloseAndPaid: check.closedAt.toISOString(), salesLines }
      const paid = sum(salesLines.filter((line) => !line.voidReason).map((line) => decimal(line.totalNetAmountWithTax)))
      if (include.has('payments')) sale.payments = [{ code: 'CARD', description: 'Card', netAmountWithTax: money(paid.plus(tip)), tip }]
      return sale
    }
    // ⚠ How K-Series ties a refund to its sale is unconfirmed; the bar's refunded lines live only on
    // the REFUND receipt, which is what the adapter's rules (drop REFUND receipts) are written for.
    const sale = receipt('', 'SALE', check.lines.filter((line) => !line.refunded).map((line) => lineOf(line, 1)), check.tip)
    const refunded = check.lines.filter((line) => line.refunded)
    if (refunded.length === 0) return [sale]
    return [sale, receipt(':refund', 'REFUND', refunded.map((line) => lineOf(line, -1)), '0.00')]
  }
}

export function createLightspeedSimulator(options: SimulatorOptions): SimulatorHandler {
  const simulator = new LightspeedSimulator(options)
  return (req, res) => {
    simulator.handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { status: 500, timestamp: new Date().toISOString(), message: `Simulator error: ${(error as Error).message}` } satisfies LightspeedError)
    })
  }
}
