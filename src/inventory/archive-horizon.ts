import { sql } from 'kysely'
import type { Executor, Environment } from '../platform/db/database.js'

/** The oldest moment of stock history an item still needs, and whose item it is. */
export interface HistoryInUse {
  accountId: string
  environment: Environment
  itemId: string
  itemName: string
  /** Sales, usage and movements at or after this moment must stay. */
  neededFrom: Date
}

/**
 * Across every tenant, the live item whose stock history is needed furthest back (undefined without live
 * items): per item, the earlier of its anchor (its current stock is the anchor plus what came after) and
 * the oldest of its last `countsKept` counts (its open count window starts at the latest; the windows a
 * variance report reads by default end at the counts before it). What `barstock archive` may not detach.
 */
export async function oldestHistoryInUse(db: Executor, countsKept: number): Promise<HistoryInUse | undefined> {
  const result = await sql<{ account_id: string; environment: Environment; id: string; name: string; needed_from: Date }>`
    SELECT i.account_id, i.environment, i.id, i.name,
      least(i.anchored_at, (SELECT min(kept.counted_at) FROM (
        SELECT l.counted_at FROM inventory_count_lines l WHERE l.item_id = i.id ORDER BY l.counted_at DESC LIMIT ${countsKept}) AS kept)) AS needed_from
    FROM inventory_items i
    WHERE i.deleted_at IS NULL
    ORDER BY needed_from, i.id
    LIMIT 1`.execute(db)
  const row = result.rows[0]
  return row && { accountId: row.account_id, environment: row.environment, itemId: row.id, itemName: row.name, neededFrom: new Date(row.needed_from) }
}
