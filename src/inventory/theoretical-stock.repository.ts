import { type RawBuilder, sql } from 'kysely'
import type { Executor, Trx } from '../platform/db/database.js'
import { signedLineQuantity } from './operations.repository.js'

/** The ledger arithmetic of theoretical stock: what moved an item's stock between two moments, and what it held at one. */

/**
 * `+ what transfers, waste and deliveries moved as history` (no ledger row: dated before the item's anchor
 * when recorded), voided ones left out.
 */
function historyOperations(itemId: RawBuilder<unknown>, from: RawBuilder<unknown>, until: RawBuilder<unknown>) {
  return sql`+ coalesce((SELECT sum(${signedLineQuantity('o')}) FROM stock_operation_lines o
      WHERE o.item_id = ${itemId} AND NOT o.applied AND o.voided_at IS NULL AND o.occurred_at > ${from} ${until}), 0)`
}

/**
 * What moved the stock of the item `itemId` (an SQL column) in (from, to]: ledger deltas that are neither
 * sales nor absolute quantities (deliveries, batch changes, transfers and waste that took stock), less the
 * usage of the sale lines sold in it: only those that took current stock with `appliedOnly`, else every
 * one, and the transfers, waste and deliveries that are history too.
 */
function netMovement(itemId: RawBuilder<unknown>, from: RawBuilder<unknown>, to: RawBuilder<unknown> | undefined, appliedOnly: boolean) {
  const until = (column: string) => (to === undefined ? sql`` : sql`AND ${sql.ref(column)} <= ${to}`)
  return sql`(
    coalesce((SELECT sum(m.delta) FROM stock_movements m WHERE m.item_id = ${itemId} AND m.occurred_at > ${from} ${until('m.occurred_at')}
      AND m.kind <> 'sale' AND NOT m.anchor), 0)
    - coalesce((SELECT sum(u.units) FROM stock_sale_usage u WHERE u.item_id = ${itemId} AND u.sold_at > ${from} ${until('u.sold_at')}
      ${appliedOnly ? sql`AND u.applied` : sql``}), 0)
    ${appliedOnly ? sql`` : historyOperations(itemId, from, until('o.occurred_at'))})`
}

/**
 * How each item's stock moved after `since` by what stays on top of an anchor set at `since`: ledger
 * deltas that are neither sales nor absolute quantities (deliveries, batch changes), less the sales
 * applied to stock that were sold after `since` (from the per-line usage, exact to the line).
 */
export async function changeAfter(trx: Trx, itemIds: string[], since: Date): Promise<Map<string, string>> {
  if (itemIds.length === 0) return new Map()
  const result = await sql<{ item_id: string; change: string }>`
    SELECT id AS item_id, ${netMovement(sql.ref('i.id'), sql`${since}::timestamptz`, undefined, true)} AS change
    FROM inventory_items i WHERE i.id = ANY(${itemIds}::text[])`.execute(trx)
  return new Map(result.rows.map((row) => [row.item_id, String(row.change)]))
}

/**
 * Each item's theoretical stock at `at`, in one statement: from its latest known quantity at or before
 * `at` forward, else back from its earliest known quantity after `at`, by what physically moved the stock
 * in between (ledger deltas that are neither sales nor absolute quantities, less every sale sold, taken
 * from stock or history alike). A known quantity is an anchor of the ledger or a count, history counts
 * included: a count back-dated before the item's anchor leaves current stock alone, but it is what the
 * shelf held then, so the next count entered after the fact expects from it, as its variance window
 * does. Items without either are absent.
 */
export async function theoreticalStocksAt(db: Executor, itemIds: string[], at: Date): Promise<Map<string, string>> {
  if (itemIds.length === 0) return new Map()
  const net = (from: string, to: string) => netMovement(sql.ref('s.item_id'), sql.ref(from), sql.ref(to), false)
  const result = await sql<{ item_id: string; quantity: string }>`
    WITH s AS (SELECT unnest(${itemIds}::text[]) AS item_id, ${at}::timestamptz AS at),
    known AS (
      SELECT m.item_id, m.occurred_at, m.anchor_quantity AS quantity FROM stock_movements m JOIN s ON s.item_id = m.item_id WHERE m.anchor
      UNION ALL
      SELECT c.item_id, c.counted_at, c.actual FROM inventory_count_lines c JOIN s ON s.item_id = c.item_id),
    before AS (
      SELECT DISTINCT ON (k.item_id) k.item_id, k.occurred_at, k.quantity FROM known k JOIN s ON s.item_id = k.item_id
      WHERE k.occurred_at <= s.at ORDER BY k.item_id, k.occurred_at DESC),
    after AS (
      SELECT DISTINCT ON (k.item_id) k.item_id, k.occurred_at, k.quantity FROM known k JOIN s ON s.item_id = k.item_id
      WHERE k.occurred_at > s.at ORDER BY k.item_id, k.occurred_at)
    SELECT s.item_id, (CASE WHEN b.item_id IS NOT NULL THEN b.quantity + ${net('b.occurred_at', 's.at')}
      ELSE a.quantity - ${net('s.at', 'a.occurred_at')} END)::text AS quantity
    FROM s LEFT JOIN before b ON b.item_id = s.item_id LEFT JOIN after a ON a.item_id = s.item_id
    WHERE b.item_id IS NOT NULL OR a.item_id IS NOT NULL`.execute(db)
  return new Map(result.rows.map((row) => [row.item_id, row.quantity]))
}
