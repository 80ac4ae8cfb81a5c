import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SimulatorHandler, SimulatorOptions } from '../adapter.js'
import { checksClosedBetween, MENU, MODIFIERS, STAFF, type MenuEntry, type MenuKind } from '../../simulation/bar-data.js'
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
  type ToastModifierGroup,
  type ToastModifierOption,
  type ToastOrder,
  type ToastRestaurantMenus,
} from './toast.client.js'
import { dollars, orderModifiedAt, ToastIds, ToastOrderRenderer } from './toast.simulated-orders.js'
import { DAY_MS } from '../../../platform/zoned-time.js'

/**
 * Toast's API subset, serving the simulated bar: machine-client login issuing bearer tokens (valid
 * 86 400 s) that every data route then requires along with a GUID in `Toast-Restaurant-External-ID`;
 * menus v2 (a Drinks menu with nested groups, a Food menu, and the modifier groups and options of
 * pours and cocktails), `ordersBulk` filtered by modification time with `page`/`pageSize` ≤ 100 (or by
 * `businessDate`), and labor employees and jobs. A client secret starting with `invalid` is refused
 * with 401; a query parameter or login field the documents do not list is refused with 400. Orders are
 * rendered as of `now()` (see toast.simulated-orders.ts).
 */

const HOUR_MS = 3_600_000
const DEFAULT_HISTORY_DAYS = 120
const TOKEN_LIFETIME_SECONDS = 86_400
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const DRINK_CATEGORIES = ['Spirits', 'Cocktails', 'Draft Beer', 'Bottled Beer', 'Wine']
/** The simulated bar refunds a line at most 48 hours after its check closed: the furthest back a modification reaches. */
const LONGEST_MODIFICATION_AFTER_CLOSE_MS = 49 * HOUR_MS

/** What each route documents (toast-*.yaml): its query parameters, and the login body's fields. */
const DOCUMENTED_QUERY: Record<string, readonly string[]> = {
  '/menus/v2/menus': [],
  '/menus/v2/metadata': [],
  '/orders/v2/ordersBulk': ['startDate', 'endDate', 'businessDate', 'page', 'pageSize'],
  '/labor/v1/employees': ['employeeIds'],
  '/labor/v1/jobs': ['jobIds'],
}
const LOGIN_FIELDS = ['clientId', 'clientSecret', 'userAccessType']

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

function renderMenuItem(ids: ToastIds, entry: MenuEntry): ToastMenuItem {
  const groups = modifierGroupsOf(entry.kind)
  return {
    guid: ids.item(entry.key),
    entityType: 'MenuItem',
    name: entry.name,
    price: dollars(entry.price),
    pricingStrategy: 'BASE_PRICE',
    sku: entry.sku,
    // ⚠ An item without a PLU: the document types plu as a string and has no null, so an empty string.
    plu: '',
    salesCategory: { guid: ids.salesCategory(entry.category), entityType: 'SalesCategory', name: entry.category },
    unitOfMeasure: 'NONE',
    ...(groups.length > 0 && { modifierGroupReferences: groups.map((group) => group.referenceId) }),
  }
}

/** The bar's modifier groups: one per kind of item MODIFIERS apply to, offering the modifiers of that kind. */
const MODIFIER_GROUP_KINDS = [...new Set(MODIFIERS.flatMap((modifier) => modifier.parentKinds))]

function modifierGroupsOf(kind: MenuKind): { referenceId: number; kind: MenuKind }[] {
  return MODIFIER_GROUP_KINDS.flatMap((groupKind, index) => (groupKind === kind ? [{ referenceId: index + 1, kind: groupKind }] : []))
}

/** A modifier option's referenceId: after the groups', so the two maps never share a key. */
const optionReferenceId = (index: number) => MODIFIER_GROUP_KINDS.length + index + 1

