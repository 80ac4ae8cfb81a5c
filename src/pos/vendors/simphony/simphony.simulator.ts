import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SimulatorHandler, SimulatorOptions } from '../../adapter.js'
import { decimal, sum } from '../../../platform/decimal.js'
import { checksForDay, MENU, STAFF, type SimCheck } from '../../simulation/bar-data.js'
import { FailureSwitch, readBody, sendJson } from '../../simulation/simulator-server.js'
import {
  OIDC_PATH,
  pkceChallenge,
  type SimphonyBusinessDate,
  type SimphonyEmployeeDimension,
  type SimphonyError,
  type SimphonyGuestCheck,
  type SimphonyMenuItemDimension,
  type SimphonyMenuItemPrice,
  type SimphonySignInAnswer,
  type SimphonyTokens,
} from './simphony.client.js'

/**
 * Simphony's auth server and BI API on one host, serving the simulated bar. Sign-in is the PKCE flow
 * (authorize sets a session cookie, sign-in needs it and refuses a password starting with `invalid`,
 * the token endpoint checks the code verifier); id tokens expire and refresh tokens are single-use.
 * BI calls are POSTs with a JSON body and a bearer id_token; BI errors are HTTP 400 with a numeric code.
 */

/** The simulator's own token lifetime: the adapter trusts `expires_in`, whatever it is. */
const TOKEN_LIFETIME_S = 3600
const DAY_MS = 86_400_000
const MAX_PENDING_SIGN_INS = 1000
const DATE = /^\d{4}-\d{2}-\d{2}$/
const FIRST_MENU_ITEM_NUM = 10_001
const FIRST_EMPLOYEE_NUM = 101
/** Guest check ids are day × CHECK_ID_DAY + check number of the day. */
const CHECK_ID_DAY = 10_000

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
    let body: { locRef?: unknown; busDt?: unknown; clsdBusDt?: unknown }
    try {
      body = JSON.parse(text) as typeof body
    } catch {
      return sendError(res, 400, 'The body is not JSON', {}, 40001)
    }
    if (typeof body.locRef !== 'string' || body.locRef === '') return sendError(res, 400, 'locRef is required', {}, 40002)
    const answer = this.operation(operation, body.locRef, body)
    if (answer === undefined) return sendError(res, 404, `No operation ${operation}`)
    if (typeof answer === 'string') return sendError(res, 400, answer, {}, 40003)
    sendJson(res, 200, answer)
  }

  /** The operation's answer, a validation message, or undefined for an unknown operation. */
  private operation(operation: string, locRef: string, body: { busDt?: unknown; clsdBusDt?: unknown }): object | string | undefined {
    switch (operation) {
      case 'getLatestBusinessDate': {
        const answer: SimphonyBusinessDate = { locRef, curUTC: simphonyUtc(this.now()), busDt: this.now().toISOString().slice(0, 10) }
        return answer
      }
      case 'getMenuItemDimensions':
        return { locRef, menuItems: MENU.map((_, index) => this.menuItem(index)) }
      case 'getMenuItemPrices':
        return {
          locRef,
          menuItemPrices: MENU.map((entry, index): SimphonyMenuItemPrice => ({ num: FIRST_MENU_ITEM_NUM + index, prcLvlNum: 1, price: Number(entry.price) })),
        }
      case 'getEmployeeDimensions':
        return {
          locRef,
          employees: STAFF.map((staff, index): SimphonyEmployeeDimension => ({ num: FIRST_EMPLOYEE_NUM + index, fName: staff.firstName, lName: staff.lastName })),
        }
      case 'getGuestChecks':
        return this.guestChecks(locRef, body)
      default:
        return undefined
    }
  }

  private menuItem(index: number): SimphonyMenuItemDimension {
    const entry = MENU[index]!
    const majorGroups = [...new Set(MENU.map((candidate) => candidate.category))]
    return { num: FIRST_MENU_ITEM_NUM + index, name: entry.name, majGrpNum: majorGroups.indexOf(entry.category) + 1, majGrpName: entry.category }
  }

  private guestChecks(locRef: string, body: { busDt?: unknown; clsdBusDt?: unknown }): object | string {
    const date = body.clsdBusDt ?? body.busDt
    if ((body.clsdBusDt === undefined) === (body.busDt === undefined) || typeof date !== 'string' || !DATE.test(date)) {
      return 'Exactly one of busDt and clsdBusDt is required, as YYYY-MM-DD'
    }
    const now = this.now().getTime()
    const earliest = now - this.historyDays * DAY_MS
    // The simulated bar's checks open and close on the business date they belong to.
    const checks = checksForDay(this.options.seed, Date.parse(`${date}T00:00:00Z`), this.options.volume).filter(
      (check) => check.closedAt.getTime() < now && check.closedAt.getTime() >= earliest,
    )
    return { curUTC: simphonyUtc(this.now()), locRef, guestChecks: checks.map((check) => this.guestCheck(check, date)) }
  }

  private guestCheck(check: SimCheck, businessDate: string): SimphonyGuestCheck {
    const [day, index] = check.checkId.split('-').map(Number) as [number, number]
    const sold = check.lines.filter((line) => !line.voided && !line.refunded)
    const subTotal = Number(sum(sold.map((line) => decimal(line.unitPrice).times(line.quantity))).toFixed(2))
    return {
      guestCheckId: day * CHECK_ID_DAY + index,
      chkNum: index + 1,
      opnBusDt: businessDate,
      opnUTC: simphonyUtc(check.openedAt),
      clsdBusDt: businessDate,
      clsdUTC: simphonyUtc(check.closedAt),
      clsdFlag: true,
      empNum: FIRST_EMPLOYEE_NUM + STAFF.findIndex((staff) => staff.key === check.staffKey),
      subTtl: subTotal,
      tipTtl: Number(check.tip),
      chkTtl: subTotal,
      detailLines: check.lines.map((line, lineIndex) => ({
        dtlId: lineIndex + 1,
        lineNum: lineIndex + 1,
        detailUTC: simphonyUtc(check.openedAt),
        aggQty: line.quantity,
        aggTtl: Number(decimal(line.unitPrice).times(line.quantity).toFixed(2)),
        vdFlag: line.voided,
        errCorFlag: false,
        rtnFlag: line.refunded,
        menuItem: { miNum: FIRST_MENU_ITEM_NUM + MENU.findIndex((entry) => entry.key === line.itemKey) },
      })),
    }
  }
}

/** UTC without a zone or milliseconds, as Simphony writes it. */
function simphonyUtc(date: Date): string {
  return date.toISOString().slice(0, 19)
}
