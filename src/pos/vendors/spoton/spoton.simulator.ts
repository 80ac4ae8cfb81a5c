import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SimulatorHandler, SimulatorOptions } from '../../adapter.js'
import { decimal, sum } from '../../../platform/decimal.js'
import { checksClosedBetween, MENU, menuEntry, STAFF, stableUuid, type SimCheck, type SimLine, type StaffEntry } from '../../simulation/bar-data.js'
import { FailureSwitch, sendJson } from '../../simulation/simulator-server.js'
import {
  toSpotOnTimestamp,
  type SpotOnEmployee,
  type SpotOnError,
  type SpotOnMenuItem,
  type SpotOnOrder,
  type SpotOnOrderMenuItem,
  type SpotOnReportCategory,
} from './spoton.client.js'

/**
 * The SpotOn Export API subset the adapter reads, serving the simulated bar: `x-api-key` on every call
 * (a key starting with `invalid` is refused with 401), routes under /locations/{locationId}, decimal
 * strings for money and quantities, and orders only by closing-time ranges that respect the API's rules
 * (whole seconds, at most 26 hours, ending 5 minutes ago at the latest, ~90 days of history).
 */

const MAX_RANGE_MS = 26 * 3_600_000
const EXPORT_LAG_MS = 5 * 60_000
const HISTORY_LIMIT_MS = 90 * 86_400_000
const MIN_API_KEY_LENGTH = 8
const RFC3339_WHOLE_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/

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
  const answer = bar.answer(decodeURIComponent(route[1] as string), route[2] ?? '', url.searchParams)
  if (answer.status === 200) sendJson(res, 200, answer.body)
  else sendError(res, answer.status, String(answer.body))
}

class SpotOnBar {
  private readonly now: () => Date
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
        return { status: 200, body: MENU.map((entry) => this.menuItem(locationId, entry.key)) }
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
    const names = [...new Set(MENU.map((entry) => entry.category))]
    return names.map((name) => ({ id: this.id('report-category', name), locationId, name, parentId: null, deleted: false }))
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
    const startText = query.get('closedAtStart') ?? ''
    const endText = query.get('closedAtEnd') ?? ''
    if (!RFC3339_WHOLE_SECONDS.test(startText) || !RFC3339_WHOLE_SECONDS.test(endText)) {
      return { status: 400, body: 'closedAtStart and closedAtEnd are required, RFC 3339 without milliseconds' }
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
    // Orders older than ~90 days are no longer exported, whatever the bar's history.
    const historyDays = Math.min(this.historyDays, HISTORY_LIMIT_MS / 86_400_000)
    const checks = checksClosedBetween(this.options.seed, start, end, { now, historyDays, volume: this.options.volume })
    return { status: 200, body: checks.map((check) => this.order(locationId, check)) }
  }

  private order(locationId: string, check: SimCheck): SpotOnOrder {
    const staff = STAFF.find((member) => member.key === check.staffKey) as StaffEntry
    const staffName = `${staff.firstName} ${staff.lastName}`
    const sold = check.lines.filter((line) => !line.voided && !line.refunded)
    // The export has no refund field; a refunded line is rendered as voided (see docs/pos-vendors.md).
    const voided = check.lines.filter((line) => line.voided || line.refunded)
    const total = sum(sold.map((line) => decimal(line.unitPrice).times(line.quantity))).toFixed(2)
    const closedAt = toSpotOnTimestamp(check.closedAt)
    return {
      id: this.id('order', check.checkId),
      deleted: false,
      locationId,
      createdByEmployeeId: this.id('employee', staff.key),
      createdByEmployeeName: staffName,
      createdAt: toSpotOnTimestamp(check.openedAt),
      closedAt,
      updatedAt: check.closedAt.toISOString(),
      totalAmount: total,
      balanceDueAmount: '0.00',
      checks: [
        {
          gratuityAmount: '0.00',
          totalAmount: total,
          paymentsAmount: total,
          balanceAmount: '0.00',
          guests: [{ name: 'Guest 1', items: sold.map((line) => this.orderItem(check, line)), voidedItems: voided.map((line) => this.orderItem(check, line)) }],
          payments: [
            { createdAt: closedAt, amount: total, tipAmount: check.tip, employeeId: this.id('employee', staff.key), employeeName: staffName },
          ],
          items: [],
          voidedItems: [],
        },
      ],
    }
  }

  private orderItem(check: SimCheck, line: SimLine): SpotOnOrderMenuItem {
    const amount = decimal(line.unitPrice).times(line.quantity).toFixed(2)
    return {
      menuItemId: this.id('menu-item', line.itemKey),
      name: menuEntry(line.itemKey).name,
      createdAt: toSpotOnTimestamp(check.openedAt),
      quantity: String(line.quantity),
      preDiscountsAmount: amount,
      discountsAmount: '0.00',
      postDiscountsAmount: amount,
      taxesAmount: '0.00',
      totalAmount: amount,
      subItems: [],
    }
  }
}
