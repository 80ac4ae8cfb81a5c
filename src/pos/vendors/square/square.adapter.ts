import type Big from 'big.js'
import type { PosAdapter, PosAdapterOptions, PosProduct, PosSaleLine, PosStaffMember, SalesWindow } from '../../adapter.js'
import { ZERO } from '../../../platform/decimal.js'
import { SquareClient, type SquareOrder, type SquarePayment } from './square.client.js'
import { mapCatalog, mapOrderLines, mapTeamMember, returnedQuantities, withoutReturned, type OrderStaff } from './square.mapper.js'

/**
 * Square with a personal (or OAuth) access token: there is no login to cache, the token is sent on
 * every call. Sales are completed orders by closing time; who sold them comes from the order's
 * payments, and refunded goods from return orders, which Square files as orders of their own.
 */

const CATALOG_TYPES = ['ITEM', 'ITEM_VARIATION', 'CATEGORY'] as const

/**
 * How long before an order closes its payment may have been created: a bar tab's card is authorised
 * when the tab opens, hours before it closes. Payments older than this are not matched to their order.
 */
const PAYMENT_LOOKBACK_MS = 12 * 3_600_000

export function createSquareAdapter(options: PosAdapterOptions): PosAdapter {
  const locationId = options.credentials.location_id ?? ''
  const client = new SquareClient({
    baseUrl: options.baseUrl,
    accessToken: options.credentials.access_token ?? '',
    timeoutMs: options.timeoutMs,
    maxRetryWaitMs: options.maxRetryWaitMs,
  })
  return {
    async verify() {
      await client.retrieveLocation(locationId)
    },
    async listProducts(): Promise<PosProduct[]> {
      return mapCatalog(await collect(client.listCatalog(CATALOG_TYPES)))
    },
    listSales: (window) => listSales(client, locationId, window),
    async listStaff(): Promise<PosStaffMember[]> {
      return (await collect(client.searchTeamMembers())).map(mapTeamMember)
    },
  }
}

async function collect<T>(pages: AsyncIterable<T[]>): Promise<T[]> {
  const all: T[] = []
  for await (const page of pages) all.push(...page)
  return all
}

/**
 * Completed orders of the window, page by page. An order that had refunds is held back until the
 * return order naming it has been read (it closes at or after the sale, so usually on the same page),
 * and is then reported without the returned goods. An order whose return never shows up in the window
 * was refunded by amount only, which gives no goods back: it is reported whole at the end.
 */
async function* listSales(client: SquareClient, locationId: string, window: SalesWindow): AsyncIterable<PosSaleLine[]> {
  const staffNames = new Map((await collect(client.searchTeamMembers())).map((member) => [member.id, mapTeamMember(member).name]))
  const payments = new WindowPayments(client, locationId, window)
  const returns = new ReturnLedger()
  const awaitingReturn = new Map<string, PosSaleLine[]>()
  for await (const orders of client.searchOrders({ locationId, closedFrom: window.start, closedTo: window.end })) {
    const staffOfOrder = await paymentStaff(payments, orders, staffNames)
    const ready: PosSaleLine[] = []
    for (const order of orders) {
      returns.record(order)
      if (!order.line_items?.length) continue
      const lines = mapOrderLines(order, staffOfOrder.get(order.id) ?? NO_STAFF)
      if (order.refunds?.length) awaitingReturn.set(order.id, lines)
      else ready.push(...lines)
    }
    for (const [orderId, lines] of awaitingReturn) {
      if (!returns.hasReturnFor(orderId)) continue
      ready.push(...lines)
      awaitingReturn.delete(orderId)
    }
    const kept = returns.apply(ready)
    if (kept.length > 0) yield kept
  }
  const refundedByAmount = [...awaitingReturn.values()].flat()
  if (refundedByAmount.length > 0) yield refundedByAmount
}

const NO_STAFF: OrderStaff = { staffId: null, staffName: null }

