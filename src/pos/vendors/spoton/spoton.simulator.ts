import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SimulatorHandler, SimulatorOptions } from '../adapter.js'
import { decimal, sum } from '../../../platform/decimal.js'
import { checksClosedBetween, MENU, menuEntry, MODIFIERS, STAFF, stableUuid, type SimCheck, type SimLine, type SimModifier, type StaffEntry } from '../../simulation/bar-data.js'
import { FailureSwitch, sendJson } from '../../simulation/simulator-server.js'
import {
  toSpotOnTimestamp,
  type SpotOnEmployee,
  type SpotOnError,
  type SpotOnMenuItem,
  type SpotOnOrder,
  type SpotOnOrderCheck,
  type SpotOnOrderMenuItem,
  type SpotOnReportCategory,
} from './spoton.client.js'
import { DAY_MS } from '../../../platform/zoned-time.js'

/**
 * The SpotOn Export API subset the adapter reads, serving the simulated bar: `x-api-key` on every call
 * (a key starting with `invalid` is refused with 401), routes under /locations/{locationId}, decimal
 * strings for money and quantities, and orders by a closing, update or creation range that respects the
 * API's rules (whole seconds, at most 26 hours, ending 5 minutes ago at the latest, ~90 days of
 * history); a query parameter spoton.yml does not list is refused with 400. Orders are rendered as of
 * `now()`: a line voided or refunded after closing has moved to `voidedItems` and moved the order's
 * `updatedAt`; a reopened order shows its new `closedAt` and added line once closed again, and its first
 * state until then. The bar's modifiers are add-on menu items rung as `subItems` of their line.
 */

const MAX_RANGE_MS = 26 * 3_600_000
const EXPORT_LAG_MS = 5 * 60_000
const HISTORY_LIMIT_MS = 90 * DAY_MS
const MIN_API_KEY_LENGTH = 8
const RFC3339_WHOLE_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/
/** The simulated bar refunds a line at most 48 hours after its order closed. */
const LONGEST_UPDATE_AFTER_CLOSE_MS = 49 * 3_600_000
const ORDER_RANGES = ['closedAt', 'updatedAt', 'createdAt'] as const
type OrderRange = (typeof ORDER_RANGES)[number]
const ORDERS_QUERY = [...ORDER_RANGES.flatMap((range) => [`${range}Start`, `${range}End`]), 'includeUpdatedActivity']

type Answer = { status: number; body: unknown }

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const codes: Record<number, string> = { 400: 'BAD_REQUEST', 401: 'UNAUTHORIZED', 404: 'NOT_FOUND', 429: 'TOO_MANY_REQUESTS' }
  const body: SpotOnError = { message, code: codes[status] ?? 'INTERNAL_SERVER_ERROR' }
  sendJson(res, status, body, headers)
}

