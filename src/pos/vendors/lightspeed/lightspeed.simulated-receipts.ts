import type Big from 'big.js'
import { decimal, MONEY_DECIMALS, sum } from '../../../platform/decimal.js'
import { menuEntry, STAFF, type SimCheck, type SimLine, type StaffEntry } from '../../simulation/bar-data.js'
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
 */

/** Payment method of every simulated check (the bar takes cards). */
const CARD = { code: 'CARD', description: 'Card' }
/** The bar's voids, as the register records them (one of the reasons Lightspeed documents). */
const VOID_REASON = 'User Mistake'

export interface ReceiptIds {
  /** `A…`, `R…` and `S…` ids of the simulated device for a stable key. */
  account(key: string): string
  receipt(key: string): string
  line(key: string): string
  staff(key: string): number
}

export interface ReceiptOptions {
  /** With `include=staff`: each line names its staff member. */
  withStaffNames: boolean
  /** With `include=payments`. */
  withPayments: boolean
  /** Menu keys whose item the location keeps without a SKU: their lines carry none either. */
  itemsWithoutSku: ReadonlySet<string>
}

function money(value: Big): string {
  return value.toFixed(MONEY_DECIMALS)
}

/** A change to a closed check, as the bar records it. */
type CheckEvent = { at: Date; kind: 'refund'; line: SimLine } | { at: Date; kind: 'recall'; voids?: SimLine; reopens?: boolean }

function eventsOf(check: SimCheck, asOf: Date): CheckEvent[] {
  const events: CheckEvent[] = []
  for (const line of check.lines) {
    if (line.refundedAt && line.refundedAt <= asOf) events.push({ at: line.refundedAt, kind: 'refund', line })
    if (line.voidedAfterCloseAt && line.voidedAfterCloseAt <= asOf) events.push({ at: line.voidedAfterCloseAt, kind: 'recall', voids: line })
  }
  if (check.reclosedAt && check.reclosedAt <= asOf) events.push({ at: check.reclosedAt, kind: 'recall', reopens: true })
  return events.sort((a, b) => a.at.getTime() - b.at.getTime())
}

/** Renders one check's receipts; a new one per check. */
class CheckReceipts {
  private readonly staff: StaffEntry
  private readonly voided = new Set<SimLine>()
  private readonly refunded = new Set<SimLine>()
  private reopened = false
  private version = 0

  constructor(
    private readonly check: SimCheck,
    private readonly ids: ReceiptIds,
    private readonly options: ReceiptOptions,
  ) {
    this.staff = STAFF.find((member) => member.key === check.staffKey)!
    for (const line of check.lines) if (line.voided) this.voided.add(line)
  }

