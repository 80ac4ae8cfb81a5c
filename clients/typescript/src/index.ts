import createClient, { type Client, type ClientOptions } from 'openapi-fetch'
import type { paths } from './schema.js'

export type { components, paths, webhooks } from './schema.js'
export {
  DEFAULT_TOLERANCE_SECONDS,
  verifyWebhookSignature,
  WebhookSignatureError,
  type VerifyWebhookSignatureOptions,
  type WebhookSignatureFailure,
} from './webhook-signature.js'

export interface BarstockClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the service answers, e.g. `https://stock.example.com` (without `/v1`). */
  baseUrl: string
  /** An API key (`bs_live_…` or `bs_test_…`), sent as `X-API-Key` on every request. */
  apiKey: string
}

/**
 * A barstock API client whose paths, parameters, bodies and answers are typed from the OpenAPI document.
 * Answers are typed as JSON, which every /v1 answer is except a list asked for with `format: 'csv'`
 * (read that one with `parseAs: 'text'`).
 */
export type BarstockClient = Client<paths, 'application/json'>

/** A client for one API key; every call answers `{ data, error, response }` (openapi-fetch). */
export function createBarstockClient({ apiKey, headers, ...options }: BarstockClientOptions): BarstockClient {
  return createClient<paths, 'application/json'>({ ...options, headers: { ...headers, 'X-API-Key': apiKey } })
}
