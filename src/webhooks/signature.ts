import { createHmac, randomBytes } from 'node:crypto'

/**
 * The `X-Webhook-Signature` value of the spec: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`,
 * keyed with the webhook secret, over exactly the bytes sent.
 */
export function signatureHeader(secret: string, body: string, timestampSeconds: number): string {
  const signature = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex')
  return `t=${timestampSeconds},v1=${signature}`
}

/** A signing secret for a webhook created without one: 192 random bits. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`
}
