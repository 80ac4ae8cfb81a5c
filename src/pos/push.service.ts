import { AppError } from '../platform/errors.js'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import type { PosPush } from './adapter.js'
import { findConnectionById, updateConnectionRow } from './connections.repository.js'
import { posErrors } from './pos.errors.js'
import type { PosGateway } from './pos-gateway.js'
import type { PushReceipt } from './pos.schemas.js'
import { openPushSecret } from './push-setup.js'
import { triggerSync } from './sync.service.js'
import { findVendor } from './vendor-registry.js'

/** What a vendor sent, exactly as it arrived: the signature covers these bytes (and, for Square, the URL). */
export interface IncomingPush {
  connectionId: string
  headers: Record<string, string | string[] | undefined>
  rawBody: Buffer
  /** The absolute URL the vendor posted to, as the vendor saw it. */
  url: string
}

export interface VerifiedPush {
  tenant: Tenant
  connectionId: string
  kind: PosPush['kind']
  verificationCode?: string
}

/** Recorded as the run's `triggered_by`. */
const PUSH_TRIGGER = 'vendor_push'

/**
 * Checks a push against its connection before any transaction opens: the connection exists, its vendor
 * sends pushes, it has a push secret, the vendor's signature verifies, and only then that the connection
 * is realtime and not paused (so only the vendor learns its state). Throws connection_not_found,
 * push_not_supported, push_not_enabled, invalid_push_signature.
 */
export async function verifyPush(db: Executor, gateway: PosGateway, push: IncomingPush): Promise<VerifiedPush> {
  const row = await findConnectionById(db, push.connectionId)
  if (!row || row.deleted_at) throw posErrors.connectionNotFound(push.connectionId)
  const vendor = findVendor(row.pos_type)
  if (!vendor?.parsePush) throw posErrors.pushNotSupported(row.pos_type)
  if (!row.push_secret) {
    throw posErrors.pushNotEnabled([row.id, 'it has no push secret; set one with PUT /v1/pos/connections/:id'], { reason: 'no_push_secret' })
  }
  // Outside the try: a secret that no longer opens is our failure (500), not the vendor's.
  const secret = openPushSecret(gateway, row.id, row.push_secret)
  let parsed: PosPush
  try {
    parsed = vendor.parsePush(push.headers, push.rawBody, secret, push.url)
  } catch (error) {
    throw posErrors.invalidPushSignature([row.id, (error as Error).message])
  }
  const tenant = { accountId: row.account_id, environment: row.environment }
  // The set-up handshake comes before the connection is made realtime: it is only recorded.
  if (parsed.verificationCode !== undefined) return { tenant, connectionId: row.id, kind: 'other', verificationCode: parsed.verificationCode }
  if (row.sync_frequency !== 'realtime') {
    throw posErrors.pushNotEnabled([row.id, `its sync_frequency is ${row.sync_frequency}, not realtime`], {
      reason: 'not_realtime',
      sync_frequency: row.sync_frequency,
    })
  }
  if (row.status === 'inactive') throw posErrors.pushNotEnabled([row.id, 'it is paused (status inactive)'], { reason: 'inactive' })
  return { tenant, connectionId: row.id, kind: parsed.kind }
}

/**
 * Queues an incremental run for a verified push that reports changed orders or catalog (an incremental
 * run re-reads the catalog too). A run already queued or running will read the change: then, as for a
 * push about anything else, nothing is queued and the push still succeeds, so the vendor does not retry.
 * A vendor's set-up handshake records its verification code on the connection instead.
 * Throws connection_not_found (deleted since it was verified).
 */
export async function queuePushSync(trx: Trx, push: VerifiedPush): Promise<PushReceipt> {
  if (push.verificationCode !== undefined) {
    await updateConnectionRow(trx, push.connectionId, { push_verification_code: push.verificationCode })
    return { kind: push.kind, queued: false, sync_id: null }
  }
  if (push.kind === 'other') return { kind: push.kind, queued: false, sync_id: null }
  try {
    const run = await triggerSync(trx, push.tenant, push.connectionId, 'incremental', PUSH_TRIGGER)
    return { kind: push.kind, queued: true, sync_id: run.sync_id }
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== posErrors.syncInProgress.code) throw error
    const running = error.details?.sync_id
    return { kind: push.kind, queued: false, sync_id: typeof running === 'string' ? running : null }
  }
}
