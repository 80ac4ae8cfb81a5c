import { timingSafeEqual } from 'node:crypto'
import type { PosPush, PosVendor } from '../../adapter.js'
import { CloverAdapter, CloverCredentials, cloverProductionBaseUrl, type CloverConfig } from './clover.adapter.js'
import { CLOVER_MAX_PAGE_SIZE, DEFAULT_CLOVER_REFRESH_FIELDS, type CloverPush } from './clover.client.js'
import { createCloverSimulator } from './clover.simulator.js'

/** A Clover push as read: the merchants it is about and, for Clover's set-up request, the verification code. */
export interface CloverPushReading extends PosPush {
  merchantIds: string[]
  verificationCode?: string
}

export const DEFAULT_CLOVER_CONFIG: CloverConfig = {
  // The app id is the deployment's, not the merchant's: it comes from the environment.
  appId: process.env.CLOVER_APP_ID || undefined,
  refreshFields: DEFAULT_CLOVER_REFRESH_FIELDS,
  pageSize: CLOVER_MAX_PAGE_SIZE,
  openTabLookbackMs: 24 * 3_600_000,
}

/**
 * A Clover webhook: `X-Clover-Auth` carries the code Clover sent when the webhook URL was verified (it is
 * a shared secret, not a signature). Object ids say what changed: `O:` orders and `P:` payments mean
 * sales to read; `I…:` (items, categories, item groups) the catalog. A push naming both is about orders.
 */
function parseCloverPush(headers: Record<string, string | string[] | undefined>, rawBody: Buffer, secret: string): PosPush {
  const header = headers['x-clover-auth']
  const code = Buffer.from((Array.isArray(header) ? header[0] : header) ?? '')
  const expected = Buffer.from(secret)
  if (code.length !== expected.length || !timingSafeEqual(code, expected)) throw new Error('Clover push X-Clover-Auth does not match')
  let push: Partial<CloverPush>
  try {
    push = JSON.parse(rawBody.toString('utf8')) as Partial<CloverPush>
  } catch {
    throw new Error('Clover push body is not JSON')
  }
  const objectIds = Object.values(push.merchants ?? {}).flatMap((changes) => (Array.isArray(changes) ? changes.map((change) => String(change.objectId ?? '')) : []))
  if (objectIds.some((id) => id.startsWith('O:') || id.startsWith('P:'))) return { kind: 'orders_changed' }
  if (objectIds.some((id) => id.startsWith('I'))) return { kind: 'catalog_changed' }
  return { kind: 'other' }
}

/** A Clover PosVendor with some settings overridden (tests, or a deployment that learned Clover's real field names). */
export function createCloverVendor(overrides: Partial<CloverConfig> = {}): PosVendor {
  const config = { ...DEFAULT_CLOVER_CONFIG, ...overrides }
  return {
    posType: 'clover',
    credentialsSchema: CloverCredentials,
    exampleCredentials: { merchant_id: 'Q8J5H3K2M1N0P', access_token: '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f', region: 'na' },
    secretField: 'access_token',
    productionBaseUrl: cloverProductionBaseUrl,
    createAdapter: (options) => new CloverAdapter(options, config),
    createSimulator: (options) => createCloverSimulator(options, config.refreshFields),
    parsePush: parseCloverPush,
  }
}

export const cloverVendor: PosVendor = createCloverVendor()
