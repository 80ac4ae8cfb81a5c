import { type Static, Type } from 'typebox'
import type { PosAdapter, PosAdapterOptions, PosProduct, PosSaleLine, PosStaffMember, SalesWindow } from '../../adapter.js'
import { LightspeedClient, type LightspeedTokenSource } from './lightspeed.client.js'
import { toPosProduct, toPosSaleLines, toPosStaffMember } from './lightspeed.mapper.js'

/**
 * Lightspeed K-Series grants access through OAuth2 refresh tokens that are single-use: every token
 * request spends the stored refresh token and returns its successor, which is handed to
 * onCredentialsRotated at once (losing it would lock the location out). The access token is kept
 * until shortly before it expires, so a sync asks for one token however many calls it makes.
 */

export const LightspeedCredentials = Type.Object(
  {
    client_id: Type.String({ minLength: 1, description: 'OAuth client id of the barstock app' }),
    client_secret: Type.String({ minLength: 1, description: 'OAuth client secret of the barstock app' }),
    refresh_token: Type.String({ minLength: 1, description: 'Single-use refresh token (scopes financial-api, items, staff-api)' }),
    business_location_id: Type.String({ pattern: '^[0-9]+$', description: 'The K-Series business location id' }),
  },
  { additionalProperties: false },
)
export type LightspeedCredentials = Static<typeof LightspeedCredentials>

export const LIGHTSPEED_PRODUCTION_BASE_URL = 'https://api.lsk.lightspeed.app'

export interface LightspeedConfig {
  /** Items per page and sales per page (Lightspeed allows up to 1000). */
  pageSize: number
  /** POS users per page (the staff API documents no maximum; its default is 10). */
  staffPageSize: number
}

/** Fetch a new access token this long before the current one expires, so no call races the expiry. */
const RENEW_BEFORE_EXPIRY_MS = 60_000
/** The financial API serves at most 365 days per call; longer windows are read in slices. */
const LONGEST_FINANCIAL_RANGE_MS = 365 * 86_400_000

export class LightspeedAdapter implements PosAdapter, LightspeedTokenSource {
  private readonly client: LightspeedClient
  private credentials: LightspeedCredentials
  private token: { value: string; expiresAt: number } | undefined
  private fetching: Promise<string> | undefined

  constructor(
    private readonly options: PosAdapterOptions,
    private readonly config: LightspeedConfig,
  ) {
    this.credentials = { ...(options.credentials as LightspeedCredentials) }
    this.client = new LightspeedClient({
      baseUrl: options.baseUrl,
      clientId: this.credentials.client_id,
      clientSecret: this.credentials.client_secret,
      businessLocationId: this.credentials.business_location_id,
      timeoutMs: options.timeoutMs,
      maxRetryWaitMs: options.maxRetryWaitMs,
    })
  }

  accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt - Date.now() > RENEW_BEFORE_EXPIRY_MS) return Promise.resolve(this.token.value)
    // One token request at a time: two would spend the same refresh token, and the second would fail.
    this.fetching ??= this.fetchToken().finally(() => {
      this.fetching = undefined
    })
    return this.fetching
  }

  discard(rejected: string): void {
    if (this.token?.value === rejected) this.token = undefined
  }

  async verify(): Promise<void> {
    await this.accessToken()
  }

  async listProducts(): Promise<PosProduct[]> {
    const products: PosProduct[] = []
    for (let offset = 0; ; offset += this.config.pageSize) {
      const items = await this.client.listItems(this, offset, this.config.pageSize)
      products.push(...items.flatMap((item) => toPosProduct(item) ?? []))
      if (items.length < this.config.pageSize) return products
    }
  }

  async *listSales(window: SalesWindow): AsyncIterable<PosSaleLine[]> {
    for (let from = window.start.getTime(); from < window.end.getTime(); from += LONGEST_FINANCIAL_RANGE_MS) {
      const slice = { start: new Date(from), end: new Date(Math.min(from + LONGEST_FINANCIAL_RANGE_MS, window.end.getTime())) }
      for await (const sales of this.client.listSales(this, slice.start, slice.end, this.config.pageSize)) {
        yield sales.flatMap((sale) => toPosSaleLines(sale, slice))
      }
    }
  }

  async listStaff(): Promise<PosStaffMember[]> {
    return (await this.client.listStaff(this, this.config.staffPageSize)).map(toPosStaffMember)
  }

  private async fetchToken(): Promise<string> {
    const token = await this.client.refresh(this.credentials.refresh_token)
    this.credentials = { ...this.credentials, refresh_token: token.refresh_token }
    this.token = { value: token.access_token, expiresAt: Date.now() + token.expires_in * 1000 }
    await this.options.onCredentialsRotated?.({ ...this.credentials })
    return token.access_token
  }
}
