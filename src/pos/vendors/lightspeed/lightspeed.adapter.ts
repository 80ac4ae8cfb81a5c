import { type Static, Type } from 'typebox'
import type { PosAdapter, PosAdapterOptions, PosProduct, PosSaleLine, PosStaffMember, SalesWindow } from '../adapter.js'
import { LightspeedClient, type LightspeedTokenSource } from './lightspeed.client.js'
import { toPosProduct, toPosStaffMember } from './lightspeed.mapper.js'
import { LightspeedSalesListing, type LightspeedReceiptRoles } from './lightspeed.sales-listing.js'
import type { LightspeedSale, LightspeedSalesLine } from './lightspeed.wire.js'
import { transportOf } from '../vendor-http.js'
import { DAY_MS } from '../../../platform/zoned-time.js'

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
    business_location_id: Type.String({ pattern: '^[0-9]+$', 'x-pattern-rule': 'must be digits only (e.g. 45454565682155)', description: 'The K-Series business location id' }),
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
  /** ⚠ Which receipt types are sales and which take lines back (Lightspeed lists the types, not their effect). */
  receiptRoles: LightspeedReceiptRoles
  /** ⚠ How far before a window a refund's or recall's sale is looked for. */
  correctionLookbackDays: number
}

/** Fetch a new access token this long before the current one expires, so no call races the expiry. */
const RENEW_BEFORE_EXPIRY_MS = 60_000
/** The financial API serves at most 365 days per call; longer windows are read in slices. */
const LONGEST_FINANCIAL_RANGE_MS = 365 * DAY_MS

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
      ...transportOf(options),
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
      products.push(...items.map(toPosProduct))
      if (items.length < this.config.pageSize) return products
    }
  }

  /** Sales closed in the window and the corrections made in it; see LightspeedSalesListing. */
  async *listSales(window: SalesWindow): AsyncIterable<PosSaleLine[]> {
    const items = new ItemsWithoutSku(() => this.listProducts())
    const listing = new LightspeedSalesListing(window, this.config.receiptRoles, items.idOf)
    for await (const receipts of items.named(this.receiptsBetween(window.start.getTime(), window.end.getTime()))) {
      yield listing.page(receipts)
    }
    const late = await listing.finish(() => items.named(this.receiptsBefore(window.start.getTime())))
    if (late.length > 0) yield late
  }

  async listStaff(): Promise<PosStaffMember[]> {
    return (await this.client.listStaff(this, this.config.staffPageSize)).map(toPosStaffMember)
  }

  /** Receipts closed in [from, to), in slices of the 365 days one call may span. */
  private async *receiptsBetween(from: number, to: number): AsyncGenerator<LightspeedSale[]> {
    for (let start = from; start < to; start += LONGEST_FINANCIAL_RANGE_MS) {
      const end = Math.min(start + LONGEST_FINANCIAL_RANGE_MS, to)
      yield* this.client.listSales(this, new Date(start), new Date(end), this.config.pageSize)
    }
  }

  /** Receipts closed before `end`, a day first, then spans twice as long, back to the lookback limit. */
  private async *receiptsBefore(end: number): AsyncGenerator<LightspeedSale[]> {
    const earliest = end - this.config.correctionLookbackDays * DAY_MS
    for (let span = DAY_MS, to = end; to > earliest; to -= span, span *= 2) {
      yield* this.receiptsBetween(Math.max(earliest, to - span), to)
    }
  }

  private async fetchToken(): Promise<string> {
    const token = await this.client.refresh(this.credentials.refresh_token)
    this.credentials = { ...this.credentials, refresh_token: token.refresh_token }
    this.token = { value: token.access_token, expiresAt: Date.now() + token.expires_in * 1000 }
    await this.options.onCredentialsRotated?.({ ...this.credentials })
    return token.access_token
  }
}

/**
 * Sales lines of an item without a SKU carry none: they are matched to the item by name (⚠ the only
 * link a line gives), the catalog read once per listing, and only when such a line comes. A line whose
 * name matches no such item keeps its name as item id, to be mapped by hand.
 */
class ItemsWithoutSku {
  private idsByName: Map<string, string> | undefined

  constructor(private readonly catalog: () => Promise<PosProduct[]>) {}

  /** The pages of `receipts`, each once the catalog is known if it has a line without a SKU. */
  async *named(receipts: AsyncIterable<LightspeedSale[]>): AsyncGenerator<LightspeedSale[]> {
    for await (const page of receipts) {
      if (!this.idsByName && page.some((receipt) => receipt.salesLines.some((line) => !line.sku))) {
        const products = await this.catalog()
        this.idsByName = new Map(products.filter((product) => product.sku === null).map((product) => [product.name, product.posItemId]))
      }
      yield page
    }
  }

  readonly idOf = (line: LightspeedSalesLine): string => line.sku || this.idsByName?.get(line.name) || line.name
}