function renderModifierReferences(ids: ToastIds): Pick<ToastRestaurantMenus, 'modifierGroupReferences' | 'modifierOptionReferences'> {
  const groups: ToastModifierGroup[] = MODIFIER_GROUP_KINDS.map((kind, index) => ({
    referenceId: index + 1,
    guid: ids.modifierGroup(kind),
    name: `${kind.charAt(0).toUpperCase()}${kind.slice(1)} add-ons`,
    modifierOptionReferences: MODIFIERS.flatMap((modifier, optionIndex) => (modifier.parentKinds.includes(kind) ? [optionReferenceId(optionIndex)] : [])),
  }))
  const options: ToastModifierOption[] = MODIFIERS.map((modifier, index) => ({
    referenceId: optionReferenceId(index),
    guid: ids.item(modifier.key),
    name: modifier.name,
    price: dollars(modifier.price),
    sku: modifier.sku,
    plu: '',
    salesCategory: { guid: ids.salesCategory(modifier.category), entityType: 'SalesCategory', name: modifier.category },
  }))
  return {
    modifierGroupReferences: Object.fromEntries(groups.map((group) => [String(group.referenceId), group])),
    modifierOptionReferences: Object.fromEntries(options.map((option) => [String(option.referenceId), option])),
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
    ...renderModifierReferences(ids),
  }
}

function renderJobs(ids: ToastIds, only: Set<string> | null): ToastJob[] {
  const jobs = [...new Set(STAFF.map((staff) => staff.role))].map((role) => ({
    guid: ids.job(role),
    entityType: 'RestaurantJob',
    title: role.charAt(0).toUpperCase() + role.slice(1),
    deleted: false,
  }))
  return jobs.filter((job) => !only || only.has(job.guid))
}

function renderEmployees(ids: ToastIds, only: Set<string> | null): ToastEmployee[] {
  const employees = STAFF.map((staff) => ({
    guid: ids.employee(staff.key),
    entityType: 'RestaurantUser',
    firstName: staff.firstName,
    lastName: staff.lastName,
    deleted: false,
    jobReferences: [{ guid: ids.job(staff.role), entityType: 'RestaurantJob' }],
  }))
  return employees.filter((employee) => !only || only.has(employee.guid))
}

/** A comma-separated list of GUIDs (`employeeIds`, `jobIds`), or null when the parameter is absent. */
function guidList(value: string | null): Set<string> | null {
  return value === null ? null : new Set(value.split(',').map((guid) => guid.trim()))
}

function positiveInteger(value: string | null, fallback: number, name: string): number {
  if (value === null) return fallback
  const number = Number(value)
  if (!Number.isInteger(number) || number < 1) throw new ToastRequestError(400, `${name} must be a positive integer`)
  return number
}

/** ISO 8601 with a fraction of a second and an offset, as the document asks ("2016-01-01T14:13:12.000+0400"). */
const TOAST_DATE_PARAM = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:?\d\d)$/

function dateParam(value: string, name: string): Date {
  if (!TOAST_DATE_PARAM.test(value)) throw new ToastRequestError(400, `${name} must be an ISO-8601 date and time with milliseconds`)
  return new Date(Date.parse(value.replace(/([+-]\d\d)(\d\d)$/, '$1:$2')))
}

function refuseUndocumented(names: Iterable<string>, documented: readonly string[], where: string): void {
  const unknown = [...names].filter((name) => !documented.includes(name))
  if (unknown.length > 0) throw new ToastRequestError(400, `${where} does not take ${unknown.join(', ')}`)
}

