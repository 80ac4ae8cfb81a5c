import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { type TSchema, Type } from 'typebox'
import Value from 'typebox/value'
import type { SimulatorHandler, SimulatorOptions } from '../adapter.js'
import { decimal, sum } from '../../../platform/decimal.js'
import { checksForDay, MENU, MODIFIERS, seededRandom, STAFF, type SimCheck, type SimLine } from '../../simulation/bar-data.js'
import { FailureSwitch, readBody, sendJson } from '../../simulation/simulator-server.js'
import { OIDC_PATH, pkceChallenge, simphonyUtc, type SimphonyError, type SimphonySignInAnswer, type SimphonyTokens } from './simphony.client.js'
import { DAY_MS } from '../../../platform/zoned-time.js'

/**
 * Simphony's auth server and BI API on one host, serving the simulated bar. Sign-in is the PKCE flow
 * (authorize sets a session cookie, sign-in needs it and refuses a password starting with `invalid`,
 * the token endpoint checks the code verifier); id tokens expire and refresh tokens are single-use.
 * BI calls are POSTs with a JSON body and a bearer id_token, checked against the operation's documented
 * request fields; BI errors are HTTP 400 with a numeric code.
 *
 * Guest checks are rendered as the BI API shows them at the simulator's `now()`: condiments are detail
 * lines linked to their parent by `parDtlId`; every take-back (a void before close, a return, a void
 * after close) is a detail line of its own with a negative count and total beside the line it takes
 * back; returns, voids after close and lines added on reopening are made on the reopened check, which
 * then carries `reopnClsdChkClsdUTC`; and a few checks reach the BI API late.
 */

/** The simulator's own token lifetime: the adapter trusts `expires_in`, whatever it is. */
const TOKEN_LIFETIME_S = 3600
const MAX_PENDING_SIGN_INS = 1000
const HOUR_MS = 3_600_000
const FIRST_MENU_ITEM_NUM = 10_001
const FIRST_EMPLOYEE_NUM = 101
/** Guest check ids are day × CHECK_ID_DAY + check number of the day. */
const CHECK_ID_DAY = 10_000
/** The simulated location's business day starts at 06:00 UTC (its bar trades 16:00 to 02:00 UTC). */
const BUSINESS_DAY_START_HOUR_UTC = 6
/** A return comes at most 48 hours after the close, so a re-close is at most this many business dates later. */
const REOPEN_REACH_DAYS = 3
/** The simulator's own choice: this share of checks reaches the BI API late (a workstation offline, an upload queued). */
const LATE_POSTING_RATE = 0.03
const LATE_POSTING_MAX_MINUTES = 180
/** Menu items then modifiers (condiments are menu items in Simphony), numbered from FIRST_MENU_ITEM_NUM. */
const CATALOG = [...MENU, ...MODIFIERS]
const MENU_ITEM_NUMS = new Map(CATALOG.map((entry, index) => [entry.key, FIRST_MENU_ITEM_NUM + index]))
/** The one revenue center of the simulated location. */
const RVC_NUM = 1

interface PendingSignIn {
  clientId: string
  challenge: string
  code?: string
  org?: string
}

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}, errorCode = status * 100): void {
  const body: SimphonyError = { errorCode, message }
  sendJson(res, status, body, headers)
}

function sendOAuthError(res: ServerResponse, error: string, description: string): void {
  sendJson(res, 400, { error, error_description: description })
}

