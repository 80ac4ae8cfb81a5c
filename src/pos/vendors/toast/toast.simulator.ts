import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SimulatorHandler, SimulatorOptions } from '../../adapter.js'
import { decimal } from '../../../platform/decimal.js'
import { checksClosedBetween, MENU, menuEntry, STAFF, stableUuid, type MenuEntry, type SimCheck, type SimLine } from '../../simulation/bar-data.js'
import { FailureSwitch, readBody, sendJson } from '../../simulation/simulator-server.js'
import {
  TOAST_LOGIN_PATH,
  TOAST_ORDERS_PAGE_SIZE,
  toastDate,
  type ToastEmployee,
  type ToastError,
  type ToastJob,
  type ToastLoginRequest,
  type ToastLoginResponse,
  type ToastMenuGroup,
  type ToastMenuItem,
  type ToastOrder,
  type ToastRestaurantMenus,
  type ToastSelection,
} from './toast.client.js'

/**
 * Toast's API subset, serving the simulated bar: machine-client login issuing bearer tokens (valid
 * 86 400 s) that every data route then requires along with a GUID in `Toast-Restaurant-External-ID`;
 * menus v2 (a Drinks menu with nested groups, and a Food menu), `ordersBulk` filtered by modification
 * time with `page`/`pageSize` ≤ 100, and labor employees and jobs. A client secret starting with
 * `invalid` is refused with 401. Voided lines stay on their check marked `voided`; refunded lines carry
 * `refundDetails` for their whole price, as Toast reports them.
 */

const DAY_MS = 86_400_000
const DEFAULT_HISTORY_DAYS = 120
const TOKEN_LIFETIME_SECONDS = 86_400
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const DRINK_CATEGORIES = ['Spirits', 'Cocktails', 'Draft Beer', 'Bottled Beer', 'Wine']

/** A request the simulator refuses, answered with Toast's error body. */
class ToastRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

function writeToastError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const error: ToastError = {
    status: String(status),
    // ⚠ Toast's numeric error codes are not published; the simulator uses the HTTP status.
    code: status,
    message,
    messageKey: null,
    requestId: randomBytes(8).toString('hex'),
    canRetry: status === 429 || status >= 500 ? 'true' : null,
  }
  sendJson(res, status, error, headers)
}

/** Money as Toast sends it: a JSON number in dollars. */
function dollars(value: string | number, quantity = 1): number {
  return decimal(value).times(quantity).round(2).toNumber()
}

class ToastIds {
  constructor(private readonly seed: number) {}
  restaurantMenu = (name: string) => stableUuid(this.seed, `toast:menu:${name}`)
  group = (name: string) => stableUuid(this.seed, `toast:group:${name}`)
  salesCategory = (name: string) => stableUuid(this.seed, `toast:sales-category:${name}`)
  item = (key: string) => stableUuid(this.seed, `toast:item:${key}`)
  employee = (key: string) => stableUuid(this.seed, `toast:employee:${key}`)
  job = (role: string) => stableUuid(this.seed, `toast:job:${role}`)
  order = (checkId: string) => stableUuid(this.seed, `toast:order:${checkId}`)
  check = (checkId: string) => stableUuid(this.seed, `toast:check:${checkId}`)
  payment = (checkId: string) => stableUuid(this.seed, `toast:payment:${checkId}`)
  selection = (lineId: string) => stableUuid(this.seed, `toast:selection:${lineId}`)
}

function renderMenuItem(ids: ToastIds, entry: MenuEntry): ToastMenuItem {
  return {
    guid: ids.item(entry.key),
    entityType: 'MenuItem',
    name: entry.name,
    price: dollars(entry.price),
    pricingStrategy: 'BASE_PRICE',
    sku: entry.sku,
    plu: null,
    salesCategory: { guid: ids.salesCategory(entry.category), entityType: 'SalesCategory', name: entry.category },
    unitOfMeasure: 'NONE',
  }
}

function renderGroup(ids: ToastIds, name: string, children: ToastMenuGroup[], items: ToastMenuItem[]): ToastMenuGroup {
  return { guid: ids.group(name), entityType: 'MenuGroup', name, menuGroups: children, menuItems: items }
}

