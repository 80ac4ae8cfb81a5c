import { isIP } from 'node:net'
import { performance } from 'node:perf_hooks'
import { Agent, request } from 'undici'
import { guardedLookup, isRefusedAddress, RefusedAddressError, type Resolver, systemResolver } from '../platform/network-guard.js'
import { signatureHeader } from './signature.js'

/** The spec's acknowledgement limit: a receiver answers within 5 seconds. */
export const DELIVERY_TIMEOUT_MS = 5000

export interface OutgoingDelivery {
  url: string
  secret: string
  eventId: string
  eventKind: string
  /** The JSON envelope, exactly as it is signed and sent. */
  body: string
}

/** What one HTTP attempt came to. */
export interface AttemptOutcome {
  attemptedAt: Date
  delivered: boolean
  statusCode: number | null
  durationMs: number
  error: string | null
}

export interface SenderOptions {
  allowPrivate: boolean
  resolver?: Resolver
  timeoutMs?: number
  /** Open connections per receiver origin. */
  connectionsPerOrigin?: number
}

const USER_AGENT = 'barstock-webhooks/1'

function describe(error: unknown, timeoutMs: number): string {
  const failure = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } }
  if (failure.name === 'TimeoutError' || failure.code === 'UND_ERR_HEADERS_TIMEOUT' || failure.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `no answer within ${timeoutMs} ms`
  }
  const cause = failure.cause?.message && failure.cause.message !== failure.message ? `: ${failure.cause.message}` : ''
  return `${failure.message ?? String(error)}${cause}`.slice(0, 500)
}

/**
 * Sends signed deliveries over HTTP (undici). Every connection goes through the SSRF guard: host names
 * are resolved and checked by the socket's own lookup, IP literals are checked before the request, and
 * redirects are not followed. Never throws: every failure becomes an outcome.
 */
export class DeliverySender {
  private readonly agent: Agent
  private readonly timeoutMs: number
  private readonly allowPrivate: boolean

  constructor(options: SenderOptions) {
    this.allowPrivate = options.allowPrivate
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS
    this.agent = new Agent({
      connections: options.connectionsPerOrigin ?? 32,
      keepAliveTimeout: 4000,
      connect: {
        timeout: this.timeoutMs,
        lookup: guardedLookup(options.resolver ?? systemResolver, options.allowPrivate),
      },
    })
  }

  async send(delivery: OutgoingDelivery): Promise<AttemptOutcome> {
    const attemptedAt = new Date()
    const started = performance.now()
    const outcome = (fields: Pick<AttemptOutcome, 'delivered' | 'statusCode' | 'error'>): AttemptOutcome => ({
      attemptedAt,
      durationMs: Math.round(performance.now() - started),
      ...fields,
    })
    try {
      const url = new URL(delivery.url)
      const host = url.hostname.replace(/^\[|\]$/g, '')
      // The socket's lookup is skipped for IP literals, so they are checked here.
      if (!this.allowPrivate && isIP(host) && isRefusedAddress(host)) throw new RefusedAddressError(host, host)
      const response = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'x-webhook-id': delivery.eventId,
          'x-webhook-event': delivery.eventKind,
          'x-webhook-signature': signatureHeader(delivery.secret, delivery.body, Math.floor(Date.now() / 1000)),
        },
        body: delivery.body,
        signal: AbortSignal.timeout(this.timeoutMs),
      })
      await response.body.dump()
      const delivered = response.statusCode >= 200 && response.statusCode < 300
      return outcome({ delivered, statusCode: response.statusCode, error: delivered ? null : `receiver answered HTTP ${response.statusCode}` })
    } catch (error) {
      return outcome({ delivered: false, statusCode: null, error: describe(error, this.timeoutMs) })
    }
  }

  async close(): Promise<void> {
    await this.agent.close()
  }
}
