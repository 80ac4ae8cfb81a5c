import { type Expression, type RawBuilder, sql } from 'kysely'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import type { InventoryItemCostTable } from './inventory.tables.js'

/**
 * Each item's cost per unit over time (migrations/20261127141000_item_cost_history.sql): inventory writes
 * a row whenever it sets an item's cost, so reports value a count window at the cost of its time
 * (docs/analytics.md, "Costs of their time"). The cost in force at a moment is the row with the latest
 * effective_at at or before it, the latest recorded on a tie; an item's cost_per_unit is the cost in
 * force now.
 */

/** Why a cost was set: the item was created with it, a delivery was received at it, or a PUT changed it. */
export type CostSource = InventoryItemCostTable['source']

export interface CostChange {
  itemId: string
  /** A decimal string with UNIT_COST_DECIMALS, as the item row keeps it. */
  unitCost: string
  /** From when it holds; `always` for the cost an item is created with (it stands for everything before its first change). */
  effectiveAt: Date | 'always'
  source: CostSource
  /** The order a delivery came with. */
  referenceId: string | null
}

/**
 * Records the costs set on locked items. A receipt at the price already in force is kept too: a receipt
 * entered later and dated before it must not make an older price stand after it.
 */
export async function recordCostChanges(trx: Trx, tenant: Tenant, changes: CostChange[]): Promise<void> {
  if (changes.length === 0) return
  await sql`
    INSERT INTO inventory_item_costs (account_id, environment, item_id, effective_at, unit_cost, source, reference_id)
    SELECT ${tenant.accountId}, ${tenant.environment}, c.*
    FROM unnest(${changes.map((change) => change.itemId)}::text[],
      ${changes.map((change) => (change.effectiveAt === 'always' ? '-infinity' : change.effectiveAt.toISOString()))}::timestamptz[],
      ${changes.map((change) => change.unitCost)}::numeric[], ${changes.map((change) => change.source)}::text[],
      ${changes.map((change) => change.referenceId)}::text[]) AS c (item_id, effective_at, unit_cost, source, reference_id)`.execute(trx)
}

/**
 * Per item among `itemIds`, the time of its latest cost change (a delivery or a PUT; the cost it was
 * created with is never later than a change); items whose cost never changed are absent.
 */
export async function latestCostChanges(db: Executor, itemIds: string[]): Promise<Map<string, Date>> {
  if (itemIds.length === 0) return new Map()
  const result = await sql<{ item_id: string; effective_at: Date }>`
    SELECT i.item_id, c.effective_at FROM unnest(${[...new Set(itemIds)]}::text[]) AS i (item_id)
    CROSS JOIN LATERAL (SELECT effective_at FROM inventory_item_costs WHERE item_id = i.item_id AND effective_at > '-infinity'
      ORDER BY effective_at DESC, sequence DESC LIMIT 1) c`.execute(db)
  return new Map(result.rows.map((row) => [row.item_id, row.effective_at]))
}

/**
 * The SQL of an item's cost in force at a moment, for a report's own query (analytics reads it here, never
 * the table): `itemId` and `at` are SQL, usually columns of the query it is correlated with. One index
 * probe (inventory_item_costs_item_time). Every item has a cost from its creation on, so it is never null
 * for an item.
 */
export function itemCostAt(itemId: Expression<string>, at: Expression<Date>): RawBuilder<string> {
  return sql<string>`(SELECT unit_cost FROM inventory_item_costs WHERE item_id = ${itemId} AND effective_at <= ${at}
    ORDER BY effective_at DESC, sequence DESC LIMIT 1)`
}

/**
 * The SQL of whether an item's cost took another value than `cost` after `from` up to and including `to`
 * (a receipt at the price in force is no change). One index range scan (inventory_item_costs_item_time)
 * over the costs set in the span: a few receipts.
 */
export function itemCostOtherThanIn(itemId: Expression<string>, cost: Expression<string>, from: Expression<Date>, to: Expression<Date>): RawBuilder<boolean> {
  return sql<boolean>`EXISTS (SELECT 1 FROM inventory_item_costs WHERE item_id = ${itemId} AND effective_at > ${from} AND effective_at <= ${to}
    AND unit_cost <> ${cost})`
}
