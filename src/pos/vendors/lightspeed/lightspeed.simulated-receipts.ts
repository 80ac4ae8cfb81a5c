import { dollarsToCents, menuEntry, STAFF, type SimCheck, type SimLine } from '../../simulation/bar-data.js'
import type { LightspeedPayment, LightspeedSale, LightspeedSalesLine } from './lightspeed.wire.js'

/**
 * How the simulated bar's checks read as K-Series receipts, as of a moment. K-Series never edits a
 * closed receipt: each change makes a receipt of its own, linked by `source` to the accounts it
 * derives from (Lightspeed's reference: "the accountFiscId of the initial / previous transaction
 * associated with the current account, for example in the case of a refund").
 * - First close: a SALE receipt. A line voided before close is on it with its `voidReason`; a modifier
 *   is a line of its own item whose `parentLineId` is its parent line's id.
 * - Refund: a REFUND receipt when it is made, its lines the refunded line and modifiers with negative
 *   quantity and amount (⚠ the sign is assumed), `source.previousAccountId` = the account refunded.
 * - A check reopened and closed again, or a line voided after close (done on the POS by recalling
 *   the receipt): a RECALL receipt taking back the recalled account's lines (⚠ assumed: negative
 *   lines, like a refund) and a new SALE receipt of the account as closed again, both at the moment
 *   it closed again; the recall's `source.previousAccountId` is the recalled account, the new sale's
 *   is the recall.
 * - A check cancelled in the back office (only those `backOfficeCancellations` names): a CANCEL receipt
 *   taking back the account's sold lines and tip, made when the cancellation is filed but dated, as
 *   Lightspeed documents for back-office transactions, "to the original transaction date": its
 *   `timeofCloseAndPaid` is the account's close (⚠ the lines' sign, as for a refund).
 */

/** Payment method of every simulated check (the bar takes cards). */
const CARD = { code: 'CARD', description: 'Card' }
/** The bar's voids, as the register records them (one of the reasons Lightspeed documents). */
const VOID_REASON = 'User Mistake'

export interface ReceiptIds {
  /** A receipt's fiscal number (its `A…`, `R…` and `S…` ids) for a stable key. */
  number(key: string): number
  /** A staff member's id. */
  staff(key: string): number
}

/** The simulated register: fiscal ids read `A75125.n`, `R75125.n`, `S75125.n` as Lightspeed's do. */
const DEVICE_ID = 75125

interface Fiscal {
  number: number
  nextLineId(): string
}

export interface ReceiptOptions {
  /** With `include=staff`: each line names its staff member. */
  withStaffNames: boolean
  /** With `include=payments`. */
  withPayments: boolean
  /** Menu keys whose item the location keeps without a SKU: their lines carry none either. */
  itemsWithoutSku: ReadonlySet<string>
  /** Checks cancelled in the back office: check id → when the cancellation was filed. */
  backOfficeCancellations?: ReadonlyMap<string, Date>
}

/** Integer cents as Lightspeed's decimal string ("-7.50"); the simulator counts in cents, as exact integers. */
function money(cents: number): string {
  return (cents / 100).toFixed(2)
}

/** The cents of a line rendered by `salesLine`. */
function centsOf(lines: readonly LightspeedSalesLine[]): number {
  return lines.reduce((total, line) => total + Math.round(Number(line.totalNetAmountWithTax) * 100), 0)
}

/** A change to a closed check, as the bar records it. */
type CheckEvent = { at: Date; kind: 'refund'; line: SimLine } | { at: Date; kind: 'recall'; voids?: SimLine; reopens?: boolean } | { at: Date; kind: 'cancel' }

function eventsOf(check: SimCheck, asOf: Date, cancelledAt: Date | undefined): CheckEvent[] {
  const events: CheckEvent[] = []
  if (cancelledAt && cancelledAt <= asOf) events.push({ at: cancelledAt, kind: 'cancel' })
  for (const line of check.lines) {
    if (line.refundedAt && line.refundedAt <= asOf) events.push({ at: line.refundedAt, kind: 'refund', line })
    if (line.voidedAfterCloseAt && line.voidedAfterCloseAt <= asOf) events.push({ at: line.voidedAfterCloseAt, kind: 'recall', voids: line })
  }
  if (check.reclosedAt && check.reclosedAt <= asOf) events.push({ at: check.reclosedAt, kind: 'recall', reopens: true })
  return events.sort((a, b) => a.at.getTime() - b.at.getTime())
}

/** Renders one check's receipts; a new one per check. */
class CheckReceipts {
  private readonly staffId: number
  private readonly staffName: string
  private readonly voided = new Set<SimLine>()
  private readonly refunded = new Set<SimLine>()
  private reopened = false
  private version = 0

  constructor(
    private readonly check: SimCheck,
    private readonly ids: ReceiptIds,
    private readonly options: ReceiptOptions,
  ) {
    const staff = STAFF.find((member) => member.key === check.staffKey)!
    this.staffId = ids.staff(staff.key)
    this.staffName = `${staff.firstName} ${staff.lastName}`
    for (const line of check.lines) if (line.voided) this.voided.add(line)
  }

