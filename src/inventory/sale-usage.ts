import type { RawBuilder } from 'kysely'
import type { Tenant, Trx } from '../platform/db/database.js'
import { type Decimal, decimal } from '../platform/decimal.js'
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
  /** Live items that took usage (applied or history). */
  itemsUsed: Set<string>
  /** Items this application took from zero or more to below zero. */
  itemsBelowZero: number
}

/**
 * Records each line's usage per item and takes the lines sold after each item's anchor from stock: one
 * ledger row (kind sale) per item and business day of its location, dated at that day's latest sale.
 * A (line, item) pair recorded before is skipped, so replays never take stock twice. Stock may go below
 * zero. The caller holds the transaction.
 */
export async function applySaleUsage(
  trx: Trx,
  tenant: Tenant,
  source: SaleUsageSource,
  movement: { actor: string; referenceId: string | null },
): Promise<SaleUsageResult> {
  const items = await lockItemRows(trx, tenant, source.itemIds)
  const result: SaleUsageResult = { itemsUsed: new Set(), itemsBelowZero: 0 }
  if (items.size === 0) return result
  const batchId = newId('use')
  await insertSaleUsage(trx, tenant, batchId, source.rows)
  const stepsByItem = new Map<string, LedgerStep[]>()
  for (const day of await usageDaysOfBatch(trx, batchId)) {
    result.itemsUsed.add(day.item_id)
    if (day.last_applied_at === null) continue
    const steps = stepsByItem.get(day.item_id) ?? []
    steps.push({ delta: decimal(day.applied_units).times(-1), occurredAt: day.last_applied_at })
    stepsByItem.set(day.item_id, steps)
  }
  for (const itemId of [...stepsByItem.keys()].sort()) {
    const item = items.get(itemId) as ItemRow
    const steps = stepsByItem.get(itemId) as LedgerStep[]
    const after = await writeMovements(trx, tenant, item, steps, { kind: 'sale', ...movement })
    if (crossedBelowZero(decimal(item.quantity), decimal(after.quantity))) result.itemsBelowZero++
  }
  return result
}

/**
 * Restates the usage of stored sale lines at a new conversion (a changed mapping): their old usage goes,
 * their new usage is recorded by the same sale-time rule, and for the lines sold after each item's anchor
 * (those that took current stock) the difference is taken from or given back to stock, one ledger row
 * per item and business day. Analytics then reads the new figures. The caller holds the transaction.
 */
export async function restateSaleUsage(
  trx: Trx,
  tenant: Tenant,
  source: SaleUsageSource,
  movement: { actor: string; referenceId: string | null },
): Promise<void> {
  const items = await lockItemRows(trx, tenant, source.itemIds)
  const removed = await removeSaleUsageOfLines(trx, tenant, source.rows)
  const batchId = newId('use')
  await insertSaleUsage(trx, tenant, batchId, source.rows)
  // One net step per item and business day (the same lines leave and come back, so their day's last sale is the same).
  // A mapping keeps its item when it changes: the removed usage is of the locked items, or of deleted ones, left alone.
  const stepsByItem = new Map<string, Map<number, LedgerStep>>()
  const addStep = (day: UsageDay, sign: 1 | -1) => {
    if (day.last_applied_at === null || !items.has(day.item_id)) return
    const steps = stepsByItem.get(day.item_id) ?? new Map<number, LedgerStep>()
    const at = day.last_applied_at.getTime()
    const delta = decimal(day.applied_units).times(sign).plus(steps.get(at)?.delta ?? 0)
    steps.set(at, { delta, occurredAt: day.last_applied_at })
    stepsByItem.set(day.item_id, steps)
  }
  for (const day of removed) addStep(day, 1)
  for (const day of await usageDaysOfBatch(trx, batchId)) addStep(day, -1)
  for (const itemId of [...stepsByItem.keys()].sort()) {
    const steps = [...(stepsByItem.get(itemId) as Map<number, LedgerStep>).values()].filter((step) => !step.delta.round(4).eq(0))
    if (steps.length > 0) await writeMovements(trx, tenant, items.get(itemId) as ItemRow, steps, { kind: 'sale', ...movement })
  }
}

function crossedBelowZero(before: Decimal, after: Decimal): boolean {
  return before.gte(0) && after.lt(0)
}
