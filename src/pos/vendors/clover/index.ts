import type { AppPushRouting, PosPush, PosVendor, PushHeaders } from '../adapter.js'
import { CloverAdapter, CloverCredentials, cloverProductionBaseUrl, type CloverConfig } from './clover.adapter.js'
import { CLOVER_MAX_PAGE_SIZE, DEFAULT_CLOVER_REFRESH_FIELDS, type CloverPush, type CloverWebhookVerification } from './clover.client.js'
import { createCloverSimulator } from './clover.simulator.js'
import { pushHeader, signatureMatches } from '../push-signature.js'

export const DEFAULT_CLOVER_CONFIG: CloverConfig = {
  // The app id is the deployment's, not the merchant's: unset here, it is the adapter options' oauthApp
  // (CLOVER_APP_ID in the Config).
  appId: undefined,
  refreshFields: DEFAULT_CLOVER_REFRESH_FIELDS,
  pageSize: CLOVER_MAX_PAGE_SIZE,
  paidTimeField: 'modifiedTime',
}

function readJson(rawBody: Buffer): unknown {
  try {
    return JSON.parse(rawBody.toString('utf8'))
  } catch {
    throw new Error('Clover push body is not JSON')
  }
}

/** Clover's set-up request: a body of the verification code alone. */
function isVerification(body: unknown): body is CloverWebhookVerification {
  const fields = typeof body === 'object' && body !== null ? Object.keys(body) : []
  return fields.length === 1 && typeof (body as Partial<CloverWebhookVerification>).verificationCode === 'string'
}

function assertCloverAuth(headers: PushHeaders, secret: string): void {
  if (!signatureMatches(Buffer.from(pushHeader(headers, 'x-clover-auth')), Buffer.from(secret))) throw new Error('Clover push X-Clover-Auth does not match')
}

/** The merchants a push names (`merchants` keys), or Clover's set-up request; throws on a body that is neither. */
function readCloverPush(rawBody: Buffer): { accountIds: string[]; verificationCode?: string } {
  const body = readJson(rawBody)
  if (isVerification(body)) return { accountIds: [], verificationCode: body.verificationCode }
  const merchants = (body as Partial<CloverPush> | null)?.merchants
  if (typeof merchants !== 'object' || merchants === null || Array.isArray(merchants)) throw new Error('Clover push names no merchants')
  return { accountIds: Object.keys(merchants) }
}

/**
 * A Clover webhook. When the app's webhook URL is set up Clover posts `{verificationCode}` once, before
 * any auth code exists (docs.clover.com/docs/webhooks): it carries no X-Clover-Auth, and its code is
 * handed back for the operator to type into Clover's dashboard. Every other push carries `X-Clover-Auth`,
 * the code Clover shows once the URL is verified (one per app: a shared secret, not a signature), and
 * names the merchants it is about (`accountIds`): Clover posts every merchant's changes to the app's one
 * URL. Object ids say what changed: `O:` orders and `P:` payments mean sales to read; `I…:` (items,
 * categories, item groups) the catalog. A push naming both is about orders.
 */
function parseCloverPush(headers: PushHeaders, rawBody: Buffer, secret: string): PosPush {
  const read = readCloverPush(rawBody)
  if (read.verificationCode !== undefined) return { kind: 'other', accountIds: [], verificationCode: read.verificationCode }
  assertCloverAuth(headers, secret)
  const merchants = (readJson(rawBody) as CloverPush).merchants
  const objectIds = Object.values(merchants).flatMap((changes) => (Array.isArray(changes) ? changes.map((change) => String(change.objectId ?? '')) : []))
  const accountIds = read.accountIds
  if (objectIds.some((id) => id.startsWith('O:') || id.startsWith('P:'))) return { kind: 'orders_changed', accountIds }
  if (objectIds.some((id) => id.startsWith('I'))) return { kind: 'catalog_changed', accountIds }
  return { kind: 'other', accountIds }
}

/** Clover posts every merchant's pushes to the app's one URL, naming the merchants (docs.clover.com/docs/webhooks). */
export const CLOVER_APP_PUSH: AppPushRouting = { accountField: 'merchant_id', read: readCloverPush }

/** A Clover PosVendor with some settings overridden (tests, or a deployment that learned Clover's real field names). */
export function createCloverVendor(overrides: Partial<CloverConfig> = {}): PosVendor {
  const config = { ...DEFAULT_CLOVER_CONFIG, ...overrides }
  return {
    posType: 'clover',
    credentialsSchema: CloverCredentials,
    exampleCredentials: { merchant_id: 'Q8J5H3K2M1N0P', access_token: '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f', region: 'na' },
    secretField: 'access_token',
    productionBaseUrl: cloverProductionBaseUrl,
    createAdapter: (options) => new CloverAdapter(options, { ...config, appId: config.appId ?? options.oauthApp?.clientId }),
    createSimulator: (options) => createCloverSimulator(options, config.refreshFields),
    parsePush: parseCloverPush,
    appPush: CLOVER_APP_PUSH,
  }
}

export const cloverVendor: PosVendor = createCloverVendor()
