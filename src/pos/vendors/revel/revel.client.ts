import { type Static, Type } from 'typebox'
import { Compile } from 'typebox/compile'
import { PosAdapterError, type SalesListingProgress, type SalesWindow, type VendorTransport } from '../adapter.js'
import { ListingProgress } from '../listing-progress.js'
import { rejectStatus, VendorHttp } from '../vendor-http.js'
import {
  REVEL_RESOURCES,
  RevelMeta,
  type RevelError,
  type RevelEstablishment,
  type RevelList,
  type RevelModifier,
  type RevelOrder,
  type RevelOrderItem,
  type RevelProduct,
  type RevelProductCategory,
  type RevelEmployee,
  type RevelResource,
} from './revel.resources.js'

/**
 * Revel's REST API (Django Tastypie), the subset barstock reads: Establishment, Product, Modifier,
 * ProductCategory, Employee, Order and OrderItem. Every call carries `API-AUTHENTICATION: key:secret`;
 * lists answer `{meta, objects}` and are paged by limit and offset; filters are Django field lookups
 * (`updated_date__gte`, `order__in`). Foreign keys arrive as integers or as resource URIs
 * ("/resources/Product/12/"), money as JSON numbers. Every answer is checked against the shapes of
 * revel.resources.ts: one Revel never documented is `invalid_response`, naming the field.
 */

export const REVEL_VENDOR = 'Revel'

/** The vendor transport (timeouts, abort signal, connection policy) rides along: see VendorTransport. */
export interface RevelClientOptions extends VendorTransport {
  baseUrl: string
  apiKey: string
  apiSecret: string
}

/** Objects asked for per page (Revel's default is 20). */
export const REVEL_PAGE_SIZE = 100
/** Order items asked for per page: the items of a page of orders fit in one (Tastypie's usual maximum). */
export const REVEL_ITEM_PAGE_SIZE = 1000

type Query = Record<string, string | number | undefined>

type ObjectOf<R extends RevelResource> = Static<(typeof REVEL_RESOURCES)[R]>

/** Each resource's answer checker: the list envelope with objects of the resource's shape. */
const LIST_CHECKERS = Object.fromEntries(
  Object.entries(REVEL_RESOURCES).map(([resource, object]) => [resource, Compile(Type.Object({ meta: RevelMeta, objects: Type.Array(object) }))]),
) as Record<RevelResource, ReturnType<typeof Compile>>

/** Where one paged query got to: the next offset and the id of the last object taken. */
type PagePosition = { offset: number; lastId: number }

/** A Revel listing's progress: each paged query's position (see ListingProgress). */
export type RevelProgress = ListingProgress<PagePosition>

export function revelProgress(listing?: SalesListingProgress): RevelProgress {
  return new ListingProgress(isPagePosition, listing)
}

function isPagePosition(value: unknown): value is PagePosition {
  const position = value as Partial<PagePosition> | null
  return typeof position === 'object' && position !== null && Number.isInteger(position.offset) && Number.isInteger(position.lastId)
}

/**
 * Queries resumed by id rather than offset (`id__gt` the last id taken, ordered by id): an order updated
 * again after a failed run leaves the window's list and would shift the later orders one offset back,
 * so resuming at an offset could skip one. revel.yml documents the id lookups on Order (`id__lt`).
 */
const RESUMED_BY_ID: ReadonlySet<RevelResource> = new Set(['Order'])

export class RevelClient {
  private readonly http: VendorHttp

  constructor(private readonly options: RevelClientOptions) {
    this.http = new VendorHttp({ vendor: REVEL_VENDOR, ...options })
  }

  listEstablishments(): Promise<RevelEstablishment[]> {
    return this.all('Establishment', {})
  }

  listProducts(establishmentId: string): Promise<RevelProduct[]> {
    return this.all('Product', { establishment: establishmentId })
  }

  listModifiers(): Promise<RevelModifier[]> {
    return this.all('Modifier', {})
  }

  listProductCategories(): Promise<RevelProductCategory[]> {
    return this.all('ProductCategory', {})
  }

  listEmployees(): Promise<RevelEmployee[]> {
    return this.all('Employee', {})
  }

  /** Closed orders of the establishment whose last update (their last closing) falls in the window. */
  closedOrderPages(establishmentId: string, window: SalesWindow, progress: RevelProgress): AsyncIterable<RevelOrder[]> {
    return this.pages('Order', { closed: 'true', establishment: establishmentId, ...dateRange('updated_date', window), order_by: 'id' }, progress)
  }

