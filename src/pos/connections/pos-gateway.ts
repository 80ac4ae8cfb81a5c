import type { Wait } from '../../platform/background.js'
import { createHmac } from 'node:crypto'
import { Agent } from 'undici'
import type { Config } from '../../platform/config.js'
import type { Environment } from '../../platform/db/database.js'
import { resolveSecretKey } from '../../platform/secret-key.js'
import { type PosAdapter, PosAdapterError, type PosAdapterOptions, type PosCredentials, type PosVendor } from '../vendors/adapter.js'
import { guardedLookup, publicHostRefusal, type Resolver, systemResolver } from '../../platform/network-guard.js'
import { decryptCredentials, encryptCredentials } from './credential-cipher.js'
import { sandboxSimulatorUrl } from './sandbox-simulators.js'

/** What a sync run gives its adapter: its clock (for the run budget), its stop signal, and how it waits. */
export interface RunContext {
  clock: () => Date
  signal?: AbortSignal | undefined
  wait?: Wait | undefined
}

/**
 * How the core reaches a POS: production connections call the vendor's host (or the override in
 * BARSTOCK_POS_BASE_URLS), sandbox connections call the vendor's simulator in this process. It also
 * holds the secret key that seals stored credentials, read on first use.
 */
export class PosGateway {
  private key: Buffer | undefined
  /** Connects to production vendor hosts through a look-up that refuses non-public addresses (made once, when first needed). */
  private publicOnly: Agent | undefined

  constructor(
    private readonly config: Pick<
      Config,
      'secretKey' | 'dataDir' | 'posBaseUrls' | 'posRetryWaitMs' | 'posRequestTimeoutMs' | 'posRunBudgetMs' | 'posOAuthApps' | 'webhookAllowPrivate'
    >,
    private readonly resolver: Resolver = systemResolver,
  ) {}

  private secretKey(): Buffer {
    this.key ??= resolveSecretKey(this.config.secretKey, this.config.dataDir)
    return this.key
  }

  seal(connectionId: string, credentials: PosCredentials): string {
    return encryptCredentials(this.secretKey(), connectionId, credentials)
  }

  open(connectionId: string, stored: string): PosCredentials {
    return decryptCredentials(this.secretKey(), connectionId, stored)
  }

  /**
   * A keyed hash of a text (HMAC-SHA256 under a key derived from the secret key, hex): equal texts give
   * equal hashes, so a stored one can be looked up, and the text cannot be read back from it.
   */
  lookupKey(text: string): string {
    const key = createHmac('sha256', this.secretKey()).update('barstock lookup key').digest()
    return createHmac('sha256', key).update(text).digest('hex')
  }

  /**
   * Where the vendor's requests go, and through what: the sandbox simulator, an operator's override
   * (BARSTOCK_POS_BASE_URLS, trusted), or the production host, checked now and again at every connect.
   */
  private async endpoint(vendor: PosVendor, environment: Environment, credentials: PosCredentials): Promise<Pick<PosAdapterOptions, 'baseUrl' | 'dispatcher'>> {
    if (environment === 'sandbox') return { baseUrl: await sandboxSimulatorUrl(vendor) }
    const override = this.config.posBaseUrls[vendor.posType]
    if (override) return { baseUrl: override }
    const production = vendor.productionBaseUrl(credentials)
    if (this.config.webhookAllowPrivate) return { baseUrl: production }
    await this.refuseNonPublicHosts(vendor, [production, ...Object.values(credentials)])
    this.publicOnly ??= new Agent({ connect: { lookup: guardedLookup(this.resolver, false) } })
    return { baseUrl: production, dispatcher: this.publicOnly }
  }

  /**
   * The SSRF rule of webhooks, for the production root and every URL among a tenant's credentials
   * (Simphony's auth and app servers, a vendor's regional host): a loopback, private or reserved address is never connected to
   * (BARSTOCK_WEBHOOK_ALLOW_PRIVATE lifts it, for tests). The answer is connection_failed without the
   * low-level reason, so the API cannot be used to scan a network. Operator overrides
   * (BARSTOCK_POS_BASE_URLS) are trusted.
   */
  private async refuseNonPublicHosts(vendor: PosVendor, values: string[]): Promise<void> {
    for (const url of values.filter((value) => /^https?:\/\//i.test(value))) {
      if (await publicHostRefusal(url, this.resolver)) throw new PosAdapterError('connection_failed', `Could not reach the ${vendor.posType} POS`)
    }
  }

  /** An adapter for a request's short calls (verifying credentials): a long rate limit fails fast. */
  async adapter(
    vendor: PosVendor,
    environment: Environment,
    credentials: PosCredentials,
    onCredentialsRotated?: (credentials: PosCredentials) => Promise<void>,
  ): Promise<PosAdapter> {
    const endpoint = await this.endpoint(vendor, environment, credentials)
    return vendor.createAdapter({
      credentials,
      ...endpoint,
      oauthApp: this.config.posOAuthApps[vendor.posType],
      timeoutMs: this.config.posRequestTimeoutMs,
      ...(onCredentialsRotated && { onCredentialsRotated }),
    })
  }

  /**
   * An adapter for a sync run: it waits out a vendor's rate limit (up to BARSTOCK_POS_RETRY_WAIT_SECONDS a
   * call, and while the wait ends within the run's BARSTOCK_POS_RUN_BUDGET_SECONDS from now on the run's
   * clock) and asks for the same page again, rather than failing the run to start over later. Waiting
   * holds no transaction (lines are staged as they come) and the run's heartbeat keeps its lease.
   */
  async adapterForRun(
    vendor: PosVendor,
    environment: Environment,
    credentials: PosCredentials,
    onCredentialsRotated: (credentials: PosCredentials) => Promise<void>,
    run: RunContext,
  ): Promise<PosAdapter> {
    const endpoint = await this.endpoint(vendor, environment, credentials)
    const timeouts = { timeoutMs: this.config.posRequestTimeoutMs, maxRetryWaitMs: this.config.posRetryWaitMs }
    const now = () => run.clock().getTime()
    const runBudget = { endsAt: now() + this.config.posRunBudgetMs, seconds: this.config.posRunBudgetMs / 1000, now }
    const oauthApp = this.config.posOAuthApps[vendor.posType]
    return vendor.createAdapter({ credentials, ...endpoint, oauthApp, onCredentialsRotated, ...timeouts, runBudget, signal: run.signal, wait: run.wait })
  }
}