export function createSimphonySimulator(options: SimulatorOptions): SimulatorHandler {
  const failures = new FailureSwitch(options.failure)
  const server = new SimphonyServer(options)
  return (req, res) => {
    handle(req, res, failures, server).catch((error: Error) => sendError(res, 500, error.message))
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, failures: FailureSwitch, server: SimphonyServer): Promise<void> {
  if (await failures.intercept(res, (status, message, headers) => sendError(res, status, message, headers))) return
  const url = new URL(req.url ?? '/', 'http://simulator')
  const body = req.method === 'POST' ? await readBody(req) : ''
  if (req.method === 'GET' && url.pathname === `${OIDC_PATH}/authorize`) return server.authorize(url.searchParams, res)
  if (req.method === 'POST' && url.pathname === `${OIDC_PATH}/signin`) return server.signIn(req, new URLSearchParams(body), res)
  if (req.method === 'POST' && url.pathname === `${OIDC_PATH}/token`) return server.token(new URLSearchParams(body), res)
  const bi = /^\/bi\/v1\/([^/]+)\/([A-Za-z]+)$/.exec(url.pathname)
  if (req.method === 'POST' && bi) return server.bi(decodeURIComponent(bi[1]!), bi[2]!, req.headers.authorization, body, res)
  sendError(res, 404, 'Not found')
}

class SimphonyServer {
  private readonly now: () => Date
  private readonly historyDays: number
  private readonly signIns = new Map<string, PendingSignIn>()
  private readonly idTokens = new Map<string, { org: string; expiresAt: number }>()
  private readonly refreshTokens = new Map<string, { org: string; clientId: string }>()

  constructor(private readonly options: SimulatorOptions) {
    this.now = options.now ?? (() => new Date())
    this.historyDays = options.historyDays ?? 120
  }

  authorize(query: URLSearchParams, res: ServerResponse): void {
    const clientId = query.get('client_id')
    const challenge = query.get('code_challenge')
    const complete = query.get('response_type') === 'code' && clientId && challenge && query.get('redirect_uri')
    if (!complete || query.get('code_challenge_method') !== 'S256') {
      return sendError(res, 400, 'authorize needs response_type=code, client_id, redirect_uri and an S256 code_challenge')
    }
    const session = randomBytes(16).toString('hex')
    // Abandoned sign-ins are forgotten, oldest first, so a long-lived sandbox does not grow without end.
    if (this.signIns.size >= MAX_PENDING_SIGN_INS) this.signIns.delete(this.signIns.keys().next().value as string)
    this.signIns.set(session, { clientId, challenge })
    res.writeHead(200, { 'set-cookie': `JSESSIONID=${session}; Path=/; Secure; HttpOnly` }).end()
  }

  signIn(req: IncomingMessage, form: URLSearchParams, res: ServerResponse): void {
    const session = /JSESSIONID=([0-9a-f]+)/.exec(req.headers.cookie ?? '')?.[1]
    const pending = session ? this.signIns.get(session) : undefined
    if (!pending) return sendError(res, 400, 'No sign-in session: call authorize first and send its cookie')
    const username = form.get('username')
    const password = form.get('password')
    const org = form.get('orgname')
    if (!username || !password || !org || password.startsWith('invalid')) {
      return sendError(res, 401, 'Invalid username, password or organization')
    }
    pending.code = randomBytes(16).toString('hex')
    pending.org = org
    const answer: SimphonySignInAnswer = { success: true, redirectUrl: `apiaccount://callback?code=${pending.code}` }
    sendJson(res, 200, answer)
  }

  token(form: URLSearchParams, res: ServerResponse): void {
    if (form.get('grant_type') === 'refresh_token') {
      const refreshToken = form.get('refresh_token') ?? ''
      const grant = this.refreshTokens.get(refreshToken)
      // Single-use: a refresh token is spent by its first use.
      this.refreshTokens.delete(refreshToken)
      if (!grant || grant.clientId !== form.get('client_id')) return sendOAuthError(res, 'invalid_grant', 'Unknown or spent refresh token')
      return sendJson(res, 200, this.issueTokens(grant.org, grant.clientId))
    }
    if (form.get('grant_type') !== 'authorization_code') return sendOAuthError(res, 'unsupported_grant_type', 'Unsupported grant_type')
    const entry = [...this.signIns.entries()].find(([, pending]) => pending.code !== undefined && pending.code === form.get('code'))
    if (!entry) return sendOAuthError(res, 'invalid_grant', 'Unknown or spent authorization code')
    const [session, pending] = entry
    this.signIns.delete(session)
    if (pending.clientId !== form.get('client_id') || pkceChallenge(form.get('code_verifier') ?? '') !== pending.challenge) {
      return sendOAuthError(res, 'invalid_grant', 'The code verifier or client does not match the authorization')
    }
    sendJson(res, 200, this.issueTokens(pending.org!, pending.clientId))
  }

  private issueTokens(org: string, clientId: string): SimphonyTokens & { access_token: string } {
    for (const [token, grant] of this.idTokens) if (grant.expiresAt <= this.now().getTime()) this.idTokens.delete(token)
    const idToken = randomBytes(24).toString('base64url')
    const refreshToken = randomBytes(24).toString('base64url')
    this.idTokens.set(idToken, { org, expiresAt: this.now().getTime() + TOKEN_LIFETIME_S * 1000 })
    this.refreshTokens.set(refreshToken, { org, clientId })
    return {
      access_token: randomBytes(24).toString('base64url'),
      id_token: idToken,
      refresh_token: refreshToken,
      token_type: 'Bearer',
      expires_in: TOKEN_LIFETIME_S,
    }
  }

  bi(org: string, operation: string, authorization: string | undefined, text: string, res: ServerResponse): void {
    const token = this.idTokens.get(/^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '')
    if (!token || token.org !== org || token.expiresAt <= this.now().getTime()) {
      return sendError(res, 401, 'The id token is missing, expired or not for this organization')
    }
    const served = this.operations[operation]
    if (!served) return sendError(res, 404, `No operation ${operation}`)
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return sendError(res, 400, 'The body is not JSON', {}, 40001)
    }
    const problem = requestProblem(served.request, body)
    if (problem) return sendError(res, 400, `${operation}: ${problem}`, {}, 40002)
    const answer = served.answer(body as GuestChecksRequest)
    if (typeof answer === 'string') return sendError(res, 400, `${operation}: ${answer}`, {}, 40003)
    sendJson(res, 200, { curUTC: simphonyUtc(this.now()), locRef: (body as BiRequest).locRef, ...answer })
  }

  /** The BI operations served: each one's request body schema, and its answer or a message refusing the request. */
  private readonly operations: Record<string, { request: TSchema; answer: (request: GuestChecksRequest) => object | string }> = {
    getLatestBusDt: { request: LocationRequest, answer: () => ({ latestBusDt: businessDateOf(this.now()), softwareVersion: SOFTWARE_VERSION }) },
    getMenuItemDimensions: { request: LocationRequest, answer: () => ({ menuItems: CATALOG.map(menuItemDimension) }) },
    getMenuItemPrices: {
      request: LocationRequest,
      answer: () => ({
        menuItemPrices: CATALOG.map((entry) => ({ num: menuItemNum(entry.key), rvcNum: RVC_NUM, prcLvlNum: 1, prcLvlName: 'Default', price: Number(entry.price) })),
      }),
    },
    getEmployeeDimensions: {
      request: LocationRequest,
      answer: () => ({ employees: STAFF.map((staff, index) => ({ num: FIRST_EMPLOYEE_NUM + index, fName: staff.firstName, lName: staff.lastName })) }),
    },
    getGuestChecks: { request: GuestChecksRequest, answer: (request) => this.guestChecks(request) },
  }

  private guestChecks(request: GuestChecksRequest): object | string {
    const dates = [request.busDt, request.clsdBusDt, request.opnBusDt].filter((date) => date !== undefined)
    if (dates.length !== 1) return 'exactly one of busDt, clsdBusDt and opnBusDt is required'
    const date = dates[0]!
    const now = this.now()
    const changedSince = request.changedSinceUTC === undefined ? undefined : parseUtc(request.changedSinceUTC)
    const onDate = (check: RenderedCheck) => (request.opnBusDt !== undefined ? check.opnBusDt === date : check.clsdBusDt === date || check.reopnClsdChkClsdBusDt === date)
    const guestChecks = this.checksAround(date, now)
      .filter((check) => onDate(check) && (request.rvcNum === undefined || request.rvcNum === RVC_NUM))
      .filter((check) => changedSince === undefined || parseUtc(check.lastUpdatedUTC) >= changedSince)
    return { guestChecks }
  }

  /** The checks of a business date and of the dates before it whose checks can be re-closed on it, as seen at `now`. */
  private checksAround(date: string, now: Date): RenderedCheck[] {
    const earliest = now.getTime() - this.historyDays * DAY_MS
    const rendered: RenderedCheck[] = []
    for (let back = REOPEN_REACH_DAYS; back >= 0; back--) {
      const dayStart = Date.parse(`${date}T00:00:00Z`) - back * DAY_MS
      for (const check of checksForDay(this.options.seed, dayStart, this.options.volume)) {
        if (check.closedAt.getTime() < earliest) continue
        const guestCheck = renderGuestCheck(this.options.seed, check, now)
        if (guestCheck) rendered.push(guestCheck)
      }
    }
    return rendered
  }
}

