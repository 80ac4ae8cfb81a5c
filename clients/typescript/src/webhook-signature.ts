/**
 * Verification of the `X-Webhook-Signature` header barstock sends with every webhook delivery:
 * `t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<body>", keyed with the webhook secret>`.
 * Web Crypto only, so it runs in Node 20+, Deno, Bun, edge runtimes and browsers alike.
 */

/** The age past which a delivery is refused (the API's documented tolerance). */
export const DEFAULT_TOLERANCE_SECONDS = 300

export type WebhookSignatureFailure = 'malformed_header' | 'timestamp_too_old' | 'signature_mismatch'

export class WebhookSignatureError extends Error {
  override readonly name = 'WebhookSignatureError'
  constructor(
    readonly reason: WebhookSignatureFailure,
    message: string,
  ) {
    super(message)
  }
}

export interface VerifyWebhookSignatureOptions {
  /** The body exactly as received, before any JSON parsing (a re-serialised body does not match). */
  payload: string | Uint8Array
  /** The `X-Webhook-Signature` header's value. */
  header: string
  /** The webhook's secret (`whsec_…`), as answered when it was created. */
  secret: string
  /** Refuse deliveries signed longer ago than this; 300 by default. */
  toleranceSeconds?: number
  /** The current time in unix seconds; the system clock by default. */
  nowSeconds?: number
}

const HEX_SIGNATURE = /^[0-9a-f]{64}$/
const encoder = new TextEncoder()

/** The header's timestamp and its v1 signatures, or undefined when it is not `t=…,v1=…`. */
function parseHeader(header: string): { timestamp: number; signatures: string[] } | undefined {
  let timestamp: number | undefined
  const signatures: string[] = []
  for (const part of header.split(',')) {
    const [name, value = ''] = part.trim().split('=', 2)
    if (name === 't' && /^\d+$/.test(value)) timestamp = Number(value)
    if (name === 'v1' && HEX_SIGNATURE.test(value)) signatures.push(value)
  }
  return timestamp === undefined || signatures.length === 0 ? undefined : { timestamp, signatures }
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16))
}

function signedBytes(timestamp: number, payload: string | Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${timestamp}.`)
  const body = typeof payload === 'string' ? encoder.encode(payload) : payload
  const signed = new Uint8Array(prefix.length + body.length)
  signed.set(prefix)
  signed.set(body, prefix.length)
  return signed
}

/**
 * Resolves when `header` signs `payload` with `secret` and is not older than the tolerance; otherwise
 * rejects with a WebhookSignatureError naming the reason. The comparison is Web Crypto's HMAC verify,
 * which takes the same time however many leading bytes match.
 */
export async function verifyWebhookSignature(options: VerifyWebhookSignatureOptions): Promise<void> {
  const parsed = parseHeader(options.header)
  if (!parsed) throw new WebhookSignatureError('malformed_header', 'The signature header is not "t=<unix seconds>,v1=<hex>"')
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000)
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  if (now - parsed.timestamp > tolerance) {
    throw new WebhookSignatureError('timestamp_too_old', `The delivery was signed ${now - parsed.timestamp} s ago (tolerance ${tolerance} s)`)
  }
  const key = await crypto.subtle.importKey('raw', encoder.encode(options.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
  const signed = signedBytes(parsed.timestamp, options.payload)
  for (const signature of parsed.signatures) {
    if (await crypto.subtle.verify('HMAC', key, hexBytes(signature), signed)) return
  }
  throw new WebhookSignatureError('signature_mismatch', 'No v1 signature matches this payload and secret')
}
