import { randomBytes } from 'node:crypto'
import type { PosCredentials, PosVendor } from '../vendors/adapter.js'
import { posErrors } from '../pos.errors.js'
import type { PosGateway } from '../connections/pos-gateway.js'
import { findVendor } from '../vendors/vendor-registry.js'

/**
 * What a connection needs to receive vendor pushes: the URL the operator gives the vendor, and the push
 * secret (the key the vendor signs with), sealed under the same secret key as the credentials.
 */

export const PUSH_PATH_PREFIX = '/v1/pos/push'

const GENERATED_SECRET_BYTES = 32

/** Whether the vendor sends pushes barstock can verify. */
export function vendorHasPushes(vendor: PosVendor | undefined): boolean {
  return vendor?.parsePush !== undefined
}

/**
 * The path a vendor posts pushes to, relative to the service's public address (as pagination URLs are);
 * null for vendors without pushes.
 */
export function pushUrlOf(posType: string, connectionId: string): string | null {
  return vendorHasPushes(findVendor(posType)) ? `${PUSH_PATH_PREFIX}/${connectionId}` : null
}

/** 400 push_not_supported unless the vendor sends pushes. */
export function requirePushVendor(vendor: PosVendor, parameter?: string): void {
  if (vendorHasPushes(vendor)) return
  throw posErrors.pushNotSupported(vendor.posType, parameter ? { parameter } : undefined)
}

export interface NewPushSecret {
  secret: string
  /** Generated here (shown once, in the create response) rather than supplied by the operator. */
  generated: boolean
}

/** A new connection's push secret: the one supplied, else a generated one for vendors with pushes. */
export function pushSecretForNewConnection(vendor: PosVendor, supplied: string | undefined): NewPushSecret | undefined {
  if (supplied !== undefined) return { secret: supplied, generated: false }
  if (!vendorHasPushes(vendor)) return undefined
  return { secret: randomBytes(GENERATED_SECRET_BYTES).toString('base64url'), generated: true }
}

// Its own associated data, so the sealed credentials of the same connection cannot stand in for it.
const sealingContext = (connectionId: string) => `${connectionId}:push_secret`

export function sealPushSecret(gateway: PosGateway, connectionId: string, secret: string): string {
  return gateway.seal(sealingContext(connectionId), { push_secret: secret })
}

/** Throws when the secret key changed or the stored value was tampered with. */
export function openPushSecret(gateway: PosGateway, connectionId: string, sealed: string): string {
  const secret = gateway.open(sealingContext(connectionId), sealed).push_secret
  if (secret === undefined) throw new Error(`stored push secret of ${connectionId} has no value`)
  return secret
}

/**
 * The lookup key of the vendor account a connection reads, for a vendor with one push URL per app
 * (Clover: `clover:<merchant id>`, hashed); null for other vendors.
 */
export function pushAccountKeyOf(gateway: PosGateway, vendor: PosVendor, credentials: PosCredentials): string | null {
  return vendor.appPush ? pushAccountKey(gateway, vendor.posType, credentials[vendor.appPush.accountField] ?? '') : null
}

export function pushAccountKey(gateway: PosGateway, posType: string, accountId: string): string {
  return gateway.lookupKey(`${posType}:${accountId}`)
}
