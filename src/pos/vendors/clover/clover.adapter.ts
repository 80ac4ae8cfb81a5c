import { type Static, Type } from 'typebox'
import {
  PosAdapterError,
  type PosAdapter,
  type PosAdapterOptions,
  type PosCredentials,
  type PosProduct,
  type PosSaleLine,
  type PosStaffMember,
  type SalesWindow,
} from '../adapter.js'
import {
  CLOVER_VENDOR,
  CloverClient,
  type CloverEmployee,
  type CloverItem,
  type CloverModifierGroup,
  type CloverOrder,
  type CloverRefreshFields,
  type CloverTokenSource,
} from './clover.client.js'
import { toPosModifierProducts, toPosProduct, toPosSaleLines, toPosStaffMember, type CloverPaidTimeField } from './clover.mapper.js'
import { transportOf } from '../vendor-http.js'
import { RenewableAccessToken, type RenewedTokens } from '../oauth-renewal.js'

export const CLOVER_REGIONS = ['na', 'eu', 'la'] as const

export const CloverCredentials = Type.Object(
  {
    merchant_id: Type.String({
      pattern: '^[A-Za-z0-9]+$',
      'x-pattern-rule': 'must be letters and digits only (e.g. Q8J5H3K2M1N0P)',
      description: 'The Clover merchant id (mId) the token is scoped to',
    }),
    access_token: Type.String({ minLength: 1, description: 'OAuth access token or merchant API token' }),
    refresh_token: Type.Optional(Type.String({ minLength: 1, description: 'Single-use OAuth v2 refresh token, rotated on every renewal' })),
    region: Type.Optional(Type.Unsafe<(typeof CLOVER_REGIONS)[number]>({ type: 'string', enum: [...CLOVER_REGIONS], description: 'Clover region; na when absent' })),
  },
  { additionalProperties: false },
)
export type CloverCredentials = Static<typeof CloverCredentials>

const CLOVER_PRODUCTION_BASE_URLS: Record<(typeof CLOVER_REGIONS)[number], string> = {
  na: 'https://api.clover.com',
  eu: 'https://api.eu.clover.com',
  la: 'https://api.la.clover.com',
}

/** The merchant's regional API host (North America unless the credentials say otherwise). */
export function cloverProductionBaseUrl(credentials: PosCredentials): string {
  return CLOVER_PRODUCTION_BASE_URLS[(credentials as CloverCredentials).region ?? 'na']
}

/** What a deployment can tune about Clover; the ⚠ facts of pos-vendors.md live here. */
export interface CloverConfig {
  /** The app's Clover id, the `client_id` a token refresh needs; without it expired tokens cannot be renewed. */
  appId: string | undefined
  refreshFields: CloverRefreshFields
  /** Orders per page (Clover allows up to 1000). */
  pageSize: number
  /**
   * ⚠ Which payment time says when it was taken. Clover writes no close time on an order; a payment's
   * `createdTime` is when it was recorded, for a pre-authorised tab when the card was held at opening,
   * while its `modifiedTime` is its last change, the capture when the tab was closed.
   */
  paidTimeField: CloverPaidTimeField
}

/** Renew an access token this long before Clover said it expires, so no call races the expiry. */
const RENEW_BEFORE_EXPIRY_MS = 5 * 60_000
const ORDER_EXPANSIONS = 'lineItems,lineItems.modifications,employee,payments,refunds'

export class CloverAdapter implements PosAdapter, CloverTokenSource {
  private readonly client: CloverClient
  private readonly tokens: RenewableAccessToken

  constructor(
    private readonly options: PosAdapterOptions,
    private readonly config: CloverConfig,
  ) {
    // Clover says when a token expires only when it issues one: a stored token is renewed when refused.
    this.tokens = RenewableAccessToken.ofConnection(
      options,
      { grant: 'refresh_token', refresh: (credentials) => this.refreshTokens(credentials), renewBeforeExpiryMs: RENEW_BEFORE_EXPIRY_MS },
      undefined,
    )
    this.client = new CloverClient({
      baseUrl: options.baseUrl,
      merchantId: options.credentials.merchant_id ?? '',
      refreshFields: config.refreshFields,
      ...transportOf(options),
    })
  }

  accessToken(): Promise<string> {
    return this.tokens.accessToken()
  }

  renewAfterRejection(rejected: string): Promise<boolean> {
    return this.tokens.renewAfterRejection(rejected)
  }

  async verify(): Promise<void> {
    await this.client.listPage<CloverItem>(this, 'items', { limit: 1 })
  }

  async listProducts(): Promise<PosProduct[]> {
    const products: PosProduct[] = []
    for await (const page of this.client.listAll<CloverItem>(this, 'items', { expand: 'categories' }, this.config.pageSize)) {
      products.push(...page.map(toPosProduct))
    }
    for await (const page of this.client.listAll<CloverModifierGroup>(this, 'modifier_groups', { expand: 'modifiers' }, this.config.pageSize)) {
      products.push(...page.flatMap(toPosModifierProducts))
    }
    return products
  }

  /**
   * Orders changed since the window began and created before it ended: every order paid or refunded in
   * the window was (a payment or a refund changes its order), and none created after it can have been.
   */
  async *listSales(window: SalesWindow): AsyncIterable<PosSaleLine[]> {
    const query = { filter: [`modifiedTime>=${window.start.getTime()}`, `createdTime<${window.end.getTime()}`], expand: ORDER_EXPANSIONS }
    for await (const orders of this.client.listAll<CloverOrder>(this, 'orders', query, this.config.pageSize)) {
      yield orders.flatMap((order) => toPosSaleLines(order, window, this.config.paidTimeField))
    }
  }

  async listStaff(): Promise<PosStaffMember[]> {
    const staff: PosStaffMember[] = []
    for await (const page of this.client.listAll<CloverEmployee>(this, 'employees', { expand: 'roles' }, this.config.pageSize)) {
      staff.push(...page.map(toPosStaffMember))
    }
    return staff
  }

  private async refreshTokens(credentials: PosCredentials): Promise<RenewedTokens> {
    const appId = this.config.appId
    if (!appId) throw new PosAdapterError('invalid_credentials', `${CLOVER_VENDOR} access token expired and no Clover app id is configured to renew it`)
    const tokens = await this.client.refresh(appId, credentials.refresh_token ?? '')
    return { credentials: { ...credentials, access_token: tokens.accessToken, refresh_token: tokens.refreshToken }, expiresAt: tokens.expiresAt?.getTime() }
  }
}
