import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SimulatorHandler, SimulatorOptions } from '../adapter.js'
import { checksClosedBetween, dollarsToCents, MENU, menuEntry, MODIFIERS, STAFF, stableId, type SimCheck, type SimLine, type StaffEntry } from '../../simulation/bar-data.js'
import { BoundedCache } from '../../simulation/bounded-cache.js'
import { FailureSwitch, readBody, sendJson } from '../../simulation/simulator-server.js'
import {
  CLOVER_MAX_PAGE_SIZE,
  DEFAULT_CLOVER_REFRESH_FIELDS,
  type CloverEmployee,
  type CloverError,
  type CloverItem,
  type CloverLineItem,
  type CloverModification,
  type CloverModifierGroup,
  type CloverOrder,
  type CloverPayment,
  type CloverPush,
  type CloverRefreshFields,
  type CloverRefreshRequest,
  type CloverRefund,
  type CloverWebhookVerification,
} from './clover.client.js'
import { DAY_MS } from '../../../platform/zoned-time.js'

/**
 * Clover's API subset, served over the simulated bar as of the simulator's `now()`:
 * `/v3/merchants/{mId}/items|orders|employees|modifier_groups` with offset/limit pages, `expand`, the
 * `createdTime` and `modifiedTime` order filters and the 90-day limit of a `createdTime` search, bearer
 * tokens, and the OAuth v2 refresh with single-use refresh tokens. A query parameter, filter field or
 * expansion the route does not document is a 400. Any token is accepted except one starting with
 * `invalid`, or with `expired` (how tests hand the adapter a stored token that has run out), or one this
 * simulator issued and whose time is up.
 *
 * How the bar's events look on Clover: a line taken back after the order was paid (a refund, or a
 * manager's void after close, which Clover processes as a refund) stays on the order with
 * `refunded: true` and a `refunds` entry naming it; a reopened order shows the line added and a second
 * payment once it is paid again; a pre-authorised tab's payment was recorded when the tab was opened
 * (`createdTime`) and captured when it was closed (`modifiedTime`).
 */

const ORDER_HISTORY_LIMIT_MS = 90 * DAY_MS
const DEFAULT_PAGE_SIZE = 100
/** How long the simulator's access tokens live (wall clock, as a real token's would). */
const ACCESS_TOKEN_TTL_MS = 30 * 60_000
const REFRESH_TOKEN_TTL_MS = 365 * DAY_MS
/** Longer than any simulated tab stays open (bar-data's close within 90 minutes of opening). */
const LONGEST_TAB_MS = DAY_MS
/** Longer than the last change of a simulated order after it closed (bar-data refunds within 48 hours). */
const LATEST_CHANGE_AFTER_CLOSE_MS = 3 * DAY_MS

type Resource = 'items' | 'orders' | 'employees' | 'modifier_groups'
type Expansions = ReadonlySet<string>

/** The query parameters of every list route (Clover pages every list: docs.clover.com/docs/paginating-elements). */
const LIST_PARAMETERS = new Set(['filter', 'expand', 'limit', 'offset'])

/** Each route's filter fields and expansions, as clover.yml lists them (modifier_groups: Clover's reference). */
const ROUTE_QUERIES: Record<Resource, { filters: readonly string[]; expansions: readonly string[] }> = {
  items: {
    filters: [
      'lowStock',
      'modifiedTime',
      'hidden',
      'itemCode',
      'available',
      'option.id',
      'modifierGroup.id',
      'autoManage',
      'price',
      'id',
      'sku',
      'defaultTaxRates',
      'tags.id',
      'alternateName',
      'isRevenue',
      'tags.name',
      'deleted',
      'item.id',
      'name',
      'itemStock.quantity',
      'itemGroup.id',
      'isAgeRestricted',
      'ageRestrictedType',
      'minimumAge',
    ],
    expansions: ['tags', 'categories', 'taxRates', 'modifierGroups', 'itemStock', 'options', 'ageRestricted'],
  },
  orders: {
    filters: [
      'employee.id',
      'note',
      'modifiedTime',
      'orderType',
      'touched',
      'cardTransaction.last4',
      'manualTransaction',
      'employee.name',
      'title',
      'device.id',
      'externalReferenceId',
      'clientCreatedTime',
      'total',
      'payType',
      'testMode',
      'createdTime',
      'id',
      'state',
      'deletedTime',
    ],
    expansions: [
      'employee',
      'payments',
      'refunds',
      'credits',
      'voids',
      'payment.tender',
      'payment.cardTransaction',
      'lineItems',
      'customers',
      'serviceCharge',
      'discounts',
      'orderType',
      'lineItems.discounts',
      'lineItems.modifications',
    ],
  },
  employees: {
    filters: ['modifiedTime', 'role', 'role.id', 'customId', 'name', 'nickname', 'id', 'deletedTime', 'deleted_time', 'email'],
    expansions: ['roles', 'shifts'],
  },
  modifier_groups: { filters: ['id', 'name', 'modifiedTime'], expansions: ['modifiers', 'items'] },
}

