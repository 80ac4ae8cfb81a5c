import { sql } from 'kysely'
import '../rollups.tables.js'
import type { Tenant, Trx } from '../../platform/db/database.js'
import type { SpanMovement } from '../../inventory/index.js'

/**
 * Count windows' measured facts, stored by analytics (migrations/20261122130000_analytics_count_windows.sql):
 * a window is stored by whoever measured it first and deleted by the triggers when a later change falls
 * inside it, so a stored window is always the window as the data stands.
 */

/** One item's window between two of its counts. */
export interface WindowKey {
  itemId: string
  openingCountId: string
  closingCountId: string
}

/**
 * What moved an item between its two counts (the counts themselves are inventory's), as exact decimal
 * strings: a report parses decimals only for the windows it reports, the cause rules read numbers.
 */
export interface WindowTotals extends Omit<SpanMovement, 'lowestNet'> {
  /** The lowest that deliveries less usage took stock below the opening count; null when not walked. */
  lowestNet: string | null
}

export interface StoredWindow extends WindowKey {
  openingAt: Date
  closingAt: Date
  totals: WindowTotals
}

/** A window's totals in numbers, as the cause rules read them (no decimal is parsed). */
export interface WindowNumbers {
  /** What came in that the bar explains, less what went out that it explains: deliveries + transfers in − transfers out − recorded waste. */
  deliveries: number
  usage: number
  saleLines: number
}

/**
 * Takes the right to store windows measured from now on in this transaction, without waiting: false
 * while a transaction that changed sales usage or deliveries of the tenant is still open (what it
 * changed may be inside a window this one measures and cannot see yet). See the migration.
 *
 * `storesOnly`: the transaction writes nothing but windows (a report's own), so its commit need not wait
 * for its WAL to reach the disk (synchronous_commit off for it alone, set in the same statement): a
 * crash can lose only windows measured from data already durable, and they are measured again. The
 * flush cost a report made again after a count 0.4–4 ms of its answer (docs/benchmarks.md).
 */
export async function mayStoreWindows(trx: Trx, tenant: Tenant, storesOnly: boolean): Promise<boolean> {
  const result = await sql<{ locked: boolean }>`
    SELECT pg_try_advisory_xact_lock(analytics_window_lock(${tenant.accountId}, ${tenant.environment})) AS locked
      ${storesOnly ? sql`, set_config('synchronous_commit', 'off', true)` : sql``}`.execute(trx)
  return result.rows[0]?.locked === true
}

/** Stores measured windows; a window stored before is replaced (a walk adds its lowest net). */
export async function storeWindows(trx: Trx, tenant: Tenant, windows: StoredWindow[]): Promise<void> {
  if (windows.length === 0) return
  const column = (pick: (totals: WindowTotals) => string | number | null) => windows.map((w) => pick(w.totals))
  await sql`
    INSERT INTO analytics_count_windows (account_id, environment, item_id, opening_count_id, closing_count_id, opening_at, closing_at,
      deliveries, usage_units, sale_lines, lowest_net, transfers_in, transfers_out, waste_units, waste_cost)
    SELECT ${tenant.accountId}, ${tenant.environment}, w.*
    FROM unnest(${windows.map((w) => w.itemId)}::text[], ${windows.map((w) => w.openingCountId)}::text[], ${windows.map((w) => w.closingCountId)}::text[],
      ${windows.map((w) => w.openingAt.toISOString())}::timestamptz[], ${windows.map((w) => w.closingAt.toISOString())}::timestamptz[],
      ${column((t) => t.deliveries)}::numeric[], ${column((t) => t.usage)}::numeric[],
      ${column((t) => t.saleLines)}::bigint[], ${column((t) => t.lowestNet)}::numeric[],
      ${column((t) => t.transfersIn)}::numeric[], ${column((t) => t.transfersOut)}::numeric[],
      ${column((t) => t.waste)}::numeric[], ${column((t) => t.wasteCost)}::numeric[])
      AS w (item_id, opening_count_id, closing_count_id, opening_at, closing_at, deliveries, usage_units, sale_lines, lowest_net,
        transfers_in, transfers_out, waste_units, waste_cost)
    ORDER BY w.item_id, w.opening_count_id, w.closing_count_id
    ON CONFLICT (item_id, opening_count_id, closing_count_id) DO UPDATE SET
      deliveries = excluded.deliveries, usage_units = excluded.usage_units, sale_lines = excluded.sale_lines,
      transfers_in = excluded.transfers_in, transfers_out = excluded.transfers_out,
      waste_units = excluded.waste_units, waste_cost = excluded.waste_cost,
      lowest_net = coalesce(excluded.lowest_net, analytics_count_windows.lowest_net)`.execute(trx)
}

/** Deletes the stored windows of these items that span `at`: a count recorded there splits them into two new ones. */
export async function forgetWindowsSpanning(trx: Trx, itemIds: string[], at: Date): Promise<void> {
  if (itemIds.length === 0) return
  await sql`
    DELETE FROM analytics_count_windows
    WHERE item_id = ANY(${itemIds}::text[]) AND closing_at > ${at.toISOString()}::timestamptz AND opening_at < ${at.toISOString()}::timestamptz`.execute(trx)
}