function renderMenus(ids: ToastIds, restaurantGuid: string, lastUpdated: string): ToastRestaurantMenus {
  const itemsOf = (category: string) => MENU.filter((entry) => entry.category === category).map((entry) => renderMenuItem(ids, entry))
  const drinkGroups = DRINK_CATEGORIES.map((category) => renderGroup(ids, category, [], itemsOf(category)))
  return {
    restaurantGuid,
    lastUpdated,
    restaurantTimeZone: 'Etc/UTC',
    menus: [
      { guid: ids.restaurantMenu('Drinks'), entityType: 'Menu', name: 'Drinks', menuGroups: [renderGroup(ids, 'All Drinks', drinkGroups, [])] },
      { guid: ids.restaurantMenu('Food'), entityType: 'Menu', name: 'Food', menuGroups: [renderGroup(ids, 'Food', [], itemsOf('Food'))] },
    ],
  }
}

function renderSelection(ids: ToastIds, line: SimLine, closedAt: string): ToastSelection {
  const entry = menuEntry(line.itemKey)
  const price = dollars(line.unitPrice, line.quantity)
  return {
    guid: ids.selection(line.lineId),
    entityType: 'MenuItemSelection',
    item: { guid: ids.item(entry.key), entityType: 'MenuItem' },
    salesCategory: { guid: ids.salesCategory(entry.category), entityType: 'SalesCategory' },
    displayName: entry.name,
    quantity: line.quantity,
    unitOfMeasure: 'NONE',
    price: line.voided ? 0 : price,
    preDiscountPrice: price,
    receiptLinePrice: dollars(line.unitPrice),
    tax: 0,
    voided: line.voided,
    voidDate: line.voided ? closedAt : null,
    refundDetails: line.refunded ? { refundAmount: price, taxRefundAmount: 0 } : null,
    modifiers: [],
  }
}

function renderOrder(ids: ToastIds, check: SimCheck): ToastOrder {
  const closedAt = toastDate(check.closedAt)
  const openedAt = toastDate(check.openedAt)
  const selections = check.lines.map((line) => renderSelection(ids, line, closedAt))
  const amount = dollars(selections.reduce((total, selection) => total.plus(selection.price), decimal(0)).toString())
  const server = { guid: ids.employee(check.staffKey), entityType: 'RestaurantUser' }
  const refunded = check.lines.some((line) => line.refunded)
  return {
    guid: ids.order(check.checkId),
    entityType: 'Order',
    businessDate: Number(check.openedAt.toISOString().slice(0, 10).replaceAll('-', '')),
    openedDate: openedAt,
    closedDate: closedAt,
    modifiedDate: closedAt,
    voided: false,
    deleted: false,
    server,
    checks: [
      {
        guid: ids.check(check.checkId),
        entityType: 'Check',
        openedDate: openedAt,
        closedDate: closedAt,
        modifiedDate: closedAt,
        deleted: false,
        voided: false,
        paymentStatus: 'CLOSED',
        amount,
        totalAmount: amount,
        selections,
        payments: [
          {
            guid: ids.payment(check.checkId),
            entityType: 'OrderPayment',
            paidDate: closedAt,
            type: 'CREDIT',
            amount,
            tipAmount: dollars(check.tip),
            server,
            refundStatus: refunded ? 'PARTIAL' : 'NONE',
            orderGuid: ids.order(check.checkId),
            checkGuid: ids.check(check.checkId),
          },
        ],
      },
    ],
  }
}

function renderJobs(ids: ToastIds): ToastJob[] {
  return [...new Set(STAFF.map((staff) => staff.role))].map((role) => ({
    guid: ids.job(role),
    entityType: 'RestaurantJob',
    title: role.charAt(0).toUpperCase() + role.slice(1),
    deleted: false,
  }))
}

function renderEmployees(ids: ToastIds): ToastEmployee[] {
  return STAFF.map((staff) => ({
    guid: ids.employee(staff.key),
    entityType: 'RestaurantUser',
    firstName: staff.firstName,
    chosenName: null,
    lastName: staff.lastName,
    deleted: false,
    jobReferences: [{ guid: ids.job(staff.role), entityType: 'RestaurantJob' }],
  }))
}

function positiveInteger(value: string | null, fallback: number, name: string): number {
  if (value === null) return fallback
  const number = Number(value)
  if (!Number.isInteger(number) || number < 1) throw new ToastRequestError(400, `${name} must be a positive integer`)
  return number
}

function dateParam(value: string | null, name: string): Date {
  const time = value === null ? Number.NaN : Date.parse(value)
  if (Number.isNaN(time)) throw new ToastRequestError(400, `${name} must be an ISO-8601 date and time`)
  return new Date(time)
}

