import { createHmac, timingSafeEqual } from 'node:crypto'
import { Type } from 'typebox'
import type { PosPush, PosVendor } from '../../adapter.js'
import { createSquareAdapter } from './square.adapter.js'
import { createSquareSimulator } from './square.simulator.js'

/** Square: a bearer access token and the location whose sales barstock reads. */
const SquareCredentials = Type.Object(
  {
    access_token: Type.String({ minLength: 1, description: 'Personal access token or OAuth access token' }),
    location_id: Type.String({ minLength: 1, description: 'The Square location (bar) to read' }),
  },
  { additionalProperties: false },
)

const SIGNATURE_HEADER = 'x-square-hmacsha256-signature'

const PUSH_KINDS: Record<string, PosPush['kind']> = {
  'order.created': 'orders_changed',
  'order.updated': 'orders_changed',
  'catalog.version.updated': 'catalog_changed',
}

/**
 * Verifies a Square webhook: the signature is base64 HMAC-SHA256, keyed by the subscription's
 * signature key, of the notification URL followed by the raw body. Throws when it does not match.
 */
function parseSquarePush(headers: Record<string, string | string[] | undefined>, rawBody: Buffer, secret: string, url: string): PosPush {
  const header = headers[SIGNATURE_HEADER]
  const signature = Buffer.from((Array.isArray(header) ? header[0] : header) ?? '', 'base64')
  const expected = createHmac('sha256', secret).update(url).update(rawBody).digest()
  if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) {
    throw new Error('Square push signature does not match')
  }
  let type: unknown
  try {
    type = (JSON.parse(rawBody.toString('utf8')) as { type?: unknown }).type
  } catch {
    throw new Error('Square push body is not JSON')
  }
  return { kind: (typeof type === 'string' && PUSH_KINDS[type]) || 'other' }
}

export const squareVendor: PosVendor = {
  posType: 'square',
  credentialsSchema: SquareCredentials,
  exampleCredentials: { access_token: 'EAAAlSimulatedBarAccessTokenForTheSandbox0000000000000000000000', location_id: 'L8SIMBAR0001' },
  secretField: 'access_token',
  productionBaseUrl: () => 'https://connect.squareup.com',
  createAdapter: createSquareAdapter,
  createSimulator: createSquareSimulator,
  parsePush: parseSquarePush,
}
