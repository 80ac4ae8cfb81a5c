import { type Static, type TSchema, Type } from 'typebox'
import { PosAdapterError, type PosAdapter, type PosAdapterOptions, type PosSaleLine, type SalesListingProgress, type SalesWindow } from '../adapter.js'
import { listByParts } from '../listing-progress.js'
import {
  EmployeeDimensionsAnswer,
  GuestChecksAnswer,
  LatestBusinessDateAnswer,
  MenuItemDimensionsAnswer,
  MenuItemPricesAnswer,
  SimphonyClient,
  simphonyUtc,
  type SimphonyTokens,
} from './simphony.client.js'
import { simphonyNames, toPosProducts, toPosSaleLines, toPosStaff } from './simphony.mapper.js'
import { transportOf } from '../vendor-http.js'
import { DAY_MS } from '../../../platform/zoned-time.js'

/**
 * Simphony's adapter signs in once and reuses the id_token until a minute before it expires, then
 * renews it with the refresh token (falling back to a new sign-in when that is refused); a token the
 * API refuses mid-run is renewed once. Sales are read one business date per call, no pagination, asking
 * only for the checks changed since the window's start.
 */

// Both hosts come from the customer: https only, a host and an optional path, nothing else.
const HttpsRoot = Type.String({
  pattern: '^https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~/-]*)?$',
  'x-pattern-rule': 'must be an https:// address: a host, an optional port and path, no query (e.g. https://simphony-idm.example.com)',
})

export const SimphonyCredentials = Type.Object(
  {
    auth_server_url: HttpsRoot,
    app_server_url: HttpsRoot,
    client_id: Type.String({ minLength: 1 }),
    username: Type.String({ minLength: 1 }),
    password: Type.String({ minLength: 1 }),
    org_short_name: Type.String({ pattern: '^[A-Za-z0-9_-]+$', 'x-pattern-rule': 'must be letters, digits, _ or - only (e.g. EXBAR)' }),
    loc_ref: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
)
export type SimphonyCredentials = Static<typeof SimphonyCredentials>

const TOKEN_RENEW_MARGIN_MS = 60_000
/**
 * A business date's checks can close on the UTC day before or after it (the location's time zone and
 * day rollover decide), so a window reads one business date more on each side and keeps its own checks.
 * The date before also catches checks that reached the BI API up to about a day late (⚠ assumed enough).
 */
const BUSINESS_DATE_REACH_DAYS = 1

export function simphonyProductionBaseUrl(credentials: SimphonyCredentials): string {
  return credentials.app_server_url.replace(/\/$/, '')
}

export function createSimphonyAdapter(options: PosAdapterOptions): PosAdapter {
  const credentials = options.credentials as SimphonyCredentials
  const baseUrl = options.baseUrl.replace(/\/$/, '')
  const client = new SimphonyClient({
    // The production app server has its own auth server; a simulator or an override serves both.
    authBaseUrl: baseUrl === simphonyProductionBaseUrl(credentials) ? credentials.auth_server_url.replace(/\/$/, '') : baseUrl,
    appBaseUrl: baseUrl,
    clientId: credentials.client_id,
    username: credentials.username,
    password: credentials.password,
    orgShortName: credentials.org_short_name,
    locRef: credentials.loc_ref,
    ...transportOf(options),
  })
  const session = new SimphonySession(client)
  return {
    async verify() {
      await session.call('getLatestBusDt', {}, LatestBusinessDateAnswer)
    },
    async listProducts() {
      const { menuItems } = await session.call('getMenuItemDimensions', {}, MenuItemDimensionsAnswer)
      const { menuItemPrices } = await session.call('getMenuItemPrices', {}, MenuItemPricesAnswer)
      return toPosProducts(menuItems, menuItemPrices)
    },
    listSales: (window, progress) => salesByBusinessDate(session, window, progress),
    async listStaff() {
      return toPosStaff((await session.call('getEmployeeDimensions', {}, EmployeeDimensionsAnswer)).employees)
    },
  }
}

/**
 * The window's checks a business date at a time. Each date is one call answered whole, asked with the
 * same changedSinceUTC (the window's start) whenever the window is listed, so a listing resumes at the
 * first date it had not read (listByParts). A reopened check answered on a date before that comes again
 * on a later one: its lines keep their ids, so they are skipped as seen.
 */
async function* salesByBusinessDate(session: SimphonySession, window: SalesWindow, listing?: SalesListingProgress): AsyncIterable<PosSaleLine[]> {
  const { menuItems } = await session.call('getMenuItemDimensions', {}, MenuItemDimensionsAnswer)
  const { employees } = await session.call('getEmployeeDimensions', {}, EmployeeDimensionsAnswer)
  const names = simphonyNames(menuItems, employees)
  // clsdBusDt answers the checks closed or re-closed on the date, so a reopened check can come twice: read once.
  const seen = new Set<number>()
  yield* listByParts(
    listing,
    businessDatesReaching(window),
    (businessDate) => businessDate,
    async (businessDate) => {
      const { guestChecks } = await session.call('getGuestChecks', { clsdBusDt: businessDate, changedSinceUTC: simphonyUtc(window.start) }, GuestChecksAnswer)
      const unseen = guestChecks.filter((check) => !seen.has(check.guestCheckId))
      for (const check of unseen) seen.add(check.guestCheckId)
      return toPosSaleLines(unseen, window, names)
    },
  )
}

/** The business dates ("2026-11-18") whose checks can have closed inside the window. */
export function businessDatesReaching(window: SalesWindow): string[] {
  if (window.end <= window.start) return []
  const first = Math.floor(window.start.getTime() / DAY_MS) - BUSINESS_DATE_REACH_DAYS
  const last = Math.floor((window.end.getTime() - 1) / DAY_MS) + BUSINESS_DATE_REACH_DAYS
  const dates: string[] = []
  for (let day = first; day <= last; day++) dates.push(new Date(day * DAY_MS).toISOString().slice(0, 10))
  return dates
}

/** The connection's tokens: one sign-in reused until shortly before expiry, renewed by refresh token. */
class SimphonySession {
  private idToken: string | undefined
  private refreshToken: string | undefined
  private expiresAt = 0
  private renewing: Promise<string> | undefined

  constructor(private readonly client: SimphonyClient) {}

  /** Calls a BI operation; a token refused mid-run (revoked, or expired early) is renewed once. */
  async call<T extends TSchema>(operation: string, body: Record<string, string>, answer: T): Promise<Static<T>> {
    const token = await this.token()
    try {
      return await this.client.call(operation, body, answer, token)
    } catch (error) {
      if (!(error instanceof PosAdapterError) || error.kind !== 'invalid_credentials') throw error
      if (this.idToken === token) this.idToken = undefined
      return this.client.call(operation, body, answer, await this.token())
    }
  }

  private token(): Promise<string> {
    if (this.idToken && Date.now() < this.expiresAt - TOKEN_RENEW_MARGIN_MS) return Promise.resolve(this.idToken)
    // Concurrent calls share one renewal rather than each signing in.
    this.renewing ??= this.renew().finally(() => {
      this.renewing = undefined
    })
    return this.renewing
  }

  private async renew(): Promise<string> {
    const refreshed = this.refreshToken ? await this.client.refresh(this.refreshToken) : undefined
    const tokens: SimphonyTokens = refreshed ?? (await this.client.signIn())
    this.idToken = tokens.id_token
    // Refresh tokens may be single-use: keep the newest, or none (the next renewal signs in again).
    this.refreshToken = tokens.refresh_token
    this.expiresAt = Date.now() + tokens.expires_in * 1000
    return tokens.id_token
  }
}
