import type Big from 'big.js'
import { decimal, sum } from '../../../platform/decimal.js'
import { menuEntry, stableUuid, type SimCheck, type SimLine, type SimModifier } from '../../simulation/bar-data.js'
import { toastDate, type ToastCheck, type ToastOrder, type ToastPayment, type ToastReference, type ToastRefund, type ToastSelection } from './toast.client.js'

/**
 * The simulated bar's checks as Toast's orders API shows them at a given moment (`asOf`): a selection
 * voided after its check closed is `voided` with a later `voidDate`; a refund carries `refundDetails`
 * (its `refundTransaction` shared with the payment's `refund`) once made; a check reopened and closed
 * again shows its new `closedDate` and the selection added meanwhile, and until then its first state.
 * Every change after closing moves the order's `modifiedDate`, which `ordersBulk` filters on.
 */

/** Stable GUIDs of everything the simulator renders, per seed. */
export class ToastIds {
  constructor(private readonly seed: number) {}
  restaurantMenu = (name: string) => stableUuid(this.seed, `toast:menu:${name}`)
  group = (name: string) => stableUuid(this.seed, `toast:group:${name}`)
  modifierGroup = (name: string) => stableUuid(this.seed, `toast:modifier-group:${name}`)
  salesCategory = (name: string) => stableUuid(this.seed, `toast:sales-category:${name}`)
  item = (key: string) => stableUuid(this.seed, `toast:item:${key}`)
  employee = (key: string) => stableUuid(this.seed, `toast:employee:${key}`)
  job = (role: string) => stableUuid(this.seed, `toast:job:${role}`)
  diningOption = (name: string) => stableUuid(this.seed, `toast:dining-option:${name}`)
  order = (checkId: string) => stableUuid(this.seed, `toast:order:${checkId}`)
  check = (checkId: string) => stableUuid(this.seed, `toast:check:${checkId}`)
  payment = (checkId: string, n: number) => stableUuid(this.seed, `toast:payment:${checkId}:${n}`)
  selection = (lineId: string) => stableUuid(this.seed, `toast:selection:${lineId}`)
  refundTransaction = (lineId: string) => stableUuid(this.seed, `toast:refund:${lineId}`)
}

/** Money as Toast sends it: a JSON number in dollars. */
export function dollars(value: string | number, quantity = 1): number {
  return decimal(value).times(quantity).round(2).toNumber()
}

/** yyyyMMdd, as Toast writes business dates (the simulated bar's business day is the UTC date). */
function businessDate(date: Date): number {
  return Number(date.toISOString().slice(0, 10).replaceAll('-', ''))
}

const latest = (dates: Date[]): Date => new Date(Math.max(...dates.map((date) => date.getTime())))

const reference = (guid: string, entityType: string): ToastReference => ({ guid, entityType })

/** What has happened to a line by `asOf`. */
interface LineState {
  line: SimLine
  /** Rung (with its modifiers) at this time. */
  createdAt: Date
  voidedAt: Date | null
  refundedAt: Date | null
}

/** The check as seen at `asOf`: its latest close, and the lines rung by then. */
function checkState(check: SimCheck, asOf: Date): { closedAt: Date; reclosed: boolean; lines: LineState[] } {
  const reclosed = check.reclosedAt !== null && check.reclosedAt <= asOf
  const lines = check.lines
    .filter((line) => !line.addedOnReopen || reclosed)
    .map((line) => ({
      line,
      createdAt: line.addedOnReopen && check.reclosedAt ? check.reclosedAt : check.openedAt,
      // A line voided before the check closed was voided right after being rung.
      voidedAt: line.voided ? check.openedAt : line.voidedAfterCloseAt && line.voidedAfterCloseAt <= asOf ? line.voidedAfterCloseAt : null,
      refundedAt: line.refundedAt && line.refundedAt <= asOf ? line.refundedAt : null,
    }))
  return { closedAt: reclosed && check.reclosedAt ? check.reclosedAt : check.closedAt, reclosed, lines }
}

/** When the order was last changed, as of `asOf`: its latest close, or a later void or refund. */
export function orderModifiedAt(check: SimCheck, asOf: Date): Date {
  const state = checkState(check, asOf)
  return latest([state.closedAt, ...state.lines.flatMap((line) => [line.voidedAt, line.refundedAt].filter((date) => date !== null))])
}

export class ToastOrderRenderer {
  constructor(private readonly ids: ToastIds) {}