/** Who took each order's payment (Square names the team member on the payment, not the order). */
async function paymentStaff(payments: WindowPayments, orders: readonly SquareOrder[], staffNames: ReadonlyMap<string, string>): Promise<Map<string, OrderStaff>> {
  let earliestClose = Infinity
  let latestClose = -Infinity
  for (const order of orders) {
    const time = Date.parse(order.closed_at ?? '')
    if (Number.isNaN(time)) continue
    earliestClose = Math.min(earliestClose, time)
    latestClose = Math.max(latestClose, time)
  }
  const staff = new Map<string, OrderStaff>()
  if (earliestClose === Infinity) return staff
  const orderIds = new Set(orders.map((order) => order.id))
  for (const payment of await payments.createdBetween(earliestClose - PAYMENT_LOOKBACK_MS, latestClose + 1)) {
    const staffId = payment.team_member_id ?? payment.employee_id
    if (!payment.order_id || !orderIds.has(payment.order_id) || !staffId) continue
    staff.set(payment.order_id, { staffId, staffName: staffNames.get(staffId) ?? null })
  }
  return staff
}

/**
 * The window's payments, oldest first. Orders pages come oldest first too, so the payment ranges of
 * consecutive pages overlap by the lookback: one ListPayments over the whole window, read ahead only as
 * far as the latest page needs and forgotten once older than its range, serves each payment once. A
 * range outside that pattern (older than the one before, or beyond the window) is asked for on its own.
 */
class WindowPayments {
  private readonly streamFrom: number
  private readonly streamTo: number
  private readonly stream: AsyncIterator<SquarePayment[]>
  private streamDone = false
  private lastFrom = -Infinity
  /** Payments read from the stream and not yet older than every range still to come, oldest first. */
  private held: { createdAt: number; payment: SquarePayment }[] = []

  constructor(
    private readonly client: SquareClient,
    private readonly locationId: string,
    window: SalesWindow,
  ) {
    this.streamFrom = window.start.getTime() - PAYMENT_LOOKBACK_MS
    this.streamTo = window.end.getTime()
    this.stream = client.listPayments({ locationId, createdFrom: new Date(this.streamFrom), createdTo: window.end })[Symbol.asyncIterator]()
  }

  /** Payments created in [from, to), oldest first. */
  async createdBetween(from: number, to: number): Promise<SquarePayment[]> {
    if (from < this.lastFrom || from < this.streamFrom || to > this.streamTo) {
      return collect(this.client.listPayments({ locationId: this.locationId, createdFrom: new Date(from), createdTo: new Date(to) }))
    }
    this.lastFrom = from
    // Read on until a payment created at or after `to` shows the range is complete (an unreadable time proves nothing).
    while (!this.streamDone && !((this.held.at(-1)?.createdAt ?? -Infinity) >= to)) {
      const next = await this.stream.next()
      if (next.done) this.streamDone = true
      else for (const payment of next.value) this.held.push({ createdAt: Date.parse(payment.created_at), payment })
    }
    this.held = this.held.filter((entry) => !(entry.createdAt < from))
    return this.held.filter((entry) => !(entry.createdAt >= to)).map((entry) => entry.payment)
  }
}

/** Goods given back by return orders, per sold line id, and which sale orders have had a return read. */
class ReturnLedger {
  private readonly quantities = new Map<string, Big>()
  private readonly returnedOrders = new Set<string>()

  record(order: SquareOrder): void {
    for (const orderReturn of order.returns ?? []) if (orderReturn.source_order_id) this.returnedOrders.add(orderReturn.source_order_id)
    for (const [lineId, quantity] of returnedQuantities(order)) this.quantities.set(lineId, (this.quantities.get(lineId) ?? ZERO).plus(quantity))
  }

  hasReturnFor(orderId: string): boolean {
    return this.returnedOrders.has(orderId)
  }

  apply(lines: readonly PosSaleLine[]): PosSaleLine[] {
    return lines.flatMap((line) => withoutReturned(line, this.quantities.get(line.lineId)) ?? [])
  }
}
