import type { Config } from '../platform/config.js'
import type { Environment } from '../platform/db/database.js'
import { resolveSecretKey } from '../platform/secret-key.js'
import type { PosAdapter, PosCredentials, PosVendor } from './adapter.js'
import { decryptCredentials, encryptCredentials } from './credential-cipher.js'
import { sandboxSimulatorUrl } from './sandbox-simulators.js'

/**
 * How the core reaches a POS: production connections call the vendor's host (or the override in
 * BARSTOCK_POS_BASE_URLS), sandbox connections call the vendor's simulator in this process. It also
 * holds the secret key that seals stored credentials, read on first use.
 */
export class PosGateway {
  private key: Buffer | undefined

  constructor(private readonly config: Pick<Config, 'secretKey' | 'dataDir' | 'posBaseUrls' | 'posRetryWaitMs'>) {}

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

  async baseUrl(vendor: PosVendor, environment: Environment, credentials: PosCredentials): Promise<string> {
    if (environment === 'sandbox') return sandboxSimulatorUrl(vendor)
    return this.config.posBaseUrls[vendor.posType] ?? vendor.productionBaseUrl(credentials)
  }

  /** An adapter for a request's short calls (verifying credentials): a long rate limit fails fast. */
  async adapter(
    vendor: PosVendor,
    environment: Environment,
    credentials: PosCredentials,
    onCredentialsRotated?: (credentials: PosCredentials) => Promise<void>,
  ): Promise<PosAdapter> {
    const baseUrl = await this.baseUrl(vendor, environment, credentials)
    return vendor.createAdapter({ credentials, baseUrl, ...(onCredentialsRotated && { onCredentialsRotated }) })
  }

  /**
   * An adapter for a sync run: it waits out a vendor's rate limit (up to BARSTOCK_POS_RETRY_WAIT_SECONDS a
   * call) and asks for the same page again, rather than failing the run to start over later. Waiting holds
   * no transaction (lines are staged as they come) and the run's heartbeat keeps its lease.
   */
  async adapterForRun(
    vendor: PosVendor,
    environment: Environment,
    credentials: PosCredentials,
    onCredentialsRotated: (credentials: PosCredentials) => Promise<void>,
  ): Promise<PosAdapter> {
    const baseUrl = await this.baseUrl(vendor, environment, credentials)
    return vendor.createAdapter({ credentials, baseUrl, onCredentialsRotated, maxRetryWaitMs: this.config.posRetryWaitMs })
  }
}
