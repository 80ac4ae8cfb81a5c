import { request } from 'undici'
import { timerWait, type Wait } from '../../platform/background.js'
import { RefusedAddressError } from '../../platform/network-guard.js'
import { PosAdapterError, type VendorTransport } from './adapter.js'

/**
 * The HTTP all vendor clients share: timeouts, 429 handling with Retry-After, bounded retries of 5xx,
 * and the mapping of transport failures to PosAdapterError. Vendor clients add their auth headers and
 * read their own error bodies; nothing here knows a vendor.
 */

/** maxRetryWaitMs is the longest total wait for Retry-After inside one call before giving up with rate_limited. */
export interface VendorHttpOptions extends VendorTransport {
  vendor: string
  baseUrl: string
}

/** The transport fields of a vendor's options, to pass on to VendorHttp. */
export function transportOf(options: VendorTransport): VendorTransport {
  const { timeoutMs, maxRetryWaitMs, signal, dispatcher, runBudget, wait } = options
  return { timeoutMs, maxRetryWaitMs, signal, dispatcher, runBudget, wait }
}

export interface VendorRequest {
  method?: 'GET' | 'POST' | 'PUT'
  /** Appended to baseUrl; may already carry a query string. */
  path: string
  query?: Record<string, string | number | string[] | undefined>
  headers?: Record<string, string>
  /** A JSON body (sent as application/json) or a form (application/x-www-form-urlencoded). */
  json?: unknown
  form?: Record<string, string>
  /**
   * The request only reads, so it is sent again when its connection drops: true for a GET, and to be set
   * on a POST that reads (Square's searches, Simphony's BI calls). Never on a token refresh, whose
   * single-use refresh token the first send may already have spent.
   */
  read?: boolean
}

export interface VendorResponse<T = unknown> {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: T
}

const DEFAULT_TIMEOUT_MS = 10_000
const DEFAULT_MAX_RETRY_WAIT_MS = 5_000
const SERVER_ERROR_RETRIES = 2
const RATE_LIMIT_RETRIES = 5

/** Retry-After as seconds: either delta-seconds or an HTTP date. */
export function retryAfterSeconds(header: string | string[] | undefined, fallback = 1): number {
  const value = Array.isArray(header) ? header[0] : header
  if (!value) return fallback
  if (/^\d+$/.test(value.trim())) return Number(value)
  const date = Date.parse(value)
  return Number.isNaN(date) ? fallback : Math.max(0, Math.ceil((date - Date.now()) / 1000))
}

function buildUrl(baseUrl: string, path: string, query: VendorRequest['query']): string {
  const url = new URL(baseUrl.replace(/\/$/, '') + path)
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item))
  }
  return url.toString()
}

/** undici's codes for a connection the other side closed or reset (before or during the answer). */
const DROPPED_CONNECTION_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE'])

/** connection_failed because the connection dropped: a read may be sent again. */
class DroppedConnection extends PosAdapterError {
  constructor(message: string) {
    super('connection_failed', message)
  }
}

export class VendorHttp {
  private readonly timeoutMs: number
  private readonly maxRetryWaitMs: number
  private readonly wait: Wait

  constructor(private readonly options: VendorHttpOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.maxRetryWaitMs = options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS
    this.wait = options.wait ?? timerWait
  }

