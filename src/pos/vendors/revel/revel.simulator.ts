import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SimulatorHandler, SimulatorOptions } from '../../adapter.js'
import { checksClosedBetween, checksForDay, MENU, STAFF, stableUuid, type SimCheck } from '../../simulation/bar-data.js'
import { FailureSwitch, sendJson } from '../../simulation/simulator-server.js'
import type {
  RevelEmployee,
  RevelError,
  RevelList,
  RevelOrder,
  RevelOrderItem,
  RevelProduct,
  RevelProductCategory,
} from './revel.client.js'

/**
 * The Revel resources the adapter reads, serving the simulated bar as establishment 1: the
 * `API-AUTHENTICATION: key:secret` header on every call (a secret starting with `invalid` is refused
 * with 401), Tastypie lists `{meta, objects}` paged by limit (default 20, 0 for all) and offset, money as
 * JSON numbers, and foreign keys as ids or resource URIs as Revel renders them.
 */

const ESTABLISHMENT_ID = 1
const DEFAULT_LIMIT = 20
const MAX_LIMIT = 1000
const DAY_MS = 86_400_000
/** Order ids are day × ORDER_ID_DAY + check number; item ids order id × 10 + line number (≤ 4 lines). */
const ORDER_ID_DAY = 10_000

type Answer = { status: number; body: unknown }

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const body: RevelError = { error: message }
  sendJson(res, status, body, headers)
}

