/**
 * The console's one door to the service: a typed fetch wrapper over the public /v1 API. It is kept in
 * this file alone so the generated client (clients/typescript) can replace it later. The API key lives
 * in sessionStorage only: it ends with the tab and never leaves this origin except as X-API-Key.
 */

const KEY_STORAGE = 'barstock.api_key'

export interface ApiErrorBody {
  code: string
  message: string
  details?: { parameter?: string; [key: string]: unknown }
}

/** An answer of the API in its error shape: `code`, `message` and, for a field, `details.parameter`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.message)
  }
  get code(): string {
    return this.body.code
  }
  /** The field the API named (`items[2].quantity`), when it named one. */
  get parameter(): string | undefined {
    return this.body.details?.parameter
  }
}

/** The request never got an answer: offline, DNS, a dropped connection. Safe to retry with the same idempotency key. */
export class NetworkError extends Error {}

export interface Pagination {
  total: number
  page: number
  per_page: number
  total_pages: number
}

export interface Page<T> {
  data: T[]
  pagination: Pagination
}

type QueryValue = string | number | boolean | undefined
type Query = Record<string, QueryValue>

let signedOutListener: (message: string) => void = () => {}

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY_STORAGE),
  signIn: (key: string) => sessionStorage.setItem(KEY_STORAGE, key),
  signOut(message = '') {
    sessionStorage.removeItem(KEY_STORAGE)
    signedOutListener(message)
  },
  /** Called when the key is dropped: by the user, or because the API refused it (revoked or expired). */
  onSignedOut(listener: (message: string) => void) {
    signedOutListener = listener
  },
}

function urlOf(path: string, query: Query = {}): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value))
  const search = params.toString()
  return search ? `${path}?${search}` : path
}

interface RequestOptions {
  query?: Query
  body?: unknown
  /** Makes a POST safe to repeat: the service answers a repeat with the first answer (24 h). */
  idempotencyKey?: string
  /** The key to use instead of the session's (sign-in checks a key before keeping it). */
  key?: string
}

async function call<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  const key = options.key ?? session.key()
  if (key) headers['x-api-key'] = key
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  if (options.idempotencyKey) headers['x-idempotency-key'] = options.idempotencyKey
  let response: Response
  try {
    response = await fetch(urlOf(path, options.query), {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    })
  } catch (error) {
    throw new NetworkError(error instanceof Error ? error.message : String(error))
  }
  const payload = await response.json().catch(() => undefined)
  if (response.ok) return payload as T
  const body: ApiErrorBody = payload?.error ?? { code: 'http_' + response.status, message: `The service answered ${response.status}` }
  const failure = new ApiError(response.status, body)
  // A key that stopped working mid-session (revoked, expired) sends the user back to sign-in.
  if (response.status === 401 && options.key === undefined) session.signOut(failure.message)
  throw failure
}

async function data<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
  return (await call<{ data: T }>(method, path, options)).data
}

/** A fresh idempotency key for one logical write (kept across its retries). */
export function newIdempotencyKey(): string {
  return crypto.randomUUID()
}

// ---- Shapes of the answers the console reads (the API's schemas, /openapi.json) ----

export interface AuthCheck {
  valid: boolean
  permissions: string[]
  environment: 'production' | 'sandbox'
  rate_limit: { limit: number; remaining: number }
}

export interface Location {
  id: string
  name: string
  timezone: string
}

export interface Item {
  id: string
  name: string
  sku: string
  category: string
  quantity: number
  unit: string
  size_ml: number | null
  location: string
  reorder_point: number
  cost_per_unit: number
  last_updated: string
}

export interface ItemQuery extends Query {
  location?: string
  low_stock?: boolean
  q?: string
  page?: number
  per_page?: number
  sort?: string
}

export interface CountLineInput {
  item_id: string
  quantity: number
  notes?: string | null
}

export interface CountResult {
  count_id: string
  location: string
  items_updated: number
  variance_detected: { item_id: string; expected: number; actual: number; variance: number }[]
}

export interface CauseEvidence {
  cause: string
  confidence: number
  evidence: Record<string, number | string>
}

export interface VarianceItem {
  inventory_item_id: string
  name: string
  location: string
  unit: string
  expected_consumption: number
  actual_consumption: number
  variance: number
  variance_percentage: number
  estimated_loss: number
  potential_causes: string[]
  cause_evidence: CauseEvidence[]
}

export interface VarianceReport {
  period: string
  threshold: number
  currency: string
  total_variance: number
  variance_percentage: number
  items: VarianceItem[]
  summary: { total_items_analyzed: number; items_above_threshold: number; high_variance_items: number }
  data_quality: { mapped_revenue_share: number; items_counted_share: number; items_without_counts: number }
}

export interface ItemForecast {
  inventory_item_id: string
  name: string
  current_stock: number
  forecasted_demand: number
  confidence: number
  recommendation: string
}

export interface ForecastSeries {
  inventory_item_id: string
  name: string
  unit: string
  history: { date: string; quantity: number }[]
  forecast: { date: string; quantity: number; low: number; high: number }[]
  fitted_at: string
}

export interface Distributor {
  id: string
  name: string
  min_order_amount: number
  lead_time_days: number
}

