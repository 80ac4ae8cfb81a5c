import { createHmac, timingSafeEqual } from 'node:crypto'
import { type Static, Type } from 'typebox'
import type { PosAdapter, PosAdapterOptions, PosPush, PosSaleLine, SalesWindow } from '../../adapter.js'
import { RevelClient } from './revel.client.js'
import { revelNames, toPosProducts, toPosSaleLines, toPosStaff } from './revel.mapper.js'

/**
 * Revel has no token flow: key and secret go on every call. Sales are read as closed orders updated in
 * the window, page by page, each with its order items; a run first reads products and employees once,
 * because order items name neither.
 */

export const RevelCredentials = Type.Object(
  {
    // The subdomain becomes part of the host name: letters, digits and inner hyphens only.
    subdomain: Type.String({ pattern: '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$', description: 'As in https://{subdomain}.revelup.com' }),
    api_key: Type.String({ minLength: 1 }),
    api_secret: Type.String({ minLength: 1 }),
    establishment_id: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'Limits products and orders to one establishment' })),
  },
  { additionalProperties: false },
)
export type RevelCredentials = Static<typeof RevelCredentials>

export function revelProductionBaseUrl(credentials: RevelCredentials): string {
  return `https://${credentials.subdomain}.revelup.com/resources`
}

export function createRevelAdapter(options: PosAdapterOptions): PosAdapter {
  const credentials = options.credentials as RevelCredentials
  const client = new RevelClient({
    baseUrl: options.baseUrl,
    apiKey: credentials.api_key,
    apiSecret: credentials.api_secret,
    establishmentId: credentials.establishment_id,
    timeoutMs: options.timeoutMs,
    maxRetryWaitMs: options.maxRetryWaitMs,
  })
  return {
    verify: () => client.verify(),
    async listProducts() {
      const products = await client.listProducts()
      return toPosProducts(products, await client.listProductCategories())
    },
    listSales: (window) => closedOrderLines(client, window),
    async listStaff() {
      return toPosStaff(await client.listEmployees())
    },
  }
}

async function* closedOrderLines(client: RevelClient, window: SalesWindow): AsyncIterable<PosSaleLine[]> {
  const names = revelNames(await client.listProducts(), await client.listEmployees())
  for await (const orders of client.closedOrderPages(window.start, window.end)) {
    const lines: PosSaleLine[] = []
    for (const order of orders) lines.push(...toPosSaleLines(order, await client.listOrderItems(order.id), names))
    if (lines.length > 0) yield lines
  }
}

export const REVEL_SIGNATURE_HEADER = 'x-revel-signature'

/**
 * Verifies a Revel webhook (HMAC-SHA1 of the raw body with the webhook secret, in X-Revel-Signature,
 * as hex or base64) and reads its `event`: order events mean new sales, product events a changed menu.
 * Throws on a missing or wrong signature, or a body that is not JSON.
 */
export function parseRevelPush(headers: Record<string, string | string[] | undefined>, rawBody: Buffer, secret: string): PosPush {
  const header = headers[REVEL_SIGNATURE_HEADER]
  const signature = ((Array.isArray(header) ? header[0] : header) ?? '').trim()
  const expected = createHmac('sha1', secret).update(rawBody).digest()
  const matches = [Buffer.from(signature, 'hex'), Buffer.from(signature, 'base64')].some(
    (candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected),
  )
  if (!matches) throw new Error('Revel push signature does not match')
  let event: unknown
  try {
    event = (JSON.parse(rawBody.toString('utf8')) as { event?: unknown }).event
  } catch {
    throw new Error('Revel push body is not JSON')
  }
  if (typeof event === 'string' && event.startsWith('order.')) return { kind: 'orders_changed' }
  if (typeof event === 'string' && event.startsWith('product.')) return { kind: 'catalog_changed' }
  return { kind: 'other' }
}
