import type { PosAdapterOptions, PosCredentials } from './adapter.js'

/** What one renewal gives: the credentials with the new access token, and when it expires (ms; undefined: not said). */
export interface RenewedTokens {
  credentials: PosCredentials
  expiresAt: number | undefined
}

/**
 * How a vendor renews an access token: with the connection's refresh token (refresh_token: Clover,
 * Square; without one the token cannot be renewed), or by logging its client in again
 * (client_credentials: Toast); its call; and how long before the expiry a token is renewed before use.
 */
export interface OAuthRenewal {
  grant: 'refresh_token' | 'client_credentials'
  refresh: (credentials: PosCredentials) => Promise<RenewedTokens>
  renewBeforeExpiryMs: number
}

/**
 * What the holders of one access token share: the credentials (with the token), its expiry (ms; undefined
 * when not said, 0 for "none yet": renewed at first use) and the renewal under way.
 */
export interface TokenState {
  credentials: PosCredentials
  expiresAt: number | undefined
  pending?: Promise<void>
}

/**
 * An OAuth access token, renewed when it is close to its expiry or the vendor refuses it (the vendor
 * client asks through renewAfterRejection, then retries once). Renewals are serialised across every
 * holder of the state, so a single-use refresh token is never spent twice and parallel calls wait for one
 * login. Each renewal's credentials go to onRenewed (a connection's onCredentialsRotated: the access token
 * is new, and a single-use refresh token too).
 */
export class RenewableAccessToken {
  constructor(
    private readonly state: TokenState,
    private readonly renewal: OAuthRenewal,
    private readonly onRenewed?: PosAdapterOptions['onCredentialsRotated'],
  ) {}

  /** A connection's own token, from its stored credentials: each renewal is stored through onCredentialsRotated. */
  static ofConnection(options: Pick<PosAdapterOptions, 'credentials' | 'onCredentialsRotated'>, renewal: OAuthRenewal, expiresAt: number | undefined): RenewableAccessToken {
    return new RenewableAccessToken({ credentials: { ...options.credentials }, expiresAt }, renewal, options.onCredentialsRotated)
  }

  async accessToken(): Promise<string> {
    const expiresSoon = this.state.expiresAt !== undefined && this.state.expiresAt - Date.now() < this.renewal.renewBeforeExpiryMs
    if (expiresSoon && this.canRenew()) await this.renew()
    return this.state.credentials.access_token ?? ''
  }

  /** Renews the token the vendor just refused; false when it cannot (no refresh token). */
  async renewAfterRejection(rejected: string): Promise<boolean> {
    if (!this.canRenew()) return false
    // Another call may have renewed the token while this one was in flight: use the new one.
    if (this.state.credentials.access_token === rejected) await this.renew()
    return true
  }

  private canRenew(): boolean {
    return this.renewal.grant === 'client_credentials' || Boolean(this.state.credentials.refresh_token)
  }

  /** One renewal at a time: a single-use refresh token spent by two concurrent renewals would lock us out. */
  private renew(): Promise<void> {
    this.state.pending ??= this.refresh().finally(() => {
      this.state.pending = undefined
    })
    return this.state.pending
  }

  private async refresh(): Promise<void> {
    const renewed = await this.renewal.refresh(this.state.credentials)
    this.state.credentials = renewed.credentials
    this.state.expiresAt = renewed.expiresAt
    await this.onRenewed?.({ ...this.state.credentials })
  }
}