  /** Closed orders of the establishment among these ids (Revel does not filter order items by establishment). */
  closedOrdersAmong(establishmentId: string, orderIds: number[]): Promise<RevelOrder[]> {
    return this.all('Order', { closed: 'true', establishment: establishmentId, id__in: orderIds.join(','), order_by: 'id' })
  }

  /** The items of many orders at once (`order__in`), a page at a time. */
  itemPagesOf(orderIds: number[], progress: RevelProgress): AsyncIterable<RevelOrderItem[]> {
    return this.pages('OrderItem', itemsOfOrders(orderIds), progress)
  }

  itemsOf(orderIds: number[]): Promise<RevelOrderItem[]> {
    return this.all('OrderItem', itemsOfOrders(orderIds))
  }

  /** Returns rung in the window: order items of negative quantity, created when the refund was made. */
  returnPages(window: SalesWindow, progress: RevelProgress): AsyncIterable<RevelOrderItem[]> {
    return this.pages('OrderItem', { quantity__lt: 0, ...dateRange('created_date', window), order_by: 'id' }, progress)
  }

  /** Order items voided in the window, before or after their order closed. */
  voidPages(window: SalesWindow, progress: RevelProgress): AsyncIterable<RevelOrderItem[]> {
    return this.pages('OrderItem', { ...dateRange('voided_date', window), order_by: 'id' }, progress)
  }

  private async all<R extends RevelResource>(resource: R, query: Query): Promise<ObjectOf<R>[]> {
    const objects: ObjectOf<R>[] = []
    for await (const page of this.pages(resource, query)) objects.push(...page)
    return objects
  }

  /**
   * Follows offsets until `meta.next` is null; the offset advances by what came back, whatever limit
   * Revel applied. With a progress, it starts where that query got to (Order lists after the last id
   * taken, others at the next offset) and records each page once the caller has taken it.
   */
  private async *pages<R extends RevelResource>(resource: R, query: Query, progress?: RevelProgress): AsyncIterable<ObjectOf<R>[]> {
    const key = `${resource}?${JSON.stringify(query)}`
    const start = progress?.startOf(key)
    if (start === 'finished') return
    const resumedById = start !== undefined && RESUMED_BY_ID.has(resource)
    const asked = resumedById ? { ...query, id__gt: start.lastId } : query
    let lastId = start?.lastId ?? 0
    for (let offset = start && !resumedById ? start.offset : 0; ; ) {
      const list = await this.page(resource, { limit: REVEL_PAGE_SIZE, ...asked, offset })
      const finished = list.meta.next === null || list.objects.length === 0
      if (list.objects.length > 0) yield list.objects
      offset += list.objects.length
      lastId = (list.objects.at(-1) as { id: number } | undefined)?.id ?? lastId
      progress?.record(key, finished ? 'finished' : { offset, lastId })
      if (finished) return
    }
  }

  private async page<R extends RevelResource>(resource: R, query: Query): Promise<RevelList<ObjectOf<R>>> {
    const response = await this.http.send<unknown>({
      path: `/${resource}/`,
      query,
      headers: { 'API-AUTHENTICATION': `${this.options.apiKey}:${this.options.apiSecret}` },
    })
    if (response.status !== 200) {
      const error = response.body as Partial<RevelError> | undefined
      rejectStatus(REVEL_VENDOR, response.status, error?.error ?? 'no error message')
    }
    const checker = LIST_CHECKERS[resource]
    if (checker.Check(response.body)) return response.body as RevelList<ObjectOf<R>>
    const [problem] = checker.Errors(response.body)
    const field = problem?.instancePath || '/'
    throw new PosAdapterError('invalid_response', `${REVEL_VENDOR} /${resource}/ answered a shape it does not document: ${field} ${problem?.message ?? ''}`.trim())
  }
}

function itemsOfOrders(orderIds: number[]): Query {
  return { order__in: orderIds.join(','), order_by: 'id', limit: REVEL_ITEM_PAGE_SIZE }
}

/** A Django range filter on a date field for a half-open window. */
function dateRange(field: string, window: SalesWindow): Query {
  return { [`${field}__gte`]: window.start.toISOString(), [`${field}__lt`]: window.end.toISOString() }
}
