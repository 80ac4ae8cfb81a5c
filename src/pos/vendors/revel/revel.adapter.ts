import { createHmac } from 'node:crypto'
import { type Static, Type } from 'typebox'
import { PosAdapterError, type PosAdapter, type PosAdapterOptions, type PosPush, type PosSaleLine, type PushHeaders, type SalesWindow } from '../adapter.js'
import { REVEL_VENDOR, RevelClient, revelProgress, type RevelProgress } from './revel.client.js'
import { referencedId, returnLines, revelNames, soldLines, toPosProducts, toPosStaff, voidLines, type RevelNames } from './revel.mapper.js'
import type { RevelOrder, RevelOrderItem } from './revel.resources.js'
import { transportOf } from '../vendor-http.js'
import { pushHeader, signatureMatches } from '../push-signature.js'

/**
 * Revel has no token flow: key and secret go on every call. A connection reads one establishment: the
 * one its credentials name, or the account's only one. Sales are read per window (see SalesListing);
 * products, modifiers and employees are read once per listing, because order items name none of them.
 */

export const RevelCredentials = Type.Object(
  {
    // The subdomain becomes part of the host name: letters, digits and inner hyphens only.
    subdomain: Type.String({
      pattern: '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$',
      'x-pattern-rule': 'must be the name before .revelup.com: 1 to 63 letters, digits or inner hyphens (e.g. examplebar)',
      description: 'As in https://{subdomain}.revelup.com',
    }),
    api_key: Type.String({ minLength: 1 }),
    api_secret: Type.String({ minLength: 1 }),
    establishment_id: Type.Optional(
      Type.String({
        pattern: '^[0-9]+$',
        'x-pattern-rule': 'must be digits only (e.g. 1)',
        description: 'The establishment to read; may be left out when the account has only one',
      }),
    ),
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
    ...transportOf(options),
  })
  let chosen: Promise<string> | undefined
  const establishmentId = () => (credentials.establishment_id ? Promise.resolve(credentials.establishment_id) : (chosen ??= chooseEstablishment(client)))
  const unfinished = new Map<string, SalesListing>()
  return {
    async verify() {
      await chooseEstablishment(client, credentials.establishment_id)
    },
    async listProducts() {
      const products = await client.listProducts(await establishmentId())
      return toPosProducts(products, await client.listProductCategories(), await client.listModifiers())
    },
    async *listSales(window, progress) {
      // A listing that failed is taken up where it stopped when the same window is listed again: on this
      // adapter from memory, by the next run from the position it reported.
      const key = `${window.start.toISOString()}/${window.end.toISOString()}`
      const listing = unfinished.get(key) ?? new SalesListing(client, await establishmentId(), window, revelProgress(progress))
      unfinished.set(key, listing)
      yield* listing.lines()
      unfinished.delete(key)
    },
    async listStaff() {
      return toPosStaff(await client.listEmployees())
    },
  }
}

/**
 * The establishment a connection reads: the one its credentials name, which must be one of the
 * account's, or the account's only one. Without establishment_id, an account of several would merge
 * them into one location, so that is refused, naming them.
 */
async function chooseEstablishment(client: RevelClient, configured?: string): Promise<string> {
  const ids = (await client.listEstablishments()).map((establishment) => String(establishment.id))
  if (configured ? ids.includes(configured) : ids.length === 1) return configured ?? (ids[0] as string)
  const message = configured
    ? `Revel establishment ${configured} is not one of this account's (${ids.join(', ')})`
    : `This Revel account has ${ids.length} establishments: set establishment_id to one of ${ids.join(', ')}`
  throw new PosAdapterError('invalid_credentials', message)
}

/**
 * One window's sales and corrections, page by page: the establishment's closed orders last updated in
 * the window with their items (one request per page of orders, by `order__in`), then the returns made
 * and the items voided in the window, with the orders they belong to. It keeps where it got to, so
 * listed again after a failure it starts at the page that failed.
 */
class SalesListing {
  private names: RevelNames | undefined

  constructor(
    private readonly client: RevelClient,
    private readonly establishmentId: string,
    private readonly window: SalesWindow,
    private readonly progress: RevelProgress,
  ) {}

  async *lines(): AsyncIterable<PosSaleLine[]> {
    const names = (this.names ??= await this.readNames())
    for await (const orders of this.client.closedOrderPages(this.establishmentId, this.window, this.progress)) {
      const ordersById = new Map(orders.map((order) => [String(order.id), order]))
      for await (const items of this.client.itemPagesOf(
        orders.map((order) => order.id),
        this.progress,
      )) {
        yield items.flatMap((item) => soldLines(item, orderOf(item, ordersById), names))
      }
      // That page of orders is done: its items' progress is not needed again (it would only grow the position).
      this.progress.forget(isItemsOfOrders)
    }
    for await (const returned of this.client.returnPages(this.window, this.progress)) {
      const orders = await this.ordersOf(returned)
      const orderItems = orders.size > 0 ? await this.client.itemsOf([...orders.values()].map((order) => order.id)) : []
      yield returned.flatMap((item) => {
        const order = orders.get(referencedId(item.order) ?? '')
        return order ? returnLines(item, order, orderItems, names) : []
      })
    }
    for await (const voided of this.client.voidPages(this.window, this.progress)) {
      const orders = await this.ordersOf(voided)
      yield voided.flatMap((item) => {
        const order = orders.get(referencedId(item.order) ?? '')
        return order ? voidLines(item, order, names) : []
      })
    }
  }

  private async readNames(): Promise<RevelNames> {
    return revelNames(await this.client.listProducts(this.establishmentId), await this.client.listModifiers(), await this.client.listEmployees())
  }

  /** The closed orders of this establishment that items belong to (order items cannot be filtered by establishment). */
  private async ordersOf(items: RevelOrderItem[]): Promise<Map<string, RevelOrder>> {
    const ids = [...new Set(items.map((item) => Number(referencedId(item.order))))]
    const orders = await this.client.closedOrdersAmong(this.establishmentId, ids)
    return new Map(orders.map((order) => [String(order.id), order]))
  }
}

const isItemsOfOrders = (key: string) => key.startsWith('OrderItem?') && key.includes('"order__in"')

function orderOf(item: RevelOrderItem, ordersById: Map<string, RevelOrder>): RevelOrder {
  const order = ordersById.get(referencedId(item.order) ?? '')
  if (!order) throw new PosAdapterError('invalid_response', `${REVEL_VENDOR} order item ${item.id} belongs to none of the orders asked for`)
  return order
}

export const REVEL_SIGNATURE_HEADER = 'x-revel-signature'

/**
 * Verifies a Revel webhook (HMAC-SHA1 of the raw body with the webhook secret, in X-Revel-Signature,
 * as hex or base64) and reads its `event`: order events mean new sales, product events a changed menu.
 * Throws on a missing or wrong signature, or a body that is not JSON.
 */
export function parseRevelPush(headers: PushHeaders, rawBody: Buffer, secret: string): PosPush {
  const signature = pushHeader(headers, REVEL_SIGNATURE_HEADER).trim()
  const expected = createHmac('sha1', secret).update(rawBody).digest()
  const matches = [Buffer.from(signature, 'hex'), Buffer.from(signature, 'base64')].some((candidate) => signatureMatches(candidate, expected))
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
