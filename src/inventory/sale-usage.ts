import type { RawBuilder } from 'kysely'
import type { Tenant, Trx } from '../platform/db/database.js'
import { type Decimal, decimal, QUANTITY_STORED_DECIMALS } from '../platform/decimal.js'
import { newId } from '../platform/ids.js'
import { type ItemRow, insertSaleUsage, lockItemRows, removeSaleUsageOfLines, type UsageDay, usageDaysOfBatch } from './inventory.repository.js'
import { type LedgerStep, writeMovements } from './stock-ledger.js'

/**
 * Sales take stock by their sale time. Every path that turns sales into usage (a sync run, an import, a
 * mapping added later, a recipe) comes through applySaleUsage, so the rule lives here once: a line sold
 * after the item's anchor (its latest count or absolute quantity) takes stock; a line sold at or before
 * it is history, kept for analytics, never taken from current stock.
 */

/** Sale lines to apply, as a SELECT of the caller's own data. */
export interface SaleUsageSource {
  /** The items the rows may name: locked first, in id order. */
  itemIds: string[]
  /** A SELECT of `(sale_line bigint, item_id text, sold_at timestamptz, units numeric, recipe_id text)`, units in the item's unit. */
  rows: RawBuilder<unknown>
}

export interface SaleUsageResult {
  /** Items this application took from zero or more to below zero. */
  itemsBelowZero: number
}

type Movement = { actor: string; referenceId: string | null }

/**
 * What a batch of usage does to stock: one net ledger step per item and business day, dated at the day's
 * last sale that stands after the item's anchor (days whose sales are all history take nothing).
 */
class DailyStockSteps {
  private readonly byItem = new Map<string, Map<number, LedgerStep>>()

  /** Adds days of applied usage: taken from stock (sign -1) or given back (sign 1). */
  add(days: UsageDay[], sign: 1 | -1): void {
    for (const day of days) {
      if (day.last_applied_at === null) continue
      const steps = this.byItem.get(day.item_id) ?? new Map<number, LedgerStep>()
      const at = day.last_applied_at.getTime()
      steps.set(at, { delta: decimal(day.applied_units).times(sign).plus(steps.get(at)?.delta ?? 0), occurredAt: day.last_applied_at })
      this.byItem.set(day.item_id, steps)
    }
  }

  /** Writes the steps of the locked items, in id order; answers how many items went from zero or more to below zero. */
  async write(trx: Trx, tenant: Tenant, items: Map<string, ItemRow>, movement: Movement): Promise<number> {
    let belowZero = 0
    for (const itemId of [...this.byItem.keys()].sort()) {
      const item = items.get(itemId)
      const steps = [...(this.byItem.get(itemId) as Map<number, LedgerStep>).values()].filter((step) => !step.delta.round(QUANTITY_STORED_DECIMALS).eq(0))
      // An item deleted since its sales were applied is left alone.
      if (!item || steps.length === 0) continue
      const after = await writeMovements(trx, tenant, item, steps, { kind: 'sale', ...movement })
      if (crossedBelowZero(decimal(item.quantity), decimal(after.quantity))) belowZero++
    }
    return belowZero
  }
}

/**
 * Records each line's usage per item and takes the lines sold after each item's anchor from stock: one
 * ledger row (kind sale) per item and business day of its location, dated at that day's latest sale.
 * A (line, item) pair recorded before is skipped, so replays never take stock twice. Stock may go below
 * zero. The caller holds the transaction.
 */
export async function applySaleUsage(trx: Trx, tenant: Tenant, source: SaleUsageSource, movement: Movement): Promise<SaleUsageResult> {
  const items = await lockItemRows(trx, tenant, source.itemIds)
  if (items.size === 0) return { itemsBelowZero: 0 }
  const batchId = newId('use')
  await insertSaleUsage(trx, tenant, batchId, source.rows)
  const steps = new DailyStockSteps()
  steps.add(await usageDaysOfBatch(trx, batchId), -1)
  return { itemsBelowZero: await steps.write(trx, tenant, items, movement) }
}

/**
 * Restates the usage of stored sale lines at a new conversion (a changed mapping): their old usage goes,
 * their new usage is recorded by the same sale-time rule, and for the lines sold after each item's anchor
 * (those that took current stock) the difference is taken from or given back to stock, one ledger row
 * per item and business day. Analytics then reads the new figures. The caller holds the transaction.
 */
export async function restateSaleUsage(trx: Trx, tenant: Tenant, source: SaleUsageSource, movement: Movement): Promise<void> {
  const items = await lockItemRows(trx, tenant, source.itemIds)
  const steps = new DailyStockSteps()
  steps.add(await removeSaleUsageOfLines(trx, tenant, source.rows), 1)
  const batchId = newId('use')
  await insertSaleUsage(trx, tenant, batchId, source.rows)
  steps.add(await usageDaysOfBatch(trx, batchId), -1)
  await steps.write(trx, tenant, items, movement)
}

function crossedBelowZero(before: Decimal, after: Decimal): boolean {
  return before.gte(0) && after.lt(0)
}
