/**
 * The console's one door to the service: the typed client generated from the OpenAPI document
 * (clients/typescript: openapi-fetch over its `paths`), so every path, parameter, body and answer the
 * console uses is checked against the document when the console builds, and the answer types below are
 * the document's. The API key lives in sessionStorage only: it ends with the tab and never leaves this
 * origin except as X-API-Key.
 */
import createClient from 'openapi-fetch'
import type { paths } from '../../clients/typescript/src/schema.js'

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
  /** The index of the `items` line the API named (`items[2].quantity` → 2), when it named one. */
  get line(): number | undefined {
    const index = /^items\[(\d+)\]/.exec(this.parameter ?? '')?.[1]
    return index === undefined ? undefined : Number(index)
  }
}

/** The request never got an answer: offline, DNS, a dropped connection. Safe to retry with the same idempotency key. */
export class NetworkError extends Error {}

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

// Answers read as JSON, which every call here asks for (the lists' CSV form is not used).
const client = createClient<paths, 'application/json'>({ baseUrl: location.origin })

interface CallOptions {
  /** Makes a POST safe to repeat: the service answers a repeat with the first answer (24 h). */
  idempotencyKey?: string
  /** The key to use instead of the session's (sign-in checks a key before keeping it). */
  key?: string
}

function headersOf(options: CallOptions): Record<string, string> {
  const headers: Record<string, string> = {}
  const key = options.key ?? session.key()
  if (key) headers['x-api-key'] = key
  if (options.idempotencyKey) headers['x-idempotency-key'] = options.idempotencyKey
  return headers
}

/** A query without its empty fields: a filter left blank means "all", not "equal to ''". */
function compact<Q extends object>(query: Q): Q {
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined && value !== '')) as Q
}

/**
 * Sends one call of the client and answers its body; an error answer becomes ApiError (a 401 for the
 * session's key signs out), no answer at all NetworkError.
 */
async function send<R extends { data?: unknown; error?: unknown; response: Response }>(
  request: (headers: Record<string, string>) => Promise<R>,
  options: CallOptions = {},
): Promise<NonNullable<R['data']>> {
  let result: R
  try {
    result = await request(headersOf(options))
  } catch (error) {
    throw new NetworkError(error instanceof Error ? error.message : String(error))
  }
  const { response } = result
  if (response.ok) return result.data as NonNullable<R['data']>
  const body = (result.error as { error?: ApiErrorBody } | undefined)?.error ?? { code: 'http_' + response.status, message: `The service answered ${response.status}` }
  const failure = new ApiError(response.status, body)
  // A key that stopped working mid-session (revoked, expired) sends the user back to sign-in.
  if (response.status === 401 && options.key === undefined) session.signOut(failure.message)
  throw failure
}

/** A fresh idempotency key for one logical write (kept across its retries). */
export function newIdempotencyKey(): string {
  return crypto.randomUUID()
}

/** Unanswered, or answered "later": the same write may be sent again with its idempotency key. */
export function worthRetrying(error: unknown): boolean {
  if (error instanceof NetworkError) return true
  if (!(error instanceof ApiError)) return false
  return error.status === 429 || error.status >= 502 || error.code === 'idempotency_in_progress'
}

// ---- The operations ----

type JsonOf<Operation> = Operation extends { responses: { 200: { content: { 'application/json': infer Body } } } } ? Body : never
/** A POS item of a connection as its mappings list answers it (named here: acceptSuggestion takes one). */
export type PosItem = JsonOf<paths['/v1/pos/connections/{id}/mappings']['get']>['data'][number]

type QueryOf<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? NonNullable<Q> : never
type PostBodyOf<P extends keyof paths> = paths[P] extends { post: { requestBody: { content: { 'application/json': infer Body } } } } ? Body : never