export function createToastSimulator(options: SimulatorOptions): SimulatorHandler {
  const failures = new FailureSwitch(options.failure)
  const ids = new ToastIds(options.seed)
  const orders = new ToastOrderRenderer(ids)
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
    refuseUndocumented(Object.keys(body ?? {}), LOGIN_FIELDS, 'The login request')
    if (!body.clientId || !body.clientSecret || body.userAccessType !== 'TOAST_MACHINE_CLIENT') {
      throw new ToastRequestError(400, 'clientId, clientSecret and userAccessType TOAST_MACHINE_CLIENT are required')
    }
    if (body.clientSecret.startsWith('invalid')) throw new ToastRequestError(401, 'Invalid client credentials')
    const payload = Buffer.from(JSON.stringify({ clientId: body.clientId, jti: randomBytes(12).toString('hex') })).toString('base64url')
    const accessToken = `eyJhbGciOiJSUzI1NiJ9.${payload}.${randomBytes(32).toString('base64url')}`
    tokens.set(accessToken, Date.now() + TOKEN_LIFETIME_SECONDS * 1000)
    // Toast documents `scope` as null in this answer but types it a string: the simulator leaves it out.
    return { token: { tokenType: 'Bearer', expiresIn: TOKEN_LIFETIME_SECONDS, accessToken }, status: 'SUCCESS' }
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

  /** Orders modified in [startDate, endDate), or opened on `businessDate`, oldest change first. */
  function ordersBulk(query: URLSearchParams): ToastOrder[] {
    const pageSize = positiveInteger(query.get('pageSize'), TOAST_ORDERS_PAGE_SIZE, 'pageSize')
    if (pageSize > TOAST_ORDERS_PAGE_SIZE) throw new ToastRequestError(400, `pageSize must be at most ${TOAST_ORDERS_PAGE_SIZE}`)
    const page = positiveInteger(query.get('page'), 1, 'page')
    const asOf = now()
    const matching = query.has('businessDate') ? ordersOfBusinessDate(query, asOf) : ordersModifiedBetween(query, asOf)
    return matching.slice((page - 1) * pageSize, page * pageSize).map((check) => orders.render(check, asOf))
  }

  function ordersModifiedBetween(query: URLSearchParams, asOf: Date) {
    const startText = query.get('startDate')
    const endText = query.get('endDate')
    if (startText === null || endText === null) throw new ToastRequestError(400, 'Give both startDate and endDate, or businessDate')
    const start = dateParam(startText, 'startDate')
    const end = dateParam(endText, 'endDate')
    if (end <= start) throw new ToastRequestError(400, 'endDate must be later than startDate')
    const closedFrom = new Date(start.getTime() - LONGEST_MODIFICATION_AFTER_CLOSE_MS)
    return checksClosedBetween(options.seed, closedFrom, end, { now: asOf, historyDays, volume: options.volume })
      .map((check) => ({ check, modifiedAt: orderModifiedAt(check, asOf) }))
      .filter(({ modifiedAt }) => modifiedAt >= start && modifiedAt < end)
      .sort((a, b) => a.modifiedAt.getTime() - b.modifiedAt.getTime())
      .map(({ check }) => check)
  }

  function ordersOfBusinessDate(query: URLSearchParams, asOf: Date) {
    if (query.has('startDate') || query.has('endDate')) throw new ToastRequestError(400, 'Give startDate and endDate, or businessDate, not both')
    const text = query.get('businessDate') ?? ''
    const day = /^(\d{4})(\d\d)(\d\d)$/.exec(text)
    if (!day) throw new ToastRequestError(400, 'businessDate must be yyyymmdd')
    const dayStart = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]))
    // A check closes up to a day after it opened; its business date is the day it opened.
    return checksClosedBetween(options.seed, new Date(dayStart), new Date(dayStart + 2 * DAY_MS), { now: asOf, historyDays, volume: options.volume }).filter(
      (check) => check.openedAt.getTime() >= dayStart && check.openedAt.getTime() < dayStart + DAY_MS,
    )
  }

  async function route(req: IncomingMessage, url: URL): Promise<unknown> {
    const method = req.method ?? 'GET'
    if (method === 'POST' && url.pathname === TOAST_LOGIN_PATH) return login(req)
    const documented = DOCUMENTED_QUERY[url.pathname]
    if (method !== 'GET' || !documented) throw new ToastRequestError(404, `No resource at ${method} ${url.pathname}`)
    const restaurantGuid = authorise(req)
    refuseUndocumented(url.searchParams.keys(), documented, `GET ${url.pathname}`)
    switch (url.pathname) {
      case '/menus/v2/menus':
        return renderMenus(ids, restaurantGuid, menusPublishedAt)
      case '/menus/v2/metadata':
        return { restaurantGuid, lastUpdated: menusPublishedAt }
      case '/orders/v2/ordersBulk':
        return ordersBulk(url.searchParams)
      case '/labor/v1/employees':
        return renderEmployees(ids, guidList(url.searchParams.get('employeeIds')))
      default:
        return renderJobs(ids, guidList(url.searchParams.get('jobIds')))
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
