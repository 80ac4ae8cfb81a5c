import { PosAdapterError } from '../../adapter.js'
import { rejectStatus, VendorHttp } from '../vendor-http.js'

/**
 * Revel's REST API (Django Tastypie), the subset barstock reads: Establishment (to verify the key),
 * Product, ProductCategory, Employee, Order and OrderItem. Every call carries `API-AUTHENTICATION:
 * key:secret`; lists answer `{meta, objects}` and are paged by limit and offset. Foreign keys arrive as
 * integers or as resource URIs ("/resources/Product/12/"), money as JSON numbers.
 */

export const REVEL_VENDOR = 'Revel'

/** An id or a resource URI, as Revel renders foreign keys. */
export type RevelReference = number | string

export interface RevelMeta {
  limit: number
  offset: number
  total_count: number
  next: string | null
  previous: string | null
}

export interface RevelList<T> {
  meta: RevelMeta
  objects: T[]
}

export interface RevelEstablishment {
  id: number
  name: string
  resource_uri: string
}

export interface RevelProduct {
  id: number
  name: string
  price: number
  cost: number | null
  sku: string | null
  category: RevelReference | null
  active: boolean
  establishment: RevelReference | null
  resource_uri: string
}

export interface RevelProductCategory {
  id: number
  name: string
  resource_uri: string
}

export interface RevelEmployee {
  id: number
  first_name: string
  last_name: string
  active: boolean
  resource_uri: string
}

export interface RevelOrder {
  id: number
  uuid: string
  establishment: RevelReference
  created_by: RevelReference | null
  closed: boolean
  has_items: boolean
  created_date: string
  updated_date: string
  resource_uri: string
}

export interface RevelOrderItem {
  id: number
  order: RevelReference
  product: RevelReference
  quantity: number
  initial_price: number
  price: number
  created_by: RevelReference | null
  created_date: string
  voided_date: string | null
  resource_uri: string
}

/** Revel's error body (Tastypie's), where it sends one. */
export interface RevelError {
  error: string
}

export interface RevelClientOptions {
  baseUrl: string
  apiKey: string
  apiSecret: string
  establishmentId?: string
  timeoutMs?: number
  maxRetryWaitMs?: number
}

/** Objects asked for per page (Revel's default is 20). */
export const REVEL_PAGE_SIZE = 100

type Query = Record<string, string | number | undefined>

export class RevelClient {
  private readonly http: VendorHttp

  constructor(private readonly options: RevelClientOptions) {
    this.http = new VendorHttp({ vendor: REVEL_VENDOR, ...options })
  }

  async verify(): Promise<void> {
    await this.page<RevelEstablishment>('Establishment', { limit: 1 }, 0)
  }

  listProducts(): Promise<RevelProduct[]> {
    return this.all<RevelProduct>('Product', { establishment: this.options.establishmentId })
  }

  listProductCategories(): Promise<RevelProductCategory[]> {
    return this.all<RevelProductCategory>('ProductCategory', {})
  }

  listEmployees(): Promise<RevelEmployee[]> {
    return this.all<RevelEmployee>('Employee', {})
  }

  /**
   * Closed orders whose last update (their closing, for an order nobody touched since) falls in
   * [start, end), a page at a time.
   */
  closedOrderPages(start: Date, end: Date): AsyncIterable<RevelOrder[]> {
    return this.pages<RevelOrder>('Order', {
      closed: 'true',
      updated_date__gte: start.toISOString(),
      updated_date__lt: end.toISOString(),
      establishment: this.options.establishmentId,
      order_by: 'id',
    })
  }

  listOrderItems(orderId: number): Promise<RevelOrderItem[]> {
    return this.all<RevelOrderItem>('OrderItem', { order: orderId, order_by: 'id' })
  }

  private async all<T>(resource: string, query: Query): Promise<T[]> {
    const objects: T[] = []
    for await (const page of this.pages<T>(resource, query)) objects.push(...page)
    return objects
  }

  /** Follows offsets until `meta.next` is null; the offset advances by what came back, whatever limit Revel applied. */
  private async *pages<T>(resource: string, query: Query): AsyncIterable<T[]> {
    for (let offset = 0; ; ) {
      const list = await this.page<T>(resource, query, offset)
      if (list.objects.length > 0) yield list.objects
      if (list.meta.next === null || list.objects.length === 0) return
      offset += list.objects.length
    }
  }

  private async page<T>(resource: string, query: Query, offset: number): Promise<RevelList<T>> {
    const response = await this.http.send<RevelList<T> | RevelError | undefined>({
      path: `/${resource}/`,
      query: { limit: REVEL_PAGE_SIZE, ...query, offset },
      headers: { 'API-AUTHENTICATION': `${this.options.apiKey}:${this.options.apiSecret}` },
    })
    if (response.status !== 200) {
      const error = response.body as Partial<RevelError> | undefined
      rejectStatus(REVEL_VENDOR, response.status, error?.error ?? 'no error message')
    }
    const list = response.body as Partial<RevelList<T>> | undefined
    if (!list || !Array.isArray(list.objects) || typeof list.meta !== 'object' || list.meta === null) {
      throw new PosAdapterError('invalid_response', `${REVEL_VENDOR} /${resource}/ did not answer {meta, objects}`)
    }
    return list as RevelList<T>
  }
}