export interface Recommendation {
  inventory_item_id: string
  name: string
  current_stock: number
  forecasted_demand: number
  recommended_order: number
  unit: string
  reason: string
  confidence: number
}

export interface Recommendations {
  location: string
  forecast_period: string
  recommendations: Recommendation[]
  total_recommended_amount: number
}

export type OrderStatus = 'draft' | 'submitted' | 'processing' | 'shipped' | 'delivered' | 'cancelled'

export interface OrderSummary {
  id: string
  distributor_name: string
  status: OrderStatus
  location: string
  total_amount: number
  estimated_delivery: string | null
  created_at: string
}

export interface Order extends OrderSummary {
  items: { inventory_item_id: string; name: string; quantity: number; unit: string; total: number }[]
}

export interface PosConnection {
  id: string
  pos_type: string
  name: string
  status: 'active' | 'inactive' | 'error'
  location: string
  sync_frequency: string
  last_sync: string | null
}

export interface SyncRun {
  sync_id: string
  status: 'processing' | 'completed' | 'failed'
  sync_type: string
  started_at: string
  duration_seconds: number | null
  results: { sales_synced: number; products_synced: number; variance_detected: number } | null
  error: { code: string; message: string } | null
}

export interface PosItem {
  pos_item_id: string
  pos_name: string
  mapped: boolean
  inventory_name: string | null
  suggestion: { inventory_item_id: string; inventory_name: string; confidence: number; reason: string | null } | null
}

// ---- The operations ----

export const api = {
  checkKey: (key: string) => data<AuthCheck>('GET', '/v1/auth/test', { key }),
  locations: () => data<Location[]>('GET', '/v1/locations', { query: { per_page: 100 } }),
  items: (query: ItemQuery) => call<Page<Item>>('GET', '/v1/inventory/items', { query }),
  recordCount: (body: { location: string; counted_by: string; items: CountLineInput[] }, idempotencyKey: string) =>
    data<CountResult>('POST', '/v1/inventory/count', { body, idempotencyKey }),
  variance: (query: { date_from?: string; date_to?: string; location?: string }) =>
    data<VarianceReport>('GET', '/v1/analytics/variance', { query }),
  forecasts: (query: { days_ahead?: number }) =>
    data<{ forecast_period: string; forecasts: ItemForecast[] }>('GET', '/v1/analytics/forecast', { query }),
  forecastSeries: (itemId: string) => data<ForecastSeries>('GET', `/v1/analytics/forecast/items/${encodeURIComponent(itemId)}`),
  distributors: () => data<Distributor[]>('GET', '/v1/distributors', { query: { per_page: 100 } }),
  recommendations: (query: { distributor_id: string; location?: string; days_ahead?: number }) =>
    data<Recommendations>('GET', '/v1/orders/recommendations', { query }),
  createOrder: (
    body: { distributor_id: string; location: string; items: { inventory_item_id: string; quantity: number; unit: string }[]; notes?: string },
    idempotencyKey: string,
  ) => data<Order>('POST', '/v1/orders', { body, idempotencyKey }),
  orders: (query: { status?: string; page?: number }) => call<Page<OrderSummary>>('GET', '/v1/orders', { query }),
  submitOrder: (id: string) => data<Order>('POST', `/v1/orders/${encodeURIComponent(id)}/submit`, { idempotencyKey: `submit-${id}` }),
  posConnections: () => data<PosConnection[]>('GET', '/v1/pos/connections', { query: { per_page: 100 } }),
  syncRuns: (connectionId: string) => data<SyncRun[]>('GET', '/v1/pos/syncs', { query: { connection_id: connectionId, per_page: 20 } }),
  startSync: (connectionId: string) =>
    data<SyncRun>('POST', `/v1/pos/connections/${encodeURIComponent(connectionId)}/sync`, { body: { sync_type: 'incremental' }, idempotencyKey: newIdempotencyKey() }),
  posItems: (connectionId: string) =>
    data<PosItem[]>('GET', `/v1/pos/connections/${encodeURIComponent(connectionId)}/mappings`, { query: { mapped: false, per_page: 100 } }),
  /** Takes the suggestion out of the review queue for good: auto-map will not offer that pair again. */
  rejectSuggestion: (connectionId: string, posItemId: string) =>
    data<{ pos_item_id: string; rejected_item_id: string }>(
      'DELETE',
      `/v1/pos/connections/${encodeURIComponent(connectionId)}/mappings/${encodeURIComponent(posItemId)}/suggestion`,
    ),
  /** Maps the POS item to its suggested inventory item: one POS unit takes `conversion_factor` `conversion_unit` of it. */
  acceptSuggestion: (
    connectionId: string,
    item: PosItem & { suggestion: NonNullable<PosItem['suggestion']> },
    conversion: { conversion_factor: number; conversion_unit: string },
  ) =>
    data<PosItem>('POST', `/v1/pos/connections/${encodeURIComponent(connectionId)}/mappings`, {
      body: { pos_item_id: item.pos_item_id, inventory_item_id: item.suggestion.inventory_item_id, ...conversion },
      idempotencyKey: newIdempotencyKey(),
    }),
}