/** The order filters the simulator evaluates; the other documented ones are answered with a 400 saying so. */
const SIMULATED_ORDER_FILTERS = new Set(['createdTime', 'modifiedTime'])

interface Filter {
  field: string
  operator: string
  value: string
}

/** A half-open range of epoch milliseconds. */
interface TimeRange {
  from: number
  to: number
}

class BadQuery extends Error {}

function titleCase(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1)
}

function parseFilter(text: string): Filter | undefined {
  const [, field, operator, value] = /^([A-Za-z_.]+)(>=|<=|!=|=|>|<)(.*)$/.exec(text) ?? []
  return field && operator && value !== undefined ? { field, operator, value } : undefined
}

/** `expand=a,b` and `expand=a&expand=b` alike. */
function expansionsOf(params: URLSearchParams): Set<string> {
  return new Set(
    params
      .getAll('expand')
      .flatMap((value) => value.split(','))
      .filter(Boolean),
  )
}

/** The route's filters, or a BadQuery naming the first parameter, filter or expansion it does not document. */
function checkedQuery(resource: Resource, params: URLSearchParams): Filter[] {
  for (const name of params.keys()) if (!LIST_PARAMETERS.has(name)) throw new BadQuery(`Unknown query parameter: ${name}`)
  const allowed = ROUTE_QUERIES[resource]
  for (const expansion of expansionsOf(params)) if (!allowed.expansions.includes(expansion)) throw new BadQuery(`Invalid expand field: ${expansion}`)
  return params.getAll('filter').map((text) => {
    const filter = parseFilter(text)
    if (!filter) throw new BadQuery(`Invalid filter: ${text}`)
    if (!allowed.filters.includes(filter.field)) throw new BadQuery(`Invalid filter field: ${filter.field}`)
    return filter
  })
}

/** `range` narrowed by one time filter. */
function narrowed(range: TimeRange, { field, operator, value }: Filter): TimeRange {
  const time = Number(value)
  if (!/^\d+$/.test(value)) throw new BadQuery(`Invalid ${field} value: ${value}`)
  switch (operator) {
    case '>=':
      return { ...range, from: Math.max(range.from, time) }
    case '>':
      return { ...range, from: Math.max(range.from, time + 1) }
    case '<':
      return { ...range, to: Math.min(range.to, time) }
    case '<=':
      return { ...range, to: Math.min(range.to, time + 1) }
    case '=':
      return { from: Math.max(range.from, time), to: Math.min(range.to, time + 1) }
    default:
      throw new BadQuery(`Filter operator ${operator} on ${field} is not simulated`)
  }
}

function within(range: TimeRange, time: number): boolean {
  return time >= range.from && time < range.to
}

/** When a line was taken back after its order was paid (refunded, or voided by a manager after close); null if never. */
function takenBackAt(line: SimLine): Date | null {
  return line.refundedAt ?? line.voidedAfterCloseAt
}

/** A line's cents with its modifiers, all units. */
function lineCents(line: SimLine): number {
  const modifierCents = line.modifiers.reduce((sum, modifier) => sum + dollarsToCents(modifier.unitPrice) * modifier.quantity, 0)
  return dollarsToCents(line.unitPrice) * line.quantity + modifierCents
}

