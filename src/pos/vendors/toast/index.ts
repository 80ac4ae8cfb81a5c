import { createHmac } from 'node:crypto'
import { Type } from 'typebox'
import type { PosPush, PosVendor, PushHeaders } from '../adapter.js'
import { createToastAdapter } from './toast.adapter.js'
import { createToastSimulator } from './toast.simulator.js'
import { pushHeader, signatureMatches } from '../push-signature.js'

/** Toast: a machine client's id and secret, and the GUID of the restaurant it reads. */
const ToastCredentials = Type.Object(
  {
    client_id: Type.String({ minLength: 1, description: 'Toast API client id' }),
    client_secret: Type.String({ minLength: 1, description: 'Toast API client secret' }),
    restaurant_id: Type.String({
      pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
      'x-pattern-rule': 'must be a GUID, 32 hexadecimal digits grouped 8-4-4-4-12 (e.g. 4a1b2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d)',
      description: 'Restaurant GUID, sent as Toast-Restaurant-External-ID',
    }),
  },
  { additionalProperties: false },
)

/**
 * How Toast signs a webhook (doc.toasttab.com/doc/devguide/apiMessageSigning.html): HMAC-SHA256, keyed
 * by the subscription's secret, over the raw body followed by the message's timestamp, base64-encoded in
 * the `Toast-Signature` header. Toast documents no timestamp header, and every message body carries a
 * `timestamp` (apiMessageDataSchema): ⚠ we take that field as the signed timestamp.
 */
export const TOAST_PUSH_SIGNATURE = { header: 'toast-signature', algorithm: 'sha256', encoding: 'base64' } as const

/** The event name field of a Toast webhook body (`eventType`), and what each event means to barstock. */
const PUSH_KINDS: Record<string, PosPush['kind']> = {
  order_updated: 'orders_changed',
  menus_updated: 'catalog_changed',
}

interface ToastPushMessage {
  timestamp?: unknown
  eventType?: unknown
}

function readPushMessage(rawBody: Buffer): ToastPushMessage {
  try {
    const message: unknown = JSON.parse(rawBody.toString('utf8'))
    if (typeof message === 'object' && message !== null) return message
  } catch {
    // answered below
  }
  throw new Error('Toast push body is not a JSON object')
}

/**
 * Verifies a Toast webhook's signature and reads its event type. Throws when the signature does not
 * match. No replay window: Toast documents none, retries a message it could not deliver, and a replayed
 * push only triggers one more (idempotent) sync.
 */
function parseToastPush(headers: PushHeaders, rawBody: Buffer, secret: string): PosPush {
  const signature = Buffer.from(pushHeader(headers, TOAST_PUSH_SIGNATURE.header), TOAST_PUSH_SIGNATURE.encoding)
  const message = readPushMessage(rawBody)
  const timestamp = typeof message.timestamp === 'string' ? message.timestamp : ''
  const signed = Buffer.concat([rawBody, Buffer.from(timestamp, 'utf8')])
  const expected = createHmac(TOAST_PUSH_SIGNATURE.algorithm, secret).update(signed).digest()
  if (!signatureMatches(signature, expected)) throw new Error('Toast push signature does not match')
  return { kind: (typeof message.eventType === 'string' && PUSH_KINDS[message.eventType]) || 'other' }
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