export const api = {
  checkKey: async (key: string) => (await send((headers) => client.GET('/v1/auth/test', { headers }), { key })).data,
  locations: async () => (await send((headers) => client.GET('/v1/locations', { params: { query: { per_page: 100 } }, headers }))).data,
  items: (query: QueryOf<'/v1/inventory/items'>) => send((headers) => client.GET('/v1/inventory/items', { params: { query: compact(query) }, headers })),
  recordCount: async (body: PostBodyOf<'/v1/inventory/count'>, idempotencyKey: string) =>
    (await send((headers) => client.POST('/v1/inventory/count', { body, headers }), { idempotencyKey })).data,
  createTransfer: async (body: PostBodyOf<'/v1/inventory/transfers'>, idempotencyKey: string) =>
    (await send((headers) => client.POST('/v1/inventory/transfers', { body, headers }), { idempotencyKey })).data,
  transfers: async (query: QueryOf<'/v1/inventory/transfers'>) =>
    (await send((headers) => client.GET('/v1/inventory/transfers', { params: { query: compact(query) }, headers }))).data,
  /** Reverses the transfer's movements; the record stays, with voided_at. Voiding it again changes nothing. */
  voidTransfer: async (id: string) => (await send((headers) => client.DELETE('/v1/inventory/transfers/{id}', { params: { path: { id } }, headers }))).data,
  recordWaste: async (body: PostBodyOf<'/v1/inventory/waste'>, idempotencyKey: string) =>
    (await send((headers) => client.POST('/v1/inventory/waste', { body, headers }), { idempotencyKey })).data,
  wasteEntries: async (query: QueryOf<'/v1/inventory/waste'>) => (await send((headers) => client.GET('/v1/inventory/waste', { params: { query: compact(query) }, headers }))).data,
  /** Reverses the entry's movements; the record stays, with voided_at. Voiding it again changes nothing. */
  voidWaste: async (id: string) => (await send((headers) => client.DELETE('/v1/inventory/waste/{id}', { params: { path: { id } }, headers }))).data,
  variance: async (query: QueryOf<'/v1/analytics/variance'>) =>
    (await send((headers) => client.GET('/v1/analytics/variance', { params: { query: compact(query) }, headers }))).data,
  forecasts: async (query: QueryOf<'/v1/analytics/forecast'>) =>
    (await send((headers) => client.GET('/v1/analytics/forecast', { params: { query: compact(query) }, headers }))).data,
  forecastSeries: async (id: string) => (await send((headers) => client.GET('/v1/analytics/forecast/items/{id}', { params: { path: { id } }, headers }))).data,
  /** The order the location's items stand on the shelves, saved for every device of the account. */
  shelfOrder: async (location: string) => (await send((headers) => client.GET('/v1/locations/{id}/shelf-order', { params: { path: { id: location } }, headers }))).data,
  saveShelfOrder: async (location: string, itemIds: string[]) =>
    (await send((headers) => client.PUT('/v1/locations/{id}/shelf-order', { params: { path: { id: location } }, body: { item_ids: itemIds }, headers }))).data,
  distributors: async () => (await send((headers) => client.GET('/v1/distributors', { params: { query: { per_page: 100 } }, headers }))).data,
  recommendations: async (query: QueryOf<'/v1/orders/recommendations'>) =>
    (await send((headers) => client.GET('/v1/orders/recommendations', { params: { query: compact(query) }, headers }))).data,
  createOrder: async (body: PostBodyOf<'/v1/orders'>, idempotencyKey: string) => (await send((headers) => client.POST('/v1/orders', { body, headers }), { idempotencyKey })).data,
  orders: (query: QueryOf<'/v1/orders'>) => send((headers) => client.GET('/v1/orders', { params: { query: compact(query) }, headers })),
  submitOrder: async (id: string) =>
    (await send((headers) => client.POST('/v1/orders/{id}/submit', { params: { path: { id } }, headers }), { idempotencyKey: `submit-${id}` })).data,
  posConnections: async () => (await send((headers) => client.GET('/v1/pos/connections', { params: { query: { per_page: 100 } }, headers }))).data,
  /** Connects a POS and asks for its first sync in the same call (initial_sync), so the new connection fills at once. */
  connectPos: async (body: Omit<NewPosConnection, 'initial_sync'>, idempotencyKey: string) =>
    (await send((headers) => client.POST('/v1/pos/connections', { body: { ...body, initial_sync: 'incremental' }, headers }), { idempotencyKey })).data,
  syncRuns: async (connectionId: string) =>
    (await send((headers) => client.GET('/v1/pos/syncs', { params: { query: { connection_id: connectionId, per_page: 20 } }, headers }))).data,
  startSync: async (id: string) =>
    (
      await send((headers) => client.POST('/v1/pos/connections/{id}/sync', { params: { path: { id } }, body: { sync_type: 'incremental' }, headers }), {
        idempotencyKey: newIdempotencyKey(),
      })
    ).data,
  posItems: async (id: string) =>
    (await send((headers) => client.GET('/v1/pos/connections/{id}/mappings', { params: { path: { id }, query: { mapped: false, per_page: 100 } }, headers }))).data,
  /** Takes the suggestion out of the review queue for good: auto-map will not offer that pair again. */
  rejectSuggestion: async (id: string, posItemId: string) =>
    (await send((headers) => client.DELETE('/v1/pos/connections/{id}/mappings/{pos_item_id}/suggestion', { params: { path: { id, pos_item_id: posItemId } }, headers }))).data,
  /** Maps the POS item to its suggested inventory item: one POS unit takes `conversion_factor` `conversion_unit` of it. */
  acceptSuggestion: async (
    id: string,
    item: PosItem & { suggestion: NonNullable<PosItem['suggestion']> },
    conversion: { conversion_factor: number; conversion_unit: PosMappingUnit },
  ) =>
    (
      await send(
        (headers) =>
          client.POST('/v1/pos/connections/{id}/mappings', {
            params: { path: { id } },
            body: { pos_item_id: item.pos_item_id, inventory_item_id: item.suggestion.inventory_item_id, ...conversion },
            headers,
          }),
        { idempotencyKey: newIdempotencyKey() },
      )
    ).data,
}