/** The line rung when the check was reopened: half way between its first close and its second. */
function reopenedAt(check: SimCheck, reclosedAt: Date): number {
  return Math.round((check.closedAt.getTime() + reclosedAt.getTime()) / 2)
}

class CloverSimulator {
  private readonly failures: FailureSwitch
  private readonly issuedAccessTokens = new Map<string, number>()
  private readonly spentRefreshTokens = new Set<string>()
  private readonly historyDays: number
  private readonly now: () => Date
  /** An orders query's checks, kept while its pages are read: each page is then a slice, not the whole window again. */
  private readonly orderSearches = new BoundedCache<string, readonly SimCheck[]>(4)
  /** Menu, modifier, staff and role ids, hashed once. */
  private readonly fixedIds = new Map<string, string>()

  constructor(
    private readonly options: SimulatorOptions,
    private readonly refreshFields: CloverRefreshFields,
  ) {
    this.failures = new FailureSwitch(options.failure)
    this.historyDays = options.historyDays ?? 120
    this.now = options.now ?? (() => new Date())
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const writeError = (status: number, message: string, headers?: Record<string, string>) => {
      const body: CloverError = { message }
      sendJson(res, status, body, headers)
    }
    if (await this.failures.intercept(res, writeError)) return
    const url = new URL(req.url ?? '/', 'http://simulator')
    if (req.method === 'POST' && url.pathname === '/oauth/v2/refresh') return this.refresh(await readBody(req), res, writeError)
    const route = /^\/v3\/merchants\/([A-Za-z0-9]+)\/(items|orders|employees|modifier_groups)$/.exec(url.pathname)
    if (req.method !== 'GET' || !route) return writeError(404, '404 Not Found')
    if (!this.acceptsToken(req.headers.authorization)) return writeError(401, '401 Unauthorized')
    const resource = route[2] as Resource
    const limit = Number(url.searchParams.get('limit') ?? DEFAULT_PAGE_SIZE)
    const offset = Number(url.searchParams.get('offset') ?? 0)
    if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(offset) || offset < 0) return writeError(400, 'Invalid limit or offset')
    try {
      const filters = checkedQuery(resource, url.searchParams)
      const end = offset + Math.min(limit, CLOVER_MAX_PAGE_SIZE)
      sendJson(res, 200, { elements: this.resource(resource, filters, expansionsOf(url.searchParams), offset, end) })
    } catch (error) {
      if (!(error instanceof BadQuery)) throw error
      writeError(400, error.message)
    }
  }

  /** Elements [offset, end) of a resource; only those are rendered. */
  private resource(name: Resource, filters: Filter[], expand: Expansions, offset: number, end: number): unknown[] {
    if (name !== 'orders' && filters.length > 0) throw new BadQuery(`Filters on ${name} are not simulated`)
    switch (name) {
      case 'items':
        return MENU.slice(offset, end).map((entry) => this.item(entry.key, expand))
      case 'modifier_groups':
        return this.modifierGroups(expand).slice(offset, end)
      case 'employees':
        return STAFF.slice(offset, end).map((staff) => this.employee(staff, expand))
      case 'orders':
        return this.ordersMatching(filters)
          .slice(offset, end)
          .map((check) => this.order(check, expand))
    }
  }

  private acceptsToken(header: string | undefined): boolean {
    const token = /^Bearer (\S+)$/.exec(header ?? '')?.[1]
    if (!token || token.startsWith('invalid') || token.startsWith('expired')) return false
    const expiresAt = this.issuedAccessTokens.get(token)
    return expiresAt === undefined || expiresAt > Date.now()
  }

  private refresh(text: string, res: ServerResponse, writeError: (status: number, message: string) => void): void {
    let body: Partial<CloverRefreshRequest>
    try {
      body = JSON.parse(text) as Partial<CloverRefreshRequest>
    } catch {
      return writeError(400, 'Body is not JSON')
    }
    const unknownField = Object.keys(body).find((field) => field !== 'client_id' && field !== 'refresh_token')
    if (unknownField !== undefined) return writeError(400, `Unknown field: ${unknownField}`)
    const refreshToken = body.refresh_token
    if (typeof body.client_id !== 'string' || !body.client_id || typeof refreshToken !== 'string' || !refreshToken) {
      return writeError(400, 'client_id and refresh_token are required')
    }
    if (refreshToken.startsWith('invalid') || this.spentRefreshTokens.has(refreshToken)) return writeError(401, 'Invalid refresh token')
    this.spentRefreshTokens.add(refreshToken)
    const accessToken = randomUUID()
    const accessExpiresAt = Date.now() + ACCESS_TOKEN_TTL_MS
    this.issuedAccessTokens.set(accessToken, accessExpiresAt)
    sendJson(res, 200, {
      [this.refreshFields.accessToken]: accessToken,
      [this.refreshFields.accessTokenExpiration]: Math.floor(accessExpiresAt / 1000),
      [this.refreshFields.refreshToken]: randomUUID(),
      refresh_token_expiration: Math.floor((Date.now() + REFRESH_TOKEN_TTL_MS) / 1000),
    })
  }

  /** Orders matching the createdTime and modifiedTime filters, newest first; a createdTime search reaches 90 days back. */
  private ordersMatching(filters: Filter[]): readonly SimCheck[] {
    const now = this.now()
    let created: TimeRange = { from: 0, to: Number.MAX_SAFE_INTEGER }
    let modified: TimeRange = { from: 0, to: Number.MAX_SAFE_INTEGER }
    for (const filter of filters) {
      if (!SIMULATED_ORDER_FILTERS.has(filter.field)) throw new BadQuery(`Filter on ${filter.field} is not simulated`)
      if (filter.field === 'createdTime') created = narrowed(created, filter)
      else modified = narrowed(modified, filter)
    }
    if (filters.some((filter) => filter.field === 'createdTime')) created = { ...created, from: Math.max(created.from, now.getTime() - ORDER_HISTORY_LIMIT_MS) }
    // A check closes after it opens and no later than its last change.
    const closedFrom = Math.max(created.from, modified.from - LATEST_CHANGE_AFTER_CLOSE_MS)
    const closedTo = Math.min(created.to + LONGEST_TAB_MS, modified.to, now.getTime())
    if (closedFrom >= closedTo) return []
    const key = [created.from, created.to, modified.from, modified.to, closedTo].join(':')
    return this.orderSearches.get(key, () => {
      const history = { now, historyDays: this.historyDays, volume: this.options.volume }
      return checksClosedBetween(this.options.seed, new Date(closedFrom), new Date(closedTo), history)
        .filter((check) => within(created, check.openedAt.getTime()) && within(modified, this.modifiedAt(check, now)))
        .reverse()
    })
  }

  /** The check's last change seen at `asOf`: its close, its second close, a refund. */
  private modifiedAt(check: SimCheck, asOf: Date): number {
    const changes = [check.reclosedAt, ...check.lines.map(takenBackAt)].filter((time): time is Date => time !== null && time <= asOf)
    return Math.max(check.closedAt.getTime(), ...changes.map((time) => time.getTime()))
  }

  private id(kind: string, key: string): string {
    return stableId(this.options.seed, `clover:${kind}:${key}`)
  }

  /** The id of a menu entry, modifier, staff member or role: few of them, asked for on every line. */
  private fixedId(kind: string, key: string): string {
    const name = `${kind}:${key}`
    let id = this.fixedIds.get(name)
    if (id === undefined) {
      id = this.id(kind, key)
      this.fixedIds.set(name, id)
    }
    return id
  }

  private item(key: string, expand: Expansions): CloverItem {
    const entry = menuEntry(key)
    const item: CloverItem = {
      id: this.fixedId('item', key),
      name: entry.name,
      sku: entry.sku,
      price: dollarsToCents(entry.price),
      priceType: 'FIXED',
      hidden: false,
      available: true,
    }
    if (expand.has('categories')) item.categories = { elements: [{ id: this.fixedId('category', entry.category), name: entry.category }] }
    return item
  }

  /** The bar's modifiers, one group per category; Clover lists a group's modifiers only when expanded. */
  private modifierGroups(expand: Expansions): CloverModifierGroup[] {
    const groupNames = [...new Set(MODIFIERS.map((modifier) => modifier.category))]
    return groupNames.map((name) => {
      const id = this.fixedId('modifier-group', name)
      const modifiers = MODIFIERS.filter((modifier) => modifier.category === name).map((modifier) => ({
        id: this.fixedId('modifier', modifier.key),
        name: modifier.name,
        price: dollarsToCents(modifier.price),
        available: true,
        modifierGroup: { id },
      }))
      const group: CloverModifierGroup = { id, name, showByDefault: true, modifierIds: modifiers.map((modifier) => modifier.id).join(',') }
      if (expand.has('modifiers')) group.modifiers = { elements: modifiers }
      return group
    })
  }

  private employee(staff: StaffEntry, expand: Expansions): CloverEmployee {
    const systemRole = staff.role === 'manager' ? 'MANAGER' : 'EMPLOYEE'
    const employee: CloverEmployee = { id: this.fixedId('employee', staff.key), name: `${staff.firstName} ${staff.lastName}`, nickname: staff.firstName, role: systemRole }
    if (expand.has('roles')) employee.roles = { elements: [{ id: this.fixedId('role', staff.role), name: titleCase(staff.role), systemRole }] }
    return employee
  }

  /** The check's lines as Clover shows them at `asOf`: voided lines removed, a line added on reopening once paid. */
  private visibleLines(check: SimCheck, asOf: Date): SimLine[] {
    const reclosed = check.reclosedAt !== null && check.reclosedAt <= asOf
    return check.lines.filter((line) => !line.voided && (!line.addedOnReopen || reclosed))
  }

  /** The ids of the line items Clover writes for a line, one per unit. */
  private unitLineIds(line: SimLine): string[] {
    return Array.from({ length: line.quantity }, (_, unit) => this.id('line', `${line.lineId}:${unit}`))
  }

  private lineItems(check: SimCheck, lines: SimLine[], asOf: Date, withModifications: boolean): CloverLineItem[] {
    return lines.flatMap((line) => {
      const taken = takenBackAt(line)
      const createdTime = line.addedOnReopen && check.reclosedAt ? reopenedAt(check, check.reclosedAt) : check.openedAt.getTime()
      return this.unitLineIds(line).map((id, unit) => {
        const lineItem: CloverLineItem = {
          id,
          item: { id: this.fixedId('item', line.itemKey) },
          name: menuEntry(line.itemKey).name,
          price: dollarsToCents(line.unitPrice),
          createdTime,
          refunded: taken !== null && taken <= asOf,
          exchanged: false,
        }
        if (withModifications) lineItem.modifications = { elements: line.modifiers.map((modifier) => this.modification(modifier.lineId, modifier.itemKey, unit, id)) }
        return lineItem
      })
    })
  }

  /** A modifier on one unit's line item (the bar rings one per unit of its line). */
  private modification(modifierLineId: string, key: string, unit: number, lineItemId: string): CloverModification {
    const modifier = menuEntry(key)
    return {
      id: this.id('modification', `${modifierLineId}:${unit}`),
      name: modifier.name,
      amount: dollarsToCents(modifier.price),
      modifier: { id: this.fixedId('modifier', key) },
      lineItemRef: { id: lineItemId },
    }
  }

  /**
   * The payment at the first close and, for a reopened order paid again, the second. A pre-authorised tab
   * (about half of them) held the card when it was opened: its payment was recorded then and captured at close.
   */
  private payments(check: SimCheck, lines: SimLine[]): CloverPayment[] {
    const firstCents = lines.filter((line) => !line.addedOnReopen).reduce((sum, line) => sum + lineCents(line), 0)
    const closed = check.closedAt.getTime()
    const recorded = this.isPreAuthorisedTab(check) ? check.openedAt.getTime() : closed
    const payments: CloverPayment[] = [
      {
        id: this.id('payment', check.checkId),
        amount: firstCents,
        tipAmount: dollarsToCents(check.tip),
        result: 'SUCCESS',
        createdTime: recorded,
        clientCreatedTime: recorded,
        modifiedTime: closed,
      },
    ]
    const added = lines.filter((line) => line.addedOnReopen)
    if (added.length > 0 && check.reclosedAt) {
      const paid = check.reclosedAt.getTime()
      const amount = added.reduce((sum, line) => sum + lineCents(line), 0)
      payments.push({
        id: this.id('payment', `${check.checkId}:reopened`),
        amount,
        tipAmount: 0,
        result: 'SUCCESS',
        createdTime: paid,
        clientCreatedTime: paid,
        modifiedTime: paid,
      })
    }
    return payments
  }

  private isPreAuthorisedTab(check: SimCheck): boolean {
    return this.id('tab', check.checkId).charCodeAt(0) % 2 === 0
  }

  /** One refund per line taken back by `asOf`, naming the line items it took back. */
  private refunds(check: SimCheck, lines: SimLine[], asOf: Date): CloverRefund[] {
    return lines.flatMap((line) => {
      const taken = takenBackAt(line)
      if (taken === null || taken > asOf) return []
      const paymentKey = line.addedOnReopen ? `${check.checkId}:reopened` : check.checkId
      const time = taken.getTime()
      const lineItems = { elements: this.unitLineIds(line).map((id) => ({ id })) }
      return [
        { id: this.id('refund', line.lineId), amount: lineCents(line), createdTime: time, clientCreatedTime: time, payment: { id: this.id('payment', paymentKey) }, lineItems },
      ]
    })
  }

  private order(check: SimCheck, expand: Expansions): CloverOrder {
    const asOf = this.now()
    const lines = this.visibleLines(check, asOf)
    const total = lines.reduce((sum, line) => sum + lineCents(line), 0)
    const refunds = this.refunds(check, lines, asOf)
    const refunded = refunds.reduce((sum, refund) => sum + refund.amount, 0)
    const staff = STAFF.find((member) => member.key === check.staffKey)!
    const opened = check.openedAt.getTime()
    const order: CloverOrder = {
      id: this.id('order', check.checkId),
      currency: 'USD',
      state: 'locked',
      paymentState: refunded === 0 ? 'PAID' : refunded === total ? 'REFUNDED' : 'PARTIALLY_REFUNDED',
      total,
      createdTime: opened,
      clientCreatedTime: opened,
      modifiedTime: this.modifiedAt(check, asOf),
      employee: expand.has('employee') ? this.employee(staff, new Set()) : { id: this.fixedId('employee', staff.key) },
    }
    if (expand.has('lineItems')) order.lineItems = { elements: this.lineItems(check, lines, asOf, expand.has('lineItems.modifications')) }
    if (expand.has('payments')) order.payments = { elements: this.payments(check, lines) }
    if (expand.has('refunds')) order.refunds = { elements: refunds }
    return order
  }
}

