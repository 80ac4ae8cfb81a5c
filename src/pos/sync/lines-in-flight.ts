import { sql } from 'kysely'
import type { Trx } from '../../platform/db/database.js'

/** A sync run still working that has stored lines of a month an archive would take. */
export interface LinesInFlight {
  syncId: string
  connectionId: string
  /** Its earliest such line's sale time. */
  soldFrom: Date
}

/**
 * For `barstock archive`: a sync run still processing that has staged sale lines sold before `before`,
 * or undefined. A run stores its lines in short transactions before its commit applies them (and a
 * failed one deletes them, freeing their keys for the retry): archived under it, its lines would never
 * deplete stock, and a retry would skip them as duplicates. Locks pos_sales against writes first (reads
 * go on) until the caller's transaction ends, so no run stores a line between this check and the archive.
 */
export async function syncLinesInFlightBefore(trx: Trx, before: Date): Promise<LinesInFlight | undefined> {
  await sql`LOCK TABLE pos_sales IN SHARE MODE`.execute(trx)
  const result = await sql<{ sync_id: string; connection_id: string; sold_from: Date }>`
    SELECT r.id AS sync_id, r.connection_id, min(s.sold_at) AS sold_from
    FROM pos_sync_runs r JOIN pos_sales s ON s.source_id = r.id
    WHERE r.status = 'processing' AND s.sold_at < ${before}
    GROUP BY r.id, r.connection_id
    ORDER BY sold_from
    LIMIT 1`.execute(trx)
  const row = result.rows[0]
  return row && { syncId: row.sync_id, connectionId: row.connection_id, soldFrom: new Date(row.sold_from) }
}