  /** Every receipt of the check made by `asOf`. */
  render(asOf: Date): LightspeedSale[] {
    const first = this.sale(this.check.closedAt, undefined)
    const receipts = [first]
    let current = first
    for (const event of eventsOf(this.check, asOf, this.options.backOfficeCancellations?.get(this.check.checkId))) {
      if (event.kind === 'cancel') {
        // Back-dated: filed at event.at, dated at the account's close.
        receipts.push(this.recall(current, this.check.closedAt, 'CANCEL'))
        break
      }
      if (event.kind === 'refund') {
        receipts.push(this.refund(event.line, current, event.at))
        this.refunded.add(event.line)
        continue
      }
      const recall = this.recall(current, event.at)
      if (event.voids) this.voided.add(event.voids)
      if (event.reopens) this.reopened = true
      this.version++
      current = this.sale(event.at, { initialAccountId: first.accountFiscId, previousAccountId: recall.accountFiscId })
      receipts.push(recall, current)
    }
    return receipts
  }

  /** The lines on the account as it stands: not refunded yet, and a line added on reopening once reopened. */
  private onAccount(line: SimLine): boolean {
    return !this.refunded.has(line) && (!line.addedOnReopen || this.reopened)
  }

  private sale(closedAt: Date, source: LightspeedSale['source']): LightspeedSale {
    const fiscal = this.fiscal(`${this.check.checkId}:v${this.version}`)
    const salesLines = this.check.lines.filter((line) => this.onAccount(line)).flatMap((line) => this.linesOf(line, fiscal, 1, this.voided.has(line)))
    const paid = centsOf(salesLines.filter((line) => !line.voidReason))
    return this.receipt(fiscal, 'SALE', closedAt, salesLines, { cents: paid, tipCents: dollarsToCents(this.check.tip) }, source)
  }

  /** A receipt taking back a line of `account` (a refund). */
  private refund(line: SimLine, account: LightspeedSale, at: Date): LightspeedSale {
    const fiscal = this.fiscal(`${this.check.checkId}:refund:${line.lineId}`)
    const salesLines = this.linesOf(line, fiscal, -1, false)
    return this.receipt(fiscal, 'REFUND', at, salesLines, { cents: centsOf(salesLines), tipCents: 0 }, this.sourceFor(account))
  }

  /** A receipt taking back every sold line of `account`, and its payment (a recall, or a cancellation). */
  private recall(account: LightspeedSale, at: Date, type: 'RECALL' | 'CANCEL' = 'RECALL'): LightspeedSale {
    const fiscal = this.fiscal(`${this.check.checkId}:${type.toLowerCase()}${this.version}`)
    const sold = this.check.lines.filter((line) => this.onAccount(line) && !this.voided.has(line))
    const salesLines = sold.flatMap((line) => this.linesOf(line, fiscal, -1, false))
    return this.receipt(fiscal, type, at, salesLines, { cents: centsOf(salesLines), tipCents: -dollarsToCents(this.check.tip) }, this.sourceFor(account))
  }

  private sourceFor(account: LightspeedSale): LightspeedSale['source'] {
    return { initialAccountId: account.source?.initialAccountId ?? account.accountFiscId, previousAccountId: account.accountFiscId }
  }

  /** A receipt's fiscal number (one hash per receipt) and its lines' ids, numbered in order as the register does. */
  private fiscal(key: string): Fiscal {
    const number = this.ids.number(key)
    let lines = 0
    return { number, nextLineId: () => `S${DEVICE_ID}.${number}${String(lines++).padStart(3, '0')}` }
  }

  private receipt(
    fiscal: Fiscal,
    type: LightspeedSale['type'],
    at: Date,
    salesLines: LightspeedSalesLine[],
    payment: { cents: number; tipCents: number },
    source: LightspeedSale['source'],
  ): LightspeedSale {
    const accountFiscId = `A${DEVICE_ID}.${fiscal.number}`
    const sale: LightspeedSale = {
      accountFiscId,
      receiptId: `R${DEVICE_ID}.${fiscal.number}`,
      // "This will match the accountFiscId of the sale if there is no associated account."
      source: source ?? { initialAccountId: accountFiscId },
      type,
      cancelled: false,
      timeofCloseAndPaid: at.toISOString(),
      salesLines,
    }
    if (this.options.withPayments) {
      const paymentLine: LightspeedPayment = { ...CARD, netAmountWithTax: money(payment.cents + payment.tipCents), tip: money(payment.tipCents) }
      sale.payments = [paymentLine]
    }
    return sale
  }

  /** A line and its modifiers, `sign` -1 for lines taken back. */
  private linesOf(line: SimLine, fiscal: Fiscal, sign: 1 | -1, voided: boolean): LightspeedSalesLine[] {
    const parent = this.salesLine(fiscal, line.itemKey, sign * line.quantity, line.unitPrice, voided)
    const modifiers = line.modifiers.map((modifier) => ({
      ...this.salesLine(fiscal, modifier.itemKey, sign * modifier.quantity, modifier.unitPrice, voided),
      parentLineId: parent.id,
    }))
    return [parent, ...modifiers]
  }

  private salesLine(fiscal: Fiscal, itemKey: string, quantity: number, unitPrice: string, voided: boolean): LightspeedSalesLine {
    const entry = menuEntry(itemKey)
    const salesLine: LightspeedSalesLine = {
      id: fiscal.nextLineId(),
      name: entry.name,
      quantity: String(quantity),
      totalNetAmountWithTax: money(dollarsToCents(unitPrice) * quantity),
      staffId: this.staffId,
    }
    if (!this.options.itemsWithoutSku.has(itemKey)) salesLine.sku = entry.sku
    if (this.options.withStaffNames) salesLine.staffName = this.staffName
    if (voided) salesLine.voidReason = VOID_REASON
    return salesLine
  }
}

/** Every receipt `check` has produced by `asOf`, oldest first. */
export function receiptsOfCheck(check: SimCheck, asOf: Date, ids: ReceiptIds, options: ReceiptOptions): LightspeedSale[] {
  return new CheckReceipts(check, ids, options).render(asOf)
}