export function createToastSimulator(options: SimulatorOptions): SimulatorHandler {
  const failures = new FailureSwitch(options.failure)
  const ids = new ToastIds(options.seed)
  const now = options.now ?? (() => new Date())
  const historyDays = options.historyDays ?? DEFAULT_HISTORY_DAYS
  /** Issued access token → when it expires (real time, ms). */
  const tokens = new Map<string, number>()
  const menusPublishedAt = toastDate(new Date(now().getTime() - historyDays * DAY_MS))

  async function login(req: IncomingMessage): Promise<ToastLoginResponse> {
    let body: Partial<ToastLoginRequest>
    try {
      body = JSON.parse(await readBody(req)) as Partial<ToastLoginRequest>
    } catch {
      throw new ToastRequestError(400, 'The request body is not valid JSON')
    }
    if (!body.clientId || !body.clientSecret || body.userAccessType !== 'TOAST_MACHINE_CLIENT') {
      throw new ToastRequestError(400, 'clientId, clientSecret and userAccessType TOAST_MACHINE_CLIENT are required')
    }
    if (body.clientSecret.startsWith('invalid')) throw new ToastRequestError(401, 'Invalid client credentials')
    const payload = Buffer.from(JSON.stringify({ clientId: body.clientId, jti: randomBytes(12).toString('hex') })).toString('base64url')
    const accessToken = `eyJhbGciOiJSUzI1NiJ9.${payload}.${randomBytes(32).toString('base64url')}`
    tokens.set(accessToken, Date.now() + TOKEN_LIFETIME_SECONDS * 1000)
    return { token: { tokenType: 'Bearer', scope: null, expiresIn: TOKEN_LIFETIME_SECONDS, accessToken }, status: 'SUCCESS' }
  }

  /** The restaurant GUID of an authorised data request. */
  function authorise(req: IncomingMessage): string {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1]
    const expiresAt = token ? tokens.get(token) : undefined
    if (!expiresAt || expiresAt <= Date.now()) throw new ToastRequestError(401, 'Authentication token is missing, invalid or expired')
    const restaurant = req.headers['toast-restaurant-external-id']
    if (typeof restaurant !== 'string' || !GUID.test(restaurant)) {
      throw new ToastRequestError(400, 'Toast-Restaurant-External-ID must be a restaurant GUID')
    }
    return restaurant
  }

  function ordersBulk(query: URLSearchParams): ToastOrder[] {
    const pageSize = positiveInteger(query.get('pageSize'), TOAST_ORDERS_PAGE_SIZE, 'pageSize')
    if (pageSize > TOAST_ORDERS_PAGE_SIZE) throw new ToastRequestError(400, `pageSize must be at most ${TOAST_ORDERS_PAGE_SIZE}`)
    const page = positiveInteger(query.get('page'), 1, 'page')
    const start = dateParam(query.get('startDate'), 'startDate')
    const end = dateParam(query.get('endDate'), 'endDate')
    if (end <= start) throw new ToastRequestError(400, 'endDate must be later than startDate')
    // The simulated bar never touches a check after closing it, so modifiedDate is closedDate.
    const checks = checksClosedBetween(options.seed, start, end, { now: now(), historyDays, volume: options.volume })
    return checks.slice((page - 1) * pageSize, page * pageSize).map((check) => renderOrder(ids, check))
  }

  async function route(req: IncomingMessage, url: URL): Promise<unknown> {
    const method = req.method ?? 'GET'
    if (method === 'POST' && url.pathname === TOAST_LOGIN_PATH) return login(req)
    const known = ['/menus/v2/menus', '/menus/v2/metadata', '/orders/v2/ordersBulk', '/labor/v1/employees', '/labor/v1/jobs']
    if (method !== 'GET' || !known.includes(url.pathname)) throw new ToastRequestError(404, `No resource at ${method} ${url.pathname}`)
    const restaurantGuid = authorise(req)
    switch (url.pathname) {
      case '/menus/v2/menus':
        return renderMenus(ids, restaurantGuid, menusPublishedAt)
      case '/menus/v2/metadata':
        return { restaurantGuid, lastUpdated: menusPublishedAt }
      case '/orders/v2/ordersBulk':
        return ordersBulk(url.searchParams)
      case '/labor/v1/employees':
        return renderEmployees(ids)
      default:
        return renderJobs(ids)
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (await failures.intercept(res, (status, message, headers) => writeToastError(res, status, message, headers))) return
    try {
      sendJson(res, 200, await route(req, new URL(req.url ?? '/', 'http://simulator')))
    } catch (error) {
      if (!(error instanceof ToastRequestError)) throw error
      writeToastError(res, error.status, error.message)
    }
  }

  return (req, res) => {
    handle(req, res).catch((error: Error) => writeToastError(res, 500, error.message))
  }
}