export function createRevelSimulator(options: SimulatorOptions): SimulatorHandler {
  const failures = new FailureSwitch(options.failure)
  const bar = new RevelBar(options)
  return (req, res) => {
    handle(req, res, failures, bar).catch((error: Error) => sendError(res, 500, error.message))
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, failures: FailureSwitch, bar: RevelBar): Promise<void> {
  if (await failures.intercept(res, (status, message, headers) => sendError(res, status, message, headers))) return
  const [key, secret] = String(req.headers['api-authentication'] ?? '').split(':')
  if (!key || !secret || secret.startsWith('invalid')) return sendError(res, 401, 'Authentication failed')
  const url = new URL(req.url ?? '/', 'http://simulator')
  const resource = /^\/(?:resources\/)?([A-Za-z]+)\/$/.exec(url.pathname)?.[1]
  if (req.method !== 'GET' || !resource) return sendError(res, 404, 'Not found')
  const answer = bar.answer(resource, url.searchParams)
  if (answer.status === 200) sendJson(res, 200, answer.body)
  else sendError(res, answer.status, String(answer.body))
}

class RevelBar {
  private readonly now: () => Date
  private readonly historyDays: number
  private readonly categories = [...new Set(MENU.map((entry) => entry.category))]

  constructor(private readonly options: SimulatorOptions) {
    this.now = options.now ?? (() => new Date())
    this.historyDays = options.historyDays ?? 120
  }

  answer(resource: string, query: URLSearchParams): Answer {
    const establishment = query.get('establishment')
    // The bar is establishment 1: asking for another one finds nothing, as it would on Revel.
    const atThisBar = establishment === null || establishment === String(ESTABLISHMENT_ID)
    switch (resource) {
      case 'Establishment':
        return this.list(resource, [{ id: ESTABLISHMENT_ID, name: 'The Simulated Bar', resource_uri: resourceUri(resource, ESTABLISHMENT_ID) }], query)
      case 'Product':
        return this.list(resource, atThisBar ? MENU.map((_, index) => this.product(index)) : [], query)
      case 'ProductCategory':
        return this.list(resource, this.categories.map((name, index): RevelProductCategory => ({ id: index + 1, name, resource_uri: resourceUri(resource, index + 1) })), query)
      case 'Employee':
        return this.list(resource, STAFF.map((_, index) => this.employee(index)), query)
      case 'Order':
        return this.orders(query, atThisBar)
      case 'OrderItem':
        return this.orderItems(query)
      default:
        return { status: 404, body: `No resource ${resource}` }
    }
  }

  private list<T>(resource: string, objects: T[], query: URLSearchParams): Answer {
    const limitText = query.get('limit')
    const offset = Math.max(0, Number(query.get('offset') ?? 0) || 0)
    const requested = limitText === null ? DEFAULT_LIMIT : Number(limitText)
    if (!Number.isInteger(requested) || requested < 0) return { status: 400, body: `Invalid limit ${limitText}` }
    const limit = requested === 0 ? objects.length : Math.min(requested, MAX_LIMIT)
    const pageAt = (at: number) => {
      const params = new URLSearchParams(query)
      params.set('limit', String(limit))
      params.set('offset', String(at))
      return `/resources/${resource}/?${params.toString()}`
    }
    const body: RevelList<T> = {
      meta: {
        limit,
        offset,
        total_count: objects.length,
        next: offset + limit < objects.length ? pageAt(offset + limit) : null,
        previous: offset > 0 ? pageAt(Math.max(0, offset - limit)) : null,
      },
      objects: objects.slice(offset, offset + limit),
    }
    return { status: 200, body }
  }

  private product(index: number): RevelProduct {
    const entry = MENU[index]!
    return {
      id: index + 1,
      name: entry.name,
      price: Number(entry.price),
      cost: null,
      sku: entry.sku,
      category: this.categories.indexOf(entry.category) + 1,
      active: true,
      establishment: ESTABLISHMENT_ID,
      resource_uri: resourceUri('Product', index + 1),
    }
  }

  private employee(index: number): RevelEmployee {
    const staff = STAFF[index]!
    return { id: index + 1, first_name: staff.firstName, last_name: staff.lastName, active: true, resource_uri: resourceUri('Employee', index + 1) }
  }

  private orders(query: URLSearchParams, atThisBar: boolean): Answer {
    const now = this.now()
    const start = new Date(query.get('updated_date__gte') ?? now.getTime() - this.historyDays * DAY_MS)
    const end = new Date(query.get('updated_date__lt') ?? now.getTime())
    if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) return { status: 400, body: 'Invalid updated_date filter' }
    // Every simulated order is closed; asking for open ones finds none.
    const wanted = atThisBar && query.get('closed') !== 'false'
    const checks = wanted ? checksClosedBetween(this.options.seed, start, end, { now, historyDays: this.historyDays, volume: this.options.volume }) : []
    return this.list('Order', checks.map((check) => this.order(check)), query)
  }

  private order(check: SimCheck): RevelOrder {
    const id = orderIdOf(check)
    return {
      id,
      uuid: stableUuid(this.options.seed, `revel:order:${check.checkId}`),
      establishment: ESTABLISHMENT_ID,
      created_by: this.employeeIdOf(check.staffKey),
      closed: true,
      has_items: true,
      created_date: check.openedAt.toISOString(),
      updated_date: check.closedAt.toISOString(),
      resource_uri: resourceUri('Order', id),
    }
  }

  private orderItems(query: URLSearchParams): Answer {
    const orderId = Number(query.get('order'))
    if (!Number.isInteger(orderId) || orderId <= 0) return { status: 400, body: 'The simulator lists order items by order only' }
    const check = this.findCheck(orderId)
    const items = (check?.lines ?? []).map((line, lineIndex): RevelOrderItem => {
      const id = orderId * 10 + lineIndex
      const productId = MENU.findIndex((entry) => entry.key === line.itemKey) + 1
      return {
        id,
        order: resourceUri('Order', orderId),
        product: resourceUri('Product', productId),
        quantity: line.quantity,
        initial_price: Number(line.unitPrice),
        price: Number(line.unitPrice),
        created_by: this.employeeIdOf(check!.staffKey),
        created_date: check!.openedAt.toISOString(),
        // Revel's order items show no refund field here; a refunded line is rendered as voided (docs/pos-vendors.md).
        voided_date: line.voided || line.refunded ? check!.closedAt.toISOString() : null,
        resource_uri: resourceUri('OrderItem', id),
      }
    })
    return this.list('OrderItem', items, query)
  }

  /** The check behind an order id, if it exists within the bar's history. */
  private findCheck(orderId: number): SimCheck | undefined {
    const day = Math.floor(orderId / ORDER_ID_DAY)
    const check = checksForDay(this.options.seed, day * DAY_MS, this.options.volume).find((candidate) => orderIdOf(candidate) === orderId)
    const now = this.now().getTime()
    if (!check || check.closedAt.getTime() >= now || check.closedAt.getTime() < now - this.historyDays * DAY_MS) return undefined
    return check
  }

  private employeeIdOf(staffKey: string): number {
    return STAFF.findIndex((member) => member.key === staffKey) + 1
  }
}

function resourceUri(resource: string, id: number): string {
  return `/resources/${resource}/${id}/`
}

function orderIdOf(check: SimCheck): number {
  const [day, index] = check.checkId.split('-').map(Number) as [number, number]
  return day * ORDER_ID_DAY + index
}