  render(check: SimCheck, asOf: Date): ToastOrder {
    const state = checkState(check, asOf)
    const modifiedDate = toastDate(orderModifiedAt(check, asOf))
    const selections = state.lines.map((line) => this.selection(line))
    const amount = dollars(sum(selections.map((selection) => decimal(selection.price))).toString())
    const server = reference(this.ids.employee(check.staffKey), 'RestaurantUser')
    const closedDate = toastDate(state.closedAt)
    const toastCheck: ToastCheck = {
      ...reference(this.ids.check(check.checkId), 'Check'),
      openedDate: toastDate(check.openedAt),
      closedDate,
      modifiedDate,
      paidDate: closedDate,
      deleted: false,
      voided: false,
      paymentStatus: 'CLOSED',
      amount,
      totalAmount: amount,
      selections,
      payments: this.payments(check, state.lines, server),
    }
    return {
      ...reference(this.ids.order(check.checkId), 'Order'),
      // ⚠ The simulated bar is a bar: every order is dine-in at the bar.
      diningOption: reference(this.ids.diningOption('Bar'), 'DiningOption'),
      businessDate: businessDate(check.openedAt),
      openedDate: toastDate(check.openedAt),
      closedDate,
      paidDate: closedDate,
      modifiedDate,
      voided: false,
      deleted: false,
      server,
      checks: [toastCheck],
    }
  }

  private selection(state: LineState): ToastSelection {
    const { line } = state
    const modifiers = line.modifiers.map((modifier) => this.itemSelection(modifier, state, []))
    return this.itemSelection(line, state, modifiers)
  }

  /** A selection of `rung` (a line or one of its modifiers), voided and refunded with its line. */
  private itemSelection(rung: SimLine | SimModifier, state: LineState, modifiers: ToastSelection[]): ToastSelection {
    const entry = menuEntry(rung.itemKey)
    const ownPrice = dollars(rung.unitPrice, rung.quantity)
    // Toast's selection price includes the prices of its modifiers.
    const grossPrice = dollars(sum([decimal(ownPrice), ...modifiers.map((modifier) => decimal(modifier.preDiscountPrice))]).toString())
    const changedAt = state.voidedAt ?? state.refundedAt
    return {
      ...reference(this.ids.selection(rung.lineId), 'MenuItemSelection'),
      item: reference(this.ids.item(entry.key), 'MenuItem'),
      salesCategory: reference(this.ids.salesCategory(entry.category), 'SalesCategory'),
      displayName: entry.name,
      quantity: rung.quantity,
      unitOfMeasure: 'NONE',
      price: state.voidedAt ? 0 : grossPrice,
      preDiscountPrice: grossPrice,
      receiptLinePrice: dollars(rung.unitPrice),
      tax: 0,
      voided: state.voidedAt !== null,
      ...(state.voidedAt && { voidDate: toastDate(state.voidedAt), voidBusinessDate: businessDate(state.voidedAt) }),
      ...(state.refundedAt && {
        refundDetails: { refundAmount: grossPrice, taxRefundAmount: 0, refundTransaction: reference(this.ids.refundTransaction(state.line.lineId), 'RefundTransaction') },
      }),
      createdDate: toastDate(state.createdAt),
      modifiedDate: toastDate(changedAt && changedAt > state.createdAt ? changedAt : state.createdAt),
      modifiers,
    }
  }

  /**
   * The first close's payment (with the tip), and a second one for what was added on reopening. A
   * payment holds one `refund`: with several refunds on a check, it shows the latest, for their sum.
   */
  private payments(check: SimCheck, lines: LineState[], server: ToastReference): ToastPayment[] {
    const lineAmount = (state: LineState) => sum([state.line, ...state.line.modifiers].map((rung) => decimal(rung.unitPrice).times(rung.quantity)))
    const sold = lines.filter((state) => !state.line.voided)
    const payment = (n: number, paidAt: Date, paid: LineState[], tip: string): ToastPayment => ({
      ...reference(this.ids.payment(check.checkId, n), 'OrderPayment'),
      paidDate: toastDate(paidAt),
      paidBusinessDate: businessDate(paidAt),
      type: 'CREDIT',
      amount: dollars(sum(paid.map(lineAmount)).toString()),
      tipAmount: dollars(tip),
      server,
      orderGuid: this.ids.order(check.checkId),
      checkGuid: this.ids.check(check.checkId),
      ...this.refundOf(paid, lineAmount),
    })
    const first = payment(
      0,
      check.closedAt,
      sold.filter((state) => !state.line.addedOnReopen),
      check.tip,
    )
    const added = sold.filter((state) => state.line.addedOnReopen)
    return added.length > 0 && check.reclosedAt ? [first, payment(1, check.reclosedAt, added, '0')] : [first]
  }

  private refundOf(paid: LineState[], lineAmount: (state: LineState) => Big): Pick<ToastPayment, 'refundStatus' | 'refund'> {
    const refunded = paid.filter((state) => state.refundedAt !== null).sort((a, b) => a.refundedAt!.getTime() - b.refundedAt!.getTime())
    const last = refunded.at(-1)
    if (!last?.refundedAt) return { refundStatus: 'NONE' }
    const refund: ToastRefund = {
      refundAmount: dollars(sum(refunded.map(lineAmount)).toString()),
      tipRefundAmount: 0,
      refundDate: toastDate(last.refundedAt),
      refundBusinessDate: businessDate(last.refundedAt),
      refundTransaction: reference(this.ids.refundTransaction(last.line.lineId), 'RefundTransaction'),
    }
    return { refundStatus: refunded.length === paid.length ? 'FULL' : 'PARTIAL', refund }
  }
}
