import { createHash } from 'node:crypto'
import { PosAdapterError, type PosAdapter, type PosAdapterOptions, type PosSaleLine, type SalesWindow } from '../adapter.js'
import { TOAST_ORDERS_PAGE_SIZE, TOAST_VENDOR, ToastClient, ToastTokenRejected } from './toast.client.js'
import { employeeName, mapEmployee, mapMenus, mapOrderLines } from './toast.mapper.js'
import { transportOf } from '../vendor-http.js'
import { RenewableAccessToken, type RenewedTokens, type TokenState } from '../oauth-renewal.js'

/**
 * Toast with a machine client: log in for a bearer token, keep it until shortly before it expires (Toast
 * asks for at most two new tokens an hour), and log in again once if a data call finds it refused.
 * Sales are read by modification time, as `ordersBulk` filters: a line is kept when its check closed
 * inside the window, a correction (a void after close, a refund) when it was made inside the window.
 */

/** Renew this long before the token's stated expiry, so a token never lapses mid-sync. */
const TOKEN_RENEWAL_MARGIN_MS = 10 * 60_000

/**
 * How long after closing an order may still be modified (tips adjusted at the end of a shift, a late
 * payment): orders are read up to this long after the window so those closed in it are all found.
 */
const MODIFIED_AFTER_CLOSE_MS = 24 * 3_600_000

/**
 * Tokens shared by every adapter of the same client and API root: the core builds an adapter per sync,
 * and a login per sync would exceed Toast's token budget. A login under way is shared too, so parallel
 * calls wait for it rather than log in twice. Keyed by a digest of the secret, so a changed secret
 * logs in afresh.
 */
const sharedTokens = new Map<string, TokenState>()

function sharedTokenState(baseUrl: string, clientId: string, clientSecret: string): TokenState {
  const secretDigest = createHash('sha256').update(clientSecret).digest('hex')
  const key = `${baseUrl}|${clientId}|${secretDigest}`
  let state = sharedTokens.get(key)
  if (!state) {
    // No token yet (expired at 0): the first call logs in.
    state = { credentials: {}, expiresAt: 0 }
    sharedTokens.set(key, state)
  }
  return state
}

class ToastSession {
  private readonly tokens: RenewableAccessToken

  constructor(
    private readonly client: ToastClient,
    private readonly clientId: string,
    private readonly clientSecret: string,
    baseUrl: string,
  ) {
    const renewal = { grant: 'client_credentials' as const, refresh: () => this.login(), renewBeforeExpiryMs: TOKEN_RENEWAL_MARGIN_MS }
    this.tokens = new RenewableAccessToken(sharedTokenState(baseUrl, clientId, clientSecret), renewal)
  }

  /** Logs the machine client in (through this adapter's client: its transport, its run's budget). */
  private async login(): Promise<RenewedTokens> {
    const token = await this.client.login(this.clientId, this.clientSecret)
    return { credentials: { access_token: token.accessToken }, expiresAt: Date.now() + token.expiresIn * 1000 }
  }

  /** Runs a data call with the token; a refused token is renewed (unless a parallel call did) and the call retried once. */
  async call<T>(action: (token: string) => Promise<T>): Promise<T> {
    const token = await this.tokens.accessToken()
    try {
      return await action(token)
    } catch (error) {
      if (!(error instanceof ToastTokenRejected)) throw error
      await this.tokens.renewAfterRejection(token)
    }
    try {
      return await action(await this.tokens.accessToken())
    } catch (error) {
      if (!(error instanceof ToastTokenRejected)) throw error
      throw new PosAdapterError('invalid_credentials', `${TOAST_VENDOR} refused a fresh token: ${error.message}`)
    }
  }
}

export function createToastAdapter(options: PosAdapterOptions): PosAdapter {
  const client = new ToastClient({
    baseUrl: options.baseUrl,
    restaurantGuid: options.credentials.restaurant_id ?? '',
    ...transportOf(options),
  })
  const session = new ToastSession(client, options.credentials.client_id ?? '', options.credentials.client_secret ?? '', options.baseUrl)

  async function listStaff() {
    const [employees, jobs] = await Promise.all([session.call((token) => client.employees(token)), session.call((token) => client.jobs(token))])
    const jobsByGuid = new Map(jobs.map((job) => [job.guid, job]))
    return employees.filter((employee) => !employee.deleted).map((employee) => mapEmployee(employee, jobsByGuid))
  }

  async function* listSales(window: SalesWindow): AsyncIterable<PosSaleLine[]> {
    const employees = await session.call((token) => client.employees(token))
    const staffNames = new Map(employees.map((employee) => [employee.guid, employeeName(employee)]))
    const modifiedTo = new Date(window.end.getTime() + MODIFIED_AFTER_CLOSE_MS)
    for (let page = 1; ; page++) {
      const orders = await session.call((token) => client.ordersPage(token, window.start, modifiedTo, page))
      const lines = orders.flatMap((order) => mapOrderLines(order, staffNames)).filter((line) => line.soldAt >= window.start && line.soldAt < window.end)
      if (lines.length > 0) yield lines
      // Toast pages by number: a page shorter than the page size is the last.
      if (orders.length < TOAST_ORDERS_PAGE_SIZE) return
    }
  }

  return {
    async verify() {
      // Logging in proves the client; reading the restaurant's menu metadata proves access to the restaurant.
      await session.call((token) => client.menusMetadata(token))
    },
    async listProducts() {
      return mapMenus(await session.call((token) => client.menus(token)))
    },
    listSales,
    listStaff,
  }
}
