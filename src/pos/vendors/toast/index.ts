import { createHmac, timingSafeEqual } from 'node:crypto'
import { Type } from 'typebox'
import type { PosPush, PosVendor } from '../../adapter.js'
import { createToastAdapter } from './toast.adapter.js'
import { createToastSimulator } from './toast.simulator.js'

/** Toast: a machine client's id and secret, and the GUID of the restaurant it reads. */
const ToastCredentials = Type.Object(
  {
    client_id: Type.String({ minLength: 1, description: 'Toast API client id' }),
    client_secret: Type.String({ minLength: 1, description: 'Toast API client secret' }),
    restaurant_id: Type.String({
      pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
      description: 'Restaurant GUID, sent as Toast-Restaurant-External-ID',
    }),
  },
  { additionalProperties: false },
)

/**
 * ⚠ How Toast signs webhooks is unconfirmed: we assume an HMAC-SHA256 of the raw body keyed by the
 * webhook secret, in `Toast-Signature`, and accept it base64- or hex-encoded. Change it here.
 */
export const TOAST_PUSH_SIGNATURE = { header: 'toast-signature', algorithm: 'sha256', encodings: ['base64', 'hex'] } as const

/** ⚠ The event name field of a Toast webhook body (`eventType`), and what each event means to barstock. */
const PUSH_KINDS: Record<string, PosPush['kind']> = {
  order_updated: 'orders_changed',
  menus_updated: 'catalog_changed',
}

function signatureMatches(header: string, expected: Buffer): boolean {
  return TOAST_PUSH_SIGNATURE.encodings.some((encoding) => {
    const given = Buffer.from(header, encoding)
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
}

/** Verifies a Toast webhook's signature and reads its event type. Throws when the signature does not match. */
function parseToastPush(headers: Record<string, string | string[] | undefined>, rawBody: Buffer, secret: string): PosPush {
  const header = headers[TOAST_PUSH_SIGNATURE.header]
  const signature = (Array.isArray(header) ? header[0] : header) ?? ''
  const expected = createHmac(TOAST_PUSH_SIGNATURE.algorithm, secret).update(rawBody).digest()
  if (!signatureMatches(signature, expected)) throw new Error('Toast push signature does not match')
  let eventType: unknown
  try {
    eventType = (JSON.parse(rawBody.toString('utf8')) as { eventType?: unknown }).eventType
  } catch {
    throw new Error('Toast push body is not JSON')
  }
  return { kind: (typeof eventType === 'string' && PUSH_KINDS[eventType]) || 'other' }
}

export const toastVendor: PosVendor = {
  posType: 'toast',
  credentialsSchema: ToastCredentials,
  exampleCredentials: {
    client_id: 'barstock-sandbox-machine-client',
    client_secret: 'sandbox-client-secret-accepted-by-the-simulator',
    restaurant_id: '4a1b2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  },
  secretField: 'client_secret',
  productionBaseUrl: () => 'https://ws-api.toasttab.com',
  createAdapter: createToastAdapter,
  createSimulator: createToastSimulator,
  parsePush: parseToastPush,
}