  /** Every receipt of the check made by `asOf`. */
  render(asOf: Date): LightspeedSale[] {
    const first = this.sale(this.check.closedAt, undefined)
    const receipts = [first]
    let current = first
    for (const event of eventsOf(this.check, asOf)) {
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

  /** The account as it stands: its lines not refunded yet (a line added on reopening once reopened). */
  private sale(closedAt: Date, source: LightspeedSale['source']): LightspeedSale {
    const shown = this.check.lines.filter((line) => !this.refunded.has(line) && (!line.addedOnReopen || this.reopened))
    const salesLines = shown.flatMap((line) => this.linesOf(line, `v${this.version}`, 1, this.voided.has(line)))
    const key = `${this.check.checkId}:v${this.version}`
    const paid = sum(salesLines.filter((line) => !line.voidReason).map((line) => decimal(line.totalNetAmountWithTax)))
    return this.receipt(key, 'SALE', closedAt, salesLines, { amount: paid, tip: decimal(this.check.tip) }, source)
  }

  /** A receipt taking back a line of `account` (a refund). */
  private refund(line: SimLine, account: LightspeedSale, at: Date): LightspeedSale {
    const key = `${this.check.checkId}:refund:${line.lineId}`
    const salesLines = this.linesOf(line, 'refund', -1, false)
    const amount = sum(salesLines.map((salesLine) => decimal(salesLine.totalNetAmountWithTax)))
    return this.receipt(key, 'REFUND', at, salesLines, { amount, tip: decimal(0) }, this.sourceFor(account))
  }

  /** A receipt taking back every sold line of `account`, and its payment. */
  private recall(account: LightspeedSale, at: Date): LightspeedSale {
    const suffix = `recall${this.version}`
    const key = `${this.check.checkId}:${suffix}`
    const sold = this.check.lines.filter((line) => !this.refunded.has(line) && !this.voided.has(line) && (!line.addedOnReopen || this.reopened))
    const salesLines = sold.flatMap((line) => this.linesOf(line, suffix, -1, false))
    const amount = sum(salesLines.map((line) => decimal(line.totalNetAmountWithTax)))
    return this.receipt(key, 'RECALL', at, salesLines, { amount, tip: decimal(this.check.tip).neg() }, this.sourceFor(account))
  }

  private sourceFor(account: LightspeedSale): LightspeedSale['source'] {
    return { initialAccountId: account.source?.initialAccountId ?? account.accountFiscId, previousAccountId: account.accountFiscId }
  }

  private receipt(
    key: string,
    type: LightspeedSale['type'],
    at: Date,
    salesLines: LightspeedSalesLine[],
    payment: { amount: Big; tip: Big },
    source: LightspeedSale['source'],
  ): LightspeedSale {
    const accountFiscId = this.ids.account(key)
    const sale: LightspeedSale = {
      accountFiscId,
      receiptId: this.ids.receipt(key),
      // "This will match the accountFiscId of the sale if there is no associated account."
      source: source ?? { initialAccountId: accountFiscId },
      type,
      cancelled: false,
      timeofCloseAndPaid: at.toISOString(),
      salesLines,
    }
    if (this.options.withPayments) {
      const paymentLine: LightspeedPayment = { ...CARD, netAmountWithTax: money(payment.amount.plus(payment.tip)), tip: money(payment.tip) }
      sale.payments = [paymentLine]
    }
    return sale
  }

  /** A line and its modifiers, `sign` -1 for lines taken back; ids unique per rendering (`tag`). */
  private linesOf(line: SimLine, tag: string, sign: 1 | -1, voided: boolean): LightspeedSalesLine[] {
    const parent = this.salesLine(`${line.lineId}:${tag}`, line.itemKey, sign * line.quantity, line.unitPrice, voided)
    const modifiers = line.modifiers.map((modifier) => ({
      ...this.salesLine(`${modifier.lineId}:${tag}`, modifier.itemKey, sign * modifier.quantity, modifier.unitPrice, voided),
      parentLineId: parent.id,
    }))
    return [parent, ...modifiers]
  }

  private salesLine(key: string, itemKey: string, quantity: number, unitPrice: string, voided: boolean): LightspeedSalesLine {
    const entry = menuEntry(itemKey)
    const salesLine: LightspeedSalesLine = {
      id: this.ids.line(key),
      name: entry.name,
      quantity: String(quantity),
      totalNetAmountWithTax: money(decimal(unitPrice).times(quantity)),
      staffId: this.ids.staff(this.staff.key),
    }
    if (!this.options.itemsWithoutSku.has(itemKey)) salesLine.sku = entry.sku
    if (this.options.withStaffNames) salesLine.staffName = `${this.staff.firstName} ${this.staff.lastName}`
    if (voided) salesLine.voidReason = VOID_REASON
    return salesLine
  }
}

/** Every receipt `check` has produced by `asOf`, oldest first. */
export function receiptsOfCheck(check: SimCheck, asOf: Date, ids: ReceiptIds, options: ReceiptOptions): LightspeedSale[] {
  return new CheckReceipts(check, ids, options).render(asOf)
}
