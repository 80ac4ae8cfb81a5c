import type { SalesWindow } from '../vendors/adapter.js'
import type { ConnectionRow } from '../connections/connections.repository.js'
import { findVendor } from '../vendors/vendor-registry.js'
import type { SalesCheckpoint, SyncRunRow } from './sync-runs.repository.js'
import { DAY_MS } from '../../platform/zoned-time.js'

/** How far back a full sync (or a first incremental one) reads sales. */
const FULL_SYNC_DAYS = 30
/** Incremental runs re-read a little before the cursor, for checks a vendor reports late; duplicates are skipped. */
const CURSOR_OVERLAP_MS = 10 * 60_000

function salesWindowOf(run: Pick<SyncRunRow, 'sync_type'>, connection: Pick<ConnectionRow, 'sales_cursor'>, now: Date, rereadMs = CURSOR_OVERLAP_MS): SalesWindow {
  const fullStart = new Date(now.getTime() - FULL_SYNC_DAYS * DAY_MS)
  if (run.sync_type === 'full' || !connection.sales_cursor) return { start: fullStart, end: now }
  return { start: new Date(connection.sales_cursor.getTime() - Math.max(rereadMs, CURSOR_OVERLAP_MS)), end: now }
}

/** A window the run lists, and where in it to start when a failed run stopped there. */
export interface ListingSegment {
  window: SalesWindow
  from?: string
}

/**
 * What a run lists: its sales window; or, after a run that failed part way, that run's window from where
 * it stopped, then from that window's end (less the re-read) to now. A full run reads its 30 days whole.
 */
export function listingSegments(
  run: Pick<SyncRunRow, 'sync_type'>,
  connection: Pick<ConnectionRow, 'sales_cursor'>,
  checkpoint: SalesCheckpoint | undefined,
  now: Date,
  rereadMs?: number,
): ListingSegment[] {
  if (!checkpoint || run.sync_type === 'full') return [{ window: salesWindowOf(run, connection, now, rereadMs) }]
  const rest = salesWindowOf(run, { sales_cursor: checkpoint.window.end }, now, rereadMs)
  return [{ window: checkpoint.window, from: checkpoint.position }, ...(rest.end > rest.start ? [{ window: rest }] : [])]
}

/** How far before the cursor the connection's incremental runs read again: its own setting, else its vendor's. */
export function rereadMsOf(connection: ConnectionRow): number | undefined {
  return connection.sales_reread_hours !== null ? connection.sales_reread_hours * 3_600_000 : findVendor(connection.pos_type)?.incrementalRereadMs
}