export function createSpotOnSimulator(options: SimulatorOptions): SimulatorHandler {
  const failures = new FailureSwitch(options.failure)
  const bar = new SpotOnBar(options)
  return (req, res) => {
    handle(req, res, failures, bar).catch((error: Error) => sendError(res, 500, error.message))
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, failures: FailureSwitch, bar: SpotOnBar): Promise<void> {
  if (await failures.intercept(res, (status, message, headers) => sendError(res, status, message, headers))) return
  const apiKey = req.headers['x-api-key']
  if (typeof apiKey !== 'string' || apiKey.length < MIN_API_KEY_LENGTH || apiKey.startsWith('invalid')) {
    return sendError(res, 401, 'The API key is missing or invalid')
  }
  const url = new URL(req.url ?? '/', 'http://simulator')
  const route = /^\/locations\/([^/]+)(\/[a-z-]+)?\/?$/.exec(url.pathname)
  if (req.method !== 'GET' || !route) return sendError(res, 404, 'Not found')
  const resource = route[2] ?? ''
  const unknown = [...url.searchParams.keys()].filter((name) => resource !== '/orders' || !ORDERS_QUERY.includes(name))
  if (unknown.length > 0) return sendError(res, 400, `Unknown query parameter ${unknown.join(', ')}`)
  const answer = bar.answer(decodeURIComponent(route[1] as string), resource, url.searchParams)
  // The simulated SpotOn's clock is its `now`, as the Date header of a real answer is the vendor's.
  if (answer.status === 200) sendJson(res, 200, answer.body, { date: bar.now().toUTCString() })
  else sendError(res, answer.status, String(answer.body))
}

class SpotOnBar {
  readonly now: () => Date
  private readonly historyDays: number

  constructor(private readonly options: SimulatorOptions) {
    this.now = options.now ?? (() => new Date())
    this.historyDays = options.historyDays ?? 120
  }

  answer(locationId: string, resource: string, query: URLSearchParams): Answer {
    switch (resource) {
      case '':
        return { status: 200, body: { id: locationId, name: 'The Simulated Bar', deleted: false } }
      case '/menu-items':
        return { status: 200, body: [...MENU, ...MODIFIERS].map((entry) => this.menuItem(locationId, entry.key)) }
      case '/report-categories':
        return { status: 200, body: this.reportCategories(locationId) }
      case '/employees':
        return { status: 200, body: STAFF.map((staff) => this.employee(locationId, staff)) }
      case '/orders':
        return this.orders(locationId, query)
      default:
        return { status: 404, body: `No resource ${resource}` }
    }
  }

  private id(kind: string, key: string): string {
    return stableUuid(this.options.seed, `spoton:${kind}:${key}`)
  }

  private menuItem(locationId: string, key: string): SpotOnMenuItem {
    const entry = menuEntry(key)
    return {
      id: this.id('menu-item', entry.key),
      locationId,
      deleted: false,
      available: true,
      name: entry.name,
      openItem: false,
      reportCategoryId: this.id('report-category', entry.category),
      standardPriceAmount: entry.price,
      plu: entry.sku,
    }
  }

  private reportCategories(locationId: string): SpotOnReportCategory[] {
    const names = [...new Set([...MENU, ...MODIFIERS].map((entry) => entry.category))]
    return names.map((name) => ({ id: this.id('report-category', name), locationId, name, deleted: false }))
  }

  private employee(locationId: string, staff: StaffEntry): SpotOnEmployee {
    const position = staff.role.charAt(0).toUpperCase() + staff.role.slice(1)
    return {
      id: this.id('employee', staff.key),
      locationID: locationId,
      firstName: staff.firstName,
      lastName: staff.lastName,
      nickName: staff.firstName,
      active: true,
      deleted: false,
      jobPositions: [{ id: this.id('job-position', staff.role), locationId, name: position, deleted: false }],
    }
  }

  private orders(locationId: string, query: URLSearchParams): Answer {
    const ranges = ORDER_RANGES.filter((range) => query.has(`${range}Start`) || query.has(`${range}End`))
    // ⚠ spoton.yml does not say whether ranges combine: the simulator takes exactly one.
    if (ranges.length !== 1) return { status: 400, body: 'Give one range: closedAt, updatedAt or createdAt Start and End' }
    const range = ranges[0] as OrderRange
    const startText = query.get(`${range}Start`) ?? ''
    const endText = query.get(`${range}End`) ?? ''
    if (!RFC3339_WHOLE_SECONDS.test(startText) || !RFC3339_WHOLE_SECONDS.test(endText)) {
      return { status: 400, body: `${range}Start and ${range}End are required, RFC 3339 without milliseconds` }
    }
    const includeUpdated = query.get('includeUpdatedActivity')
    if (includeUpdated !== null && (range === 'updatedAt' || !['true', 'false'].includes(includeUpdated))) {
      return { status: 400, body: 'includeUpdatedActivity is true or false, with a createdAt or closedAt range only' }
    }
    const start = new Date(startText)
    const end = new Date(endText)
    const now = this.now()
    if (end.getTime() <= start.getTime() || end.getTime() - start.getTime() > MAX_RANGE_MS) {
      return { status: 400, body: 'The date range must be positive and cannot exceed 26 hours' }
    }
    if (end.getTime() > now.getTime() - EXPORT_LAG_MS) {
      return { status: 400, body: 'The end of the date range must be at least 5 minutes in the past' }
    }
    const inRange = (date: Date) => date >= start && date < end
    const matches = (order: SimulatedOrder) => inRange(order[range]) || (includeUpdated === 'true' && order[range] < start && inRange(order.updatedAt))
    const orders = this.simulatedOrders(start, end, now).filter(matches)
    return { status: 200, body: orders.map((order) => this.order(locationId, order)) }
  }

  /** Every order that could fall in a range ending at `end`, as it stands at `now`. */
  private simulatedOrders(start: Date, end: Date, now: Date): SimulatedOrder[] {
    // Orders older than ~90 days are no longer exported, whatever the bar's history.
    const historyDays = Math.min(this.historyDays, HISTORY_LIMIT_MS / DAY_MS)
    const from = new Date(start.getTime() - LONGEST_UPDATE_AFTER_CLOSE_MS)
    return checksClosedBetween(this.options.seed, from, end, { now, historyDays, volume: this.options.volume }).map((check) => simulatedOrder(check, now))
  }

  private order(locationId: string, simulated: SimulatedOrder): SpotOnOrder {
    const { check } = simulated
    const staff = STAFF.find((member) => member.key === check.staffKey) as StaffEntry
    const staffName = `${staff.firstName} ${staff.lastName}`
    const total = sum(simulated.sold.map(lineAmount)).toFixed(2)
    const closedAt = toSpotOnTimestamp(simulated.closedAt)
    const orderCheck: SpotOnOrderCheck = {
      gratuityAmount: '0.00',
      totalAmount: total,
      paymentsAmount: total,
      balanceAmount: '0.00',
      guests: [
        {
          name: 'Guest 1',
          items: simulated.sold.map((line) => this.orderItem(check, line)),
          voidedItems: simulated.voided.map((line) => this.orderItem(check, line)),
        },
      ],
      payments: [{ createdAt: closedAt, amount: total, tipAmount: check.tip, employeeId: this.id('employee', staff.key), employeeName: staffName }],
      items: [],
      voidedItems: [],
    }
    return {
      id: this.id('order', check.checkId),
      deleted: false,
      locationId,
      createdByEmployeeId: this.id('employee', staff.key),
      createdByEmployeeName: staffName,
      createdAt: toSpotOnTimestamp(check.openedAt),
      closedAt,
      updatedAt: simulated.updatedAt.toISOString(),
      totalAmount: total,
      balanceDueAmount: '0.00',
      checks: [orderCheck],
    }
  }

  private orderItem(check: SimCheck, line: SimLine): SpotOnOrderMenuItem {
    // Each line rung a minute after the one before it (the reopened round when the order closed again).
    const rungAt = line.addedOnReopen && check.reclosedAt ? check.reclosedAt : new Date(check.openedAt.getTime() + check.lines.indexOf(line) * 60_000)
    const item = this.menuItemLine(line, rungAt)
    return { ...item, subItems: line.modifiers.map((modifier) => this.menuItemLine(modifier, rungAt)) }
  }

  private menuItemLine(rung: SimLine | SimModifier, rungAt: Date): SpotOnOrderMenuItem {
    const amount = decimal(rung.unitPrice).times(rung.quantity).toFixed(2)
    return {
      menuItemId: this.id('menu-item', rung.itemKey),
      name: menuEntry(rung.itemKey).name,
      createdAt: toSpotOnTimestamp(rungAt),
      quantity: String(rung.quantity),
      preDiscountsAmount: amount,
      discountsAmount: '0.00',
      postDiscountsAmount: amount,
      taxesAmount: '0.00',
      totalAmount: amount,
      subItems: [],
    }
  }
}

/** A check as SpotOn shows it at `now`: which lines are still sold, which were voided, and its dates. */
interface SimulatedOrder {
  check: SimCheck
  closedAt: Date
  createdAt: Date
  updatedAt: Date
  sold: SimLine[]
  voided: SimLine[]
}

const lineAmount = (line: SimLine) => sum([line, ...line.modifiers].map((rung) => decimal(rung.unitPrice).times(rung.quantity)))

function simulatedOrder(check: SimCheck, now: Date): SimulatedOrder {
  const reclosed = check.reclosedAt !== null && check.reclosedAt <= now
  const closedAt = reclosed && check.reclosedAt ? check.reclosedAt : check.closedAt
  const lines = check.lines.filter((line) => !line.addedOnReopen || reclosed)
  // ⚠ The export has no refund: a refunded line is shown voided, like a void after close.
  const takenBackAt = (line: SimLine) => [line.refundedAt, line.voidedAfterCloseAt].find((date) => date !== null && date <= now) ?? null
  const changes = lines.map(takenBackAt).filter((date) => date !== null)
  return {
    check,
    closedAt,
    createdAt: check.openedAt,
    updatedAt: new Date(Math.max(closedAt.getTime(), ...changes.map((date) => date.getTime()))),
    sold: lines.filter((line) => !line.voided && takenBackAt(line) === null),
    voided: lines.filter((line) => line.voided || takenBackAt(line) !== null),
  }
}
