import { createHmac } from 'node:crypto'
import { Type } from 'typebox'
import type { PosPush, PosVendor, PushHeaders } from '../adapter.js'
import type { PosOAuthApp } from '../../../platform/config.js'
import { createSquareAdapter, type SquareConfig } from './square.adapter.js'
import { createSquareSimulator } from './square.simulator.js'
import { pushHeader, signatureMatches } from '../push-signature.js'
import { BAR_LOCATION_ID } from './square.simulator-render.js'
import { DAY_MS } from '../../../platform/zoned-time.js'

/**
 * Square: a bearer access token and the location whose sales barstock reads. An OAuth connection adds
 * its refresh token and when its access token expires, so the adapter can renew it (a personal access
 * token does not expire and has neither).
 */
const SquareCredentials = Type.Object(
  {
    access_token: Type.String({ minLength: 1, description: 'Personal access token or OAuth access token' }),
    location_id: Type.String({ minLength: 1, description: 'The Square location (bar) to read' }),
    refresh_token: Type.Optional(Type.String({ minLength: 1, description: 'OAuth refresh token (single-use and rotated in the PKCE flow)' })),
    expires_at: Type.Optional(Type.String({ minLength: 1, description: "When the OAuth access token expires, ISO 8601 (ObtainToken's expires_at)" })),
  },
  { additionalProperties: false },
)

export const DEFAULT_SQUARE_CONFIG: SquareConfig = {
  // The application is the deployment's, not the bar's: unset here, it is the adapter options' oauthApp
  // (SQUARE_APPLICATION_ID and SQUARE_APPLICATION_SECRET in the Config).
  applicationId: undefined,
  applicationSecret: undefined,
  // Square asks for OAuth tokens to be renewed every 7 days or less: a 30-day token with under 23 days left.
  renewBeforeExpiryMs: 23 * DAY_MS,
}

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
function parseSquarePush(headers: PushHeaders, rawBody: Buffer, secret: string, url: string): PosPush {
  const signature = Buffer.from(pushHeader(headers, SIGNATURE_HEADER), 'base64')
  const expected = createHmac('sha256', secret).update(url).update(rawBody).digest()
  if (!signatureMatches(signature, expected)) {
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

/** The vendor's settings, the deployment's application filling what they leave unset. */
function withApplication(config: SquareConfig, app: PosOAuthApp | undefined): SquareConfig {
  return { ...config, applicationId: config.applicationId ?? app?.clientId, applicationSecret: config.applicationSecret ?? app?.clientSecret }
}

/** A Square PosVendor with some settings overridden (tests, or a deployment's own Square application). */
export function createSquareVendor(overrides: Partial<SquareConfig> = {}): PosVendor {
  const config = { ...DEFAULT_SQUARE_CONFIG, ...overrides }
  return {
    posType: 'square',
    credentialsSchema: SquareCredentials,
    exampleCredentials: { access_token: 'EAAAlSimulatedBarAccessTokenForTheSandbox0000000000000000000000', location_id: BAR_LOCATION_ID },
    secretField: 'access_token',
    productionBaseUrl: () => 'https://connect.squareup.com',
    createAdapter: (options) => createSquareAdapter(options, withApplication(config, options.oauthApp)),
    createSimulator: (options) => createSquareSimulator(options),
    parsePush: parseSquarePush,
  }
}

export const squareVendor: PosVendor = createSquareVendor()
