import type { PosAdapterOptions, PosCredentials } from './adapter.js'

/** What one refresh gives: the connection's new credentials and when their access token expires (ms; undefined: not said). */
export interface RenewedTokens {
  credentials: PosCredentials
  expiresAt: number | undefined
}

/** How a vendor renews: its refresh call, and how long before the expiry a token is renewed before use. */
export interface OAuthRenewal {
  refresh: (credentials: PosCredentials) => Promise<RenewedTokens>
  renewBeforeExpiryMs: number
}

/**
 * A connection's OAuth access token, renewed with its refresh token when it is close to its expiry or
 * the vendor refuses it (the vendor client asks through renewAfterRejection, then retries once). Each
 * renewal's credentials go to onCredentialsRotated: the access token is new, and a single-use refresh
 * token too. Renewals are serialised so a single-use refresh token is never spent twice.
 */
export class RenewableAccessToken {
  private credentials: PosCredentials
  private pending: Promise<void> | undefined

  constructor(
    private readonly options: Pick<PosAdapterOptions, 'credentials' | 'onCredentialsRotated'>,
    private readonly renewal: OAuthRenewal,
    /** When the stored access token expires, ms; undefined when the credentials do not say. */
    private expiresAt: number | undefined,
  ) {
    this.credentials = { ...options.credentials }
  }

  async accessToken(): Promise<string> {
    const expiresSoon = this.expiresAt !== undefined && this.expiresAt - Date.now() < this.renewal.renewBeforeExpiryMs
    if (expiresSoon && this.credentials.refresh_token) await this.renew()
    return this.credentials.access_token ?? ''
  }

  /** Renews the token the vendor just refused; false when it cannot (no refresh token). */
  async renewAfterRejection(rejected: string): Promise<boolean> {
    if (!this.credentials.refresh_token) return false
    // Another call may have renewed the token while this one was in flight: use the new one.
    if (this.credentials.access_token === rejected) await this.renew()
    return true
  }

  /** One renewal at a time: a single-use refresh token spent by two concurrent renewals would lock us out. */
  private renew(): Promise<void> {
    this.pending ??= this.refresh().finally(() => {
      this.pending = undefined
    })
    return this.pending
  }

  private async refresh(): Promise<void> {
    const renewed = await this.renewal.refresh(this.credentials)
    this.credentials = renewed.credentials
    this.expiresAt = renewed.expiresAt
    await this.options.onCredentialsRotated?.({ ...this.credentials })
  }
}
