import { AppError } from '../../platform/errors.js'
import type { Executor, Tenant, Trx } from '../../platform/db/database.js'
import type { PosPush } from '../vendors/adapter.js'
import { findAppVerificationCode, saveAppVerificationCode } from './app-push-setups.repository.js'
import { type ConnectionRow, findConnectionById, updateConnectionRow } from '../connections/connections.repository.js'
import { posErrors } from '../pos.errors.js'
import type { PosGateway } from '../connections/pos-gateway.js'
import type { AppPushReceipt, AppPushSetup, PushReceipt } from './push.schemas.js'
import { openPushSecret, PUSH_PATH_PREFIX, pushAccountKey, pushAccountKeyOf } from './push-setup.js'
import { triggerSync } from '../sync/sync.service.js'
import { findVendor } from '../vendors/vendor-registry.js'

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

/** A push to a vendor's app-level URL, as it arrived. */
export interface IncomingAppPush {
  posType: string
  headers: Record<string, string | string[] | undefined>
  rawBody: Buffer
  url: string
}

/** Why a connection a verified app-level push names queues nothing (as push_not_enabled's reasons). */
export type AppPushSkip = 'not_realtime' | 'inactive'

export interface VerifiedAppPush {
  kind: PosPush['kind']
  /** The vendor's set-up request: its code, for the operator (no connection is named). */
  verificationCode?: string
  /** The connections of the accounts the push names whose push secret verified it. */
  connections: { push: VerifiedPush; skipped: AppPushSkip | null }[]
}

/**
 * Checks a push to a vendor's app-level URL (Clover posts every merchant's changes to its app's one
 * URL), before any transaction opens: the vendor has one, its body names accounts (or is the set-up
 * request), and for every live connection of those accounts (found by lookup key, in any tenant) the
 * connection's push secret verifies it. Connections whose secret does not verify are left out; if none
 * does, 401 invalid_push_signature. A push naming no connected account changes nothing.
 * Throws push_not_supported, invalid_push_signature.
 */
export async function verifyAppPush(db: Executor, gateway: PosGateway, push: IncomingAppPush): Promise<VerifiedAppPush> {
  const vendor = findVendor(push.posType)
  if (!vendor?.appPush || !vendor.parsePush) throw posErrors.pushNotSupported(push.posType)
  let read: ReturnType<typeof vendor.appPush.read>
  try {
    read = vendor.appPush.read(push.rawBody)
  } catch (error) {
    throw posErrors.invalidPushSignature([`the ${push.posType} app URL`, (error as Error).message])
  }
  if (read.verificationCode !== undefined) return { kind: 'other', verificationCode: read.verificationCode, connections: [] }
  await fillPushAccountKeys(db, gateway, push.posType)
  const keys = [...new Set(read.accountIds)].map((accountId) => pushAccountKey(gateway, push.posType, accountId))
  const rows =
    keys.length === 0
      ? []
      : await db
          .selectFrom('pos_connections')
          .selectAll()
          .where('push_account_key', 'in', keys)
          .where('pos_type', '=', push.posType)
          .where('deleted_at', 'is', null)
          .orderBy('id')
          .execute()
  const connections: VerifiedAppPush['connections'] = []
  let kind: PosPush['kind'] = 'other'
  for (const row of rows) {
    const parsed = verifiedBy(gateway, row, push)
    if (!parsed) continue
    kind = parsed.kind
    const skipped = row.sync_frequency !== 'realtime' ? 'not_realtime' : row.status === 'inactive' ? 'inactive' : null
    connections.push({ push: { tenant: { accountId: row.account_id, environment: row.environment }, connectionId: row.id, kind: parsed.kind }, skipped })
  }
  if (rows.length > 0 && connections.length === 0) {
    throw posErrors.invalidPushSignature([`the ${push.posType} app URL`, 'no connection of the accounts it names has the push secret it carries'])
  }
  return { kind, connections }
}

/** The push as the connection's own secret reads it, or undefined when that secret does not verify it. */
function verifiedBy(gateway: PosGateway, row: ConnectionRow, push: IncomingAppPush): PosPush | undefined {
  const vendor = findVendor(row.pos_type)
  if (!row.push_secret || !vendor?.parsePush) return undefined
  const secret = openPushSecret(gateway, row.id, row.push_secret)
  try {
    return vendor.parsePush(push.headers, push.rawBody, secret, push.url)
  } catch {
    return undefined
  }
}

/**
 * Gives the vendor's connections made before lookup keys existed their key, opening their credentials
 * once; later pushes find every connection by key alone.
 */
async function fillPushAccountKeys(db: Executor, gateway: PosGateway, posType: string): Promise<void> {
  const vendor = findVendor(posType)
  if (!vendor) return
  const missing = await db.selectFrom('pos_connections').select(['id', 'credentials']).where('pos_type', '=', posType).where('push_account_key', 'is', null).execute()
  for (const row of missing) {
    let key: string | null
    try {
      key = pushAccountKeyOf(gateway, vendor, gateway.open(row.id, row.credentials))
    } catch {
      continue // Sealed under another secret key: its runs fail already, and it stays unroutable.
    }
    await db.updateTable('pos_connections').set({ push_account_key: key }).where('id', '=', row.id).where('push_account_key', 'is', null).execute()
  }
}

/**
 * Queues a run on every connection a verified app-level push names that takes pushes (queuePushSync
 * each); the vendor's set-up request instead keeps its code for the operator (appPushSetup).
 */
export async function queueAppPushSyncs(trx: Trx, posType: string, push: VerifiedAppPush): Promise<AppPushReceipt> {
  if (push.verificationCode !== undefined) await saveAppVerificationCode(trx, posType, push.verificationCode, new Date())
  const connections: AppPushReceipt['connections'] = []
  for (const { push: connectionPush, skipped } of push.connections) {
    const receipt = skipped ? { queued: false, sync_id: null } : await queuePushSync(trx, connectionPush)
    connections.push({ connection_id: connectionPush.connectionId, kind: connectionPush.kind, queued: receipt.queued, sync_id: receipt.sync_id, skipped })
  }
  return { kind: push.kind, verification_code_received: push.verificationCode !== undefined, connections }
}

/**
 * A vendor app's push URL and the set-up code it received last. The URL belongs to the deployment, not
 * to an account (Clover posts every merchant of the app to it), so every account's keys read the same
 * answer. Throws push_not_supported for a vendor without an app-level URL.
 */
export async function appPushSetup(db: Executor, posType: string): Promise<AppPushSetup> {
  if (!findVendor(posType)?.appPush) throw posErrors.pushNotSupported(posType)
  const received = await findAppVerificationCode(db, posType)
  return {
    pos_type: posType,
    push_url: `${PUSH_PATH_PREFIX}/apps/${posType}`,
    verification_code: received?.code ?? null,
    verification_code_received_at: received?.receivedAt.toISOString() ?? null,
  }
}