const SOFTWARE_VERSION = '19.7.0.0'
const SIMPHONY_UTC = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$'
const BusinessDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })

/** The request body every BI operation takes (Oracle's locRequestPayload); `include` and `searchCriteria` are not simulated. */
const locationRequestFields = {
  locRef: Type.String({ minLength: 1, maxLength: 99 }),
  applicationName: Type.Optional(Type.String({ maxLength: 128 })),
}
const LocationRequest = Type.Object(locationRequestFields, { additionalProperties: false })
/** getGuestChecks' request (Oracle's gstChkRequestPayload). */
const GuestChecksRequest = Type.Object(
  {
    ...locationRequestFields,
    busDt: Type.Optional(BusinessDate),
    clsdBusDt: Type.Optional(BusinessDate),
    opnBusDt: Type.Optional(BusinessDate),
    changedSinceUTC: Type.Optional(Type.String({ pattern: SIMPHONY_UTC })),
    clsdGuestChecksOnly: Type.Optional(Type.Boolean()),
    rvcNum: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
)
interface BiRequest {
  locRef: string
  applicationName?: string
}
interface GuestChecksRequest extends BiRequest {
  busDt?: string
  clsdBusDt?: string
  opnBusDt?: string
  changedSinceUTC?: string
  clsdGuestChecksOnly?: boolean
  rvcNum?: number
}

/** What is wrong with a request body, naming the field; undefined when it is what the operation takes. */
function requestProblem(schema: TSchema, body: unknown): string | undefined {
  const errors = [...Value.Errors(schema, body)]
  const unknown = errors.find((error) => error.keyword === 'additionalProperties')
  if (unknown) return `unknown field ${unknown.params.additionalProperties.join(', ')}`
  const [first] = errors
  return first ? `${first.instancePath.slice(1) || 'the body'} ${first.message}` : undefined
}

function menuItemNum(key: string): number {
  return MENU_ITEM_NUMS.get(key)!
}

function menuItemDimension(entry: (typeof CATALOG)[number]) {
  const majorGroups = [...new Set(CATALOG.map((candidate) => candidate.category))]
  return { num: menuItemNum(entry.key), name: entry.name, majGrpNum: majorGroups.indexOf(entry.category) + 1, majGrpName: entry.category }
}

/** The business date a moment belongs to at the simulated location. */
export function businessDateOf(time: Date): string {
  return new Date(time.getTime() - BUSINESS_DAY_START_HOUR_UTC * HOUR_MS).toISOString().slice(0, 10)
}

/** The guest check id the simulator gives a check of the bar. */
export function guestCheckIdOf(check: SimCheck): number {
  const [day, index] = check.checkId.split('-').map(Number) as [number, number]
  return day * CHECK_ID_DAY + index
}

/** When the check's first close reached the BI API: at once for most checks, up to three hours late for a few. */
export function postedToBiAt(seed: number, check: SimCheck): Date {
  const random = seededRandom(seed * 1_000_003 + guestCheckIdOf(check))
  const late = random() < LATE_POSTING_RATE
  return late ? new Date(check.closedAt.getTime() + (1 + Math.floor(random() * LATE_POSTING_MAX_MINUTES)) * 60_000) : check.closedAt
}

interface RenderedDetailLine {
  lineNum: number
  dtlId: number
  parDtlId: number | null
  detailUTC: string
  busDt: string
  aggQty: number
  aggTtl: number
  vdFlag: boolean
  errCorFlag: boolean
  returnFlag: boolean
  menuItem: { miNum: number; modFlag: boolean; modPrfx: null }
}

interface RenderedCheck {
  guestCheckId: number
  chkNum: number
  rvcNum: number
  opnBusDt: string
  opnUTC: string
  clsdBusDt: string
  clsdUTC: string
  reopnClsdChkClsdBusDt: string | null
  reopnClsdChkClsdUTC: string | null
  lastUpdatedUTC: string
  clsdFlag: boolean
  empNum: number
  subTtl: number
  chkTtl: number
  tipTotal: number
  detailLines: RenderedDetailLine[]
}

/** What happened to a check after its first close, each on the reopened check, closed again at `at`. */
interface AfterCloseEvent {
  at: Date
  line: SimLine
  kind: 'added' | 'returned' | 'voided'
}

function afterCloseEvents(check: SimCheck): AfterCloseEvent[] {
  const events: AfterCloseEvent[] = []
  for (const line of check.lines) {
    if (line.addedOnReopen && check.reclosedAt) events.push({ at: check.reclosedAt, line, kind: 'added' })
    if (line.refundedAt) events.push({ at: line.refundedAt, line, kind: 'returned' })
    if (line.voidedAfterCloseAt) events.push({ at: line.voidedAfterCloseAt, line, kind: 'voided' })
  }
  return events.sort((a, b) => a.at.getTime() - b.at.getTime())
}

/** A check as the BI API shows it at `now`; undefined until its close reached the API. */
function renderGuestCheck(seed: number, check: SimCheck, now: Date): RenderedCheck | undefined {
  const postedAt = postedToBiAt(seed, check)
  if (postedAt > now) return undefined
  const details = new DetailLines()
  const firstRound = check.lines.filter((line) => !line.addedOnReopen)
  for (const line of firstRound) details.ring(line, check.openedAt)
  for (const line of firstRound.filter((candidate) => candidate.voided)) details.takeBack(line, check.openedAt, 'voided')
  // Events are appended in time order, so the detail ids already shown never change.
  const events = afterCloseEvents(check).filter((event) => event.at <= now)
  for (const event of events) {
    if (event.kind === 'added') details.ring(event.line, event.at)
    else details.takeBack(event.line, event.at, event.kind)
  }
  const reclosedAt = events.at(-1)?.at ?? null
  const total = Number(sum(details.lines.map((line) => decimal(line.aggTtl))).toFixed(2))
  const lastUpdatedAt = reclosedAt && reclosedAt > postedAt ? reclosedAt : postedAt
  return {
    guestCheckId: guestCheckIdOf(check),
    chkNum: Number(check.checkId.split('-')[1]) + 1,
    rvcNum: RVC_NUM,
    opnBusDt: businessDateOf(check.openedAt),
    opnUTC: simphonyUtc(check.openedAt),
    clsdBusDt: businessDateOf(check.closedAt),
    clsdUTC: simphonyUtc(check.closedAt),
    reopnClsdChkClsdBusDt: reclosedAt && businessDateOf(reclosedAt),
    reopnClsdChkClsdUTC: reclosedAt && simphonyUtc(reclosedAt),
    lastUpdatedUTC: simphonyUtc(lastUpdatedAt),
    clsdFlag: true,
    empNum: FIRST_EMPLOYEE_NUM + STAFF.findIndex((staff) => staff.key === check.staffKey),
    subTtl: total,
    chkTtl: total,
    tipTotal: Number(check.tip),
    detailLines: details.lines,
  }
}

/** A check's menu item detail lines, numbered as they are added; condiments follow their parent. */
class DetailLines {
  readonly lines: RenderedDetailLine[] = []
  /** The detail id each rung line or modifier (by the bar's line id) got. */
  private readonly rung = new Map<string, number>()

  ring(line: SimLine, at: Date): void {
    const parent = this.add(line.itemKey, line.quantity, line.unitPrice, at, null, NO_FLAGS)
    this.rung.set(line.lineId, parent)
    for (const modifier of line.modifiers) this.rung.set(modifier.lineId, this.add(modifier.itemKey, modifier.quantity, modifier.unitPrice, at, parent, NO_FLAGS))
  }

  /** The line and its modifiers taken back, each as a negative line of its own; condiments link to the parent's take-back. */
  takeBack(line: SimLine, at: Date, kind: 'voided' | 'returned'): void {
    const flags = { vdFlag: kind === 'voided', errCorFlag: false, returnFlag: kind === 'returned' }
    const parent = this.add(line.itemKey, -line.quantity, line.unitPrice, at, null, flags)
    for (const modifier of line.modifiers) this.add(modifier.itemKey, -modifier.quantity, modifier.unitPrice, at, parent, flags)
  }

  private add(itemKey: string, quantity: number, unitPrice: string, at: Date, parDtlId: number | null, flags: typeof NO_FLAGS): number {
    const dtlId = this.lines.length + 1
    this.lines.push({
      lineNum: dtlId,
      dtlId,
      parDtlId,
      detailUTC: simphonyUtc(at),
      busDt: businessDateOf(at),
      aggQty: quantity,
      aggTtl: Number(decimal(unitPrice).times(quantity).toFixed(2)),
      ...flags,
      menuItem: { miNum: menuItemNum(itemKey), modFlag: parDtlId !== null, modPrfx: null },
    })
    return dtlId
  }
}

const NO_FLAGS = { vdFlag: false, errCorFlag: false, returnFlag: false }

function parseUtc(value: string): Date {
  return new Date(`${value}Z`)
}
