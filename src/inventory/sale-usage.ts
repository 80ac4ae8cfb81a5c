import { type Expression, sql } from 'kysely'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { type Decimal, decimal, QUANTITY_STORED_DECIMALS } from '../platform/decimal.js'
import { newId } from '../platform/ids.js'
import { skuUnitsPer } from './conversion.js'
import { type ItemRow, lockItemRows } from './inventory.repository.js'
import { insertSaleUsage, itemsUsedByLines, removeSaleUsageOfLines, skuItemsAt, type UsageDay, usageDaysOfBatch } from './sale-usage.repository.js'
import { type LedgerStep, writeMovements } from './stock-ledger.js'

/**
 * Sales take stock by their sale time. Every path that turns sales into usage (a sync run, an import, a
 * mapping added later, a recipe) comes through applySaleUsage, so the rule lives here once: a line sold
 * after the item's anchor (its latest count or absolute quantity) takes stock; a line sold at or before
 * it is history, kept for analytics, never taken from current stock.
 */

/** One sale line's usage of one item, as the rows of a SaleUsageSource give it. */
export interface SaleUsageRow {
  /** The POS line's sequence (bigint). */
  sale_line: string
  /** The item the line depletes (see itemsDepletedAt), units in its unit. */
  item_id: string
  /** The location the line was sold at. */
  sale_location_id: string
  sold_at: Date
  units: string
  recipe_id: string | null
}

/** Sale lines to apply, as a SELECT of the caller's own data. */
export interface SaleUsageSource {
  /** The items the rows may name: locked first, in id order. */
  itemIds: string[]
  /** A SELECT whose rows are SaleUsageRow, column for column. */
  rows: Expression<SaleUsageRow>
}

/** The item a sale line depletes for the item its mapping or recipe names, and how many of its units one named unit is. */
export interface DepletedItem {
  itemId: string
  unitsPerNamedUnit: Decimal
}

/** Answers, for an item a mapping or recipe names and the location a line was sold at, the item the line depletes. */
export type DepletedItemAt = (namedItemId: string, location: string) => DepletedItem

/**
 * Sales deplete the venue that sold. A mapping or a recipe ingredient names an item and stands for its
 * SKU: a line sold at a location that stocks the SKU (a live item) takes from that item, converted
 * between a case and the units it holds where the two differ; a line sold where the SKU is not stocked
 * takes from the named item, at its own location, as before (reports count those lines). Resolved for
 * every distinct (item, location) pair of `sold` in one query, never per line.
 */
export async function itemsDepletedAt(db: Executor, tenant: Tenant, sold: { itemId: string; location: string }[]): Promise<DepletedItemAt> {
  const keyOf = (itemId: string, location: string) => JSON.stringify([itemId, location])
  const pairs = [...new Map(sold.map((pair) => [keyOf(pair.itemId, pair.location), pair])).values()]
  const local = new Map<string, DepletedItem>()
  for (const found of await skuItemsAt(db, tenant, pairs)) {
    const pair = pairs[found.ord] as { itemId: string; location: string }
    // A case item without case_size cannot stand for bottles: the named item is depleted instead.
    const unitsPerNamedUnit = skuUnitsPer(found.named, found.local)
    if (unitsPerNamedUnit) local.set(keyOf(pair.itemId, pair.location), { itemId: found.local.id, unitsPerNamedUnit })
  }
  return (namedItemId, location) => local.get(keyOf(namedItemId, location)) ?? { itemId: namedItemId, unitsPerNamedUnit: decimal(1) }
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
      steps.set(at, {
        delta: decimal(day.applied_units)
          .times(sign)
          .plus(steps.get(at)?.delta ?? 0),
        occurredAt: day.last_applied_at,
      })
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
  await replaceSaleUsage(trx, tenant, source.rows, source, movement)
}

/**
 * Removes the usage of stored sale lines (a deleted mapping), named by their sequences: what the lines
 * sold after each item's anchor took from current stock is given back, one ledger row per item and
 * business day; lines sold at or before it were history and give nothing back. The caller holds the
 * transaction.
 */
export async function withdrawSaleUsage(trx: Trx, tenant: Tenant, saleLines: string[], movement: Movement): Promise<void> {
  await replaceSaleUsage(trx, tenant, sql<{ sale_line: string }>`SELECT unnest(${saleLines}::bigint[]) AS sale_line`, undefined, movement)
}

/** Removes the usage of `saleLines` and records `replacement`'s instead (none: the lines take nothing), netting the stock moves per item and day. */
async function replaceSaleUsage(trx: Trx, tenant: Tenant, saleLines: Expression<{ sale_line: string }>, replacement: SaleUsageSource | undefined, movement: Movement) {
  // The lines may have depleted other items than they will now (an item of the SKU added at their
  // location since): those get their usage back, so they are locked too.
  const items = await lockItemRows(trx, tenant, [...(replacement?.itemIds ?? []), ...(await itemsUsedByLines(trx, tenant, saleLines))])
  const steps = new DailyStockSteps()
  steps.add(await removeSaleUsageOfLines(trx, tenant, saleLines), 1)
  if (replacement) {
    const batchId = newId('use')
    await insertSaleUsage(trx, tenant, batchId, replacement.rows)
    steps.add(await usageDaysOfBatch(trx, batchId), -1)
  }
  await steps.write(trx, tenant, items, movement)
}

function crossedBelowZero(before: Decimal, after: Decimal): boolean {
  return before.gte(0) && after.lt(0)
}