/** A Clover simulator for one seed; `refreshFields` names the refresh answer's fields as the adapter expects them. */
export function createCloverSimulator(options: SimulatorOptions, refreshFields = DEFAULT_CLOVER_REFRESH_FIELDS): SimulatorHandler {
  const simulator = new CloverSimulator(options, refreshFields)
  return (req, res) => {
    simulator.handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { message: `Simulator error: ${(error as Error).message}` } satisfies CloverError)
    })
  }
}

/**
 * What Clover posts to an app's webhook URL (docs.clover.com/docs/webhooks): the app id and, per merchant
 * of the app, its changes (`objectId` as `<type letter>:<id>`, e.g. `O:` an order, `P:` a payment, `I:` an
 * item; `type` CREATE, UPDATE or DELETE; `ts` epoch ms). One message may name several merchants. It is
 * sent with the app's `X-Clover-Auth` code in a header.
 */
export function cloverWebhookMessage(appId: string, merchants: Record<string, { objectId: string; type?: 'CREATE' | 'UPDATE' | 'DELETE'; ts: number }[]>): CloverPush {
  const changes = Object.entries(merchants).map(([merchantId, updates]) => [merchantId, updates.map((update) => ({ type: 'UPDATE' as const, ...update }))] as const)
  return { appId, merchants: Object.fromEntries(changes) }
}

/** What Clover posts, without X-Clover-Auth, when the app's webhook URL is set up (docs.clover.com/docs/webhooks). */
export function cloverWebhookVerification(verificationCode: string): CloverWebhookVerification {
  return { verificationCode }
}