const ITEMS_PAGE_SIZE = 100

/** Every item stored at the location (at every location when none is given), by name. */
export async function itemsAt(location?: string): Promise<Item[]> {
  const items: Item[] = []
  for (let page = 1; ; page++) {
    const answer = await api.items({ location, page, per_page: ITEMS_PAGE_SIZE, sort: 'name' })
    items.push(...answer.data)
    if (page >= answer.pagination.total_pages) return items
  }
}

// ---- Shapes of the answers the console reads: the document's own, as the client types them ----

type Answer<F extends (...args: never[]) => Promise<unknown>> = Awaited<ReturnType<F>>
export type Location = Answer<typeof api.locations>[number]
export type Item = Answer<typeof api.items>['data'][number]
export type CountResult = Answer<typeof api.recordCount>
export type Transfer = Answer<typeof api.createTransfer>
export type WasteEntry = Answer<typeof api.recordWaste>
export type WasteReason = WasteEntry['items'][number]['reason']
export type VarianceReport = Answer<typeof api.variance>
export type VarianceItem = VarianceReport['items'][number]
export type ForecastSeries = Answer<typeof api.forecastSeries>
export type OrderSummary = Answer<typeof api.orders>['data'][number]
export type OrderStatus = OrderSummary['status']
export type Order = Answer<typeof api.submitOrder>
export type PosConnection = Answer<typeof api.posConnections>[number]
type PosMappingUnit = paths['/v1/pos/connections/{id}/mappings']['post']['requestBody']['content']['application/json']['conversion_unit']
export type NewPosConnection = paths['/v1/pos/connections']['post']['requestBody']['content']['application/json']
