import type Big from 'big.js'
import type { PosSaleLine, SalesWindow } from '../adapter.js'
import { closedAtOf, toPosCorrections, toPosSaleLines, type ItemIdOf } from './lightspeed.mapper.js'
import type { LightspeedSale, LightspeedSaleType } from './lightspeed.wire.js'

/**
 * One `listSales` call: turns the receipts of a window into barstock lines. Receipts come in no
 * particular order (v1 promises none), and a receipt that takes lines back names the account it
 * corrects (`source.previousAccountId`), which may come on a later page or, for a refund made days
 * after the sale, in an earlier window. So sale receipts are remembered by account, a correction
 * whose account has not been seen waits for the end of the window, and what is still missing then is
 * looked for before the window (`findEarlier`).
 */

/** What each documented receipt type means to barstock; a type in neither list is not consumption. */
export interface LightspeedReceiptRoles {
  /** Receipts whose lines were sold. */
  sales: readonly LightspeedSaleType[]
  /** Receipts taking back lines of the account their `source` names. */
  corrections: readonly LightspeedSaleType[]
}

/** The receipts closed before the window, newest first, read for as long as they are iterated. */
export type EarlierReceipts = () => AsyncIterable<LightspeedSale[]>

export class LightspeedSalesListing {
  private readonly sales = new Map<string, LightspeedSale>()
  private readonly waiting: LightspeedSale[] = []
  private readonly takenBack = new Map<string, Big>()

  constructor(
    private readonly window: SalesWindow,
    private readonly roles: LightspeedReceiptRoles,
    private readonly itemIdOf: ItemIdOf,
  ) {}

  /** The lines of one page of the window's receipts that can be told now. */
  page(receipts: LightspeedSale[]): PosSaleLine[] {
    const inWindow = receipts.filter((receipt) => this.inWindow(receipt))
    for (const receipt of inWindow) this.remember(receipt)
    const lines = inWindow.filter((receipt) => this.isSale(receipt)).flatMap((receipt) => toPosSaleLines(receipt, this.itemIdOf))
    for (const receipt of inWindow.filter((candidate) => this.roles.corrections.includes(candidate.type))) {
      const corrections = this.correctionsOf(receipt)
      if (corrections) lines.push(...corrections)
      else this.waiting.push(receipt)
    }
    return lines
  }

  /** The corrections still waiting at the end of the window, their accounts looked for in `earlier` receipts. */
  async finish(earlier: EarlierReceipts): Promise<PosSaleLine[]> {
    const missing = new Set(this.waiting.map(correctedAccountOf).filter((account) => account !== undefined && !this.sales.has(account)) as string[])
    if (missing.size > 0) {
      for await (const receipts of earlier()) {
        for (const receipt of receipts) {
          this.remember(receipt)
          missing.delete(receipt.accountFiscId)
        }
        if (missing.size === 0) break
      }
    }
    // A correction whose account was never found cannot name the line it takes back: it is left out.
    return this.waiting.flatMap((receipt) => this.correctionsOf(receipt) ?? [])
  }

  private inWindow(receipt: LightspeedSale): boolean {
    const closedAt = closedAtOf(receipt)
    return closedAt >= this.window.start && closedAt < this.window.end
  }

  /** A cancelled receipt was not consumption: its lines are never told, and nothing corrects them. */
  private isSale(receipt: LightspeedSale): boolean {
    return this.roles.sales.includes(receipt.type) && !receipt.cancelled
  }

  private remember(receipt: LightspeedSale): void {
    if (this.roles.sales.includes(receipt.type)) this.sales.set(receipt.accountFiscId, receipt)
  }

  /** The receipt's corrections, [] when it corrects nothing, undefined while its account is unknown. */
  private correctionsOf(receipt: LightspeedSale): PosSaleLine[] | undefined {
    const account = correctedAccountOf(receipt)
    if (account === undefined || account === receipt.accountFiscId) return []
    const original = this.sales.get(account)
    if (original?.cancelled) return []
    return original && toPosCorrections(receipt, original, this.itemIdOf, this.takenBack)
  }
}

/** The account a correction takes lines back from: its previous account, else its initial one. */
function correctedAccountOf(receipt: LightspeedSale): string | undefined {
  return receipt.source?.previousAccountId || receipt.source?.initialAccountId || undefined
}