  /**
   * Sends a request and parses its JSON answer. 429s are waited out while the Retry-After fits the
   * call's budget and the run's; 5xx, and a read whose connection dropped, are retried twice; then
   * rate_limited or connection_failed. Other statuses come back to the caller, which knows what the
   * vendor means by them.
   */
  async send<T = unknown>(req: VendorRequest): Promise<VendorResponse<T>> {
    // Counted apart: a 429 says nothing about the vendor's health, so it spends none of a 5xx's retries.
    let rateLimits = 0
    let serverFailures = 0
    let waitedMs = 0
    for (;;) {
      let response: Awaited<ReturnType<VendorHttp['once']>>
      try {
        response = await this.once(req)
      } catch (error) {
        // A vendor's load balancer closes kept-alive sockets, and an answer can be cut mid-body: a read is
        // asked again, as a 5xx is (asking twice changes nothing at the vendor); a write is not.
        const reads = req.read ?? (req.method ?? 'GET') === 'GET'
        if (!(error instanceof DroppedConnection) || !reads || serverFailures >= SERVER_ERROR_RETRIES) throw error
        await this.backOff(serverFailures++)
        continue
      }
      if (response.status === 429) {
        const seconds = retryAfterSeconds(response.headers['retry-after'])
        if (rateLimits >= RATE_LIMIT_RETRIES || waitedMs + seconds * 1000 > this.maxRetryWaitMs) {
          throw new PosAdapterError('rate_limited', `${this.options.vendor} rate limit: retry after ${seconds} s`, seconds)
        }
        this.refuseWaitPastRunBudget(seconds)
        rateLimits++
        waitedMs += seconds * 1000
        await this.wait(seconds * 1000, this.options.signal)
        continue
      }
      if (response.status >= 500) {
        if (serverFailures < SERVER_ERROR_RETRIES) {
          await this.backOff(serverFailures++)
          continue
        }
        throw new PosAdapterError('connection_failed', `${this.options.vendor} answered ${response.status}`)
      }
      return { ...response, body: this.parse<T>(response.text, response.status) }
    }
  }

  /** The wait before the nth retry (from 0) of a 5xx or a dropped read: 250 ms, then 500 ms. */
  private backOff(attempt: number): Promise<void> {
    return this.wait(250 * 2 ** attempt, this.options.signal)
  }

  private refuseWaitPastRunBudget(seconds: number): void {
    const budget = this.options.runBudget
    if (!budget || budget.now() + seconds * 1000 <= budget.endsAt) return
    const message = `${this.options.vendor} rate limit: retry after ${seconds} s would take the run past its time budget of ${budget.seconds} s (BARSTOCK_POS_RUN_BUDGET_SECONDS)`
    throw new PosAdapterError('rate_limited', message, seconds)
  }

  private parse<T>(text: string, status: number): T {
    if (text === '') return undefined as T
    try {
      return JSON.parse(text) as T
    } catch {
      throw new PosAdapterError('invalid_response', `${this.options.vendor} answered ${status} with a body that is not JSON`)
    }
  }

  private async once(req: VendorRequest): Promise<{ status: number; headers: VendorResponse['headers']; text: string }> {
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers }
    let body: string | undefined
    if (req.json !== undefined) {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(req.json)
    } else if (req.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      body = new URLSearchParams(req.form).toString()
    }
    try {
      const response = await request(buildUrl(this.options.baseUrl, req.path, req.query), {
        method: req.method ?? 'GET',
        headers,
        body,
        dispatcher: this.options.dispatcher,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: this.options.signal ? AbortSignal.any([AbortSignal.timeout(this.timeoutMs), this.options.signal]) : AbortSignal.timeout(this.timeoutMs),
      })
      return { status: response.statusCode, headers: response.headers, text: await response.body.text() }
    } catch (error) {
      if (error instanceof PosAdapterError) throw error
      // A host that now resolves to a private address: say no more than the create-time check does.
      if (error instanceof RefusedAddressError) throw new PosAdapterError('connection_failed', `${this.options.vendor} unreachable`)
      const message = `${this.options.vendor} unreachable: ${(error as Error).message}`
      throw DROPPED_CONNECTION_CODES.has((error as { code?: string }).code ?? '') ? new DroppedConnection(message) : new PosAdapterError('connection_failed', message)
    }
  }
}

/** For a status the vendor uses for bad credentials; other 4xx are answers we cannot use. */
export function rejectStatus(vendor: string, status: number, message: string): never {
  if (status === 401 || status === 403) throw new PosAdapterError('invalid_credentials', `${vendor} rejected the credentials: ${message}`)
  throw new PosAdapterError('invalid_response', `${vendor} answered ${status}: ${message}`)
}
