import { sql } from 'kysely'
import type { Executor, Tenant } from './db/database.js'

/**
 * The tenant change log (migrations/20261128020000_tenant_changes.sql; docs/decisions.md "Report cache"):
 * every statement that writes tenant data a report could read adds a row (tenant, its transaction's id).
 * An answer computed after `takeSnapshot` is still the answer while `changedSince` finds no row of the
 * tenant whose transaction that snapshot did not see: exact whatever the order in which writers commit,
 * unlike a sequence's maximum (a lower number may commit after a higher one was read).
 */

/** `pg_current_snapshot()` as text ('xmin:xmax:xip,…'): which transactions the reads after it will see. */
export async function takeSnapshot(db: Executor): Promise<string> {
  const result = await sql<{ snapshot: string }>`SELECT pg_current_snapshot()::text AS snapshot`.execute(db)
  return (result.rows[0] as { snapshot: string }).snapshot
}

/**
 * How far forward an answer's data reaches: an answer with this horizon is not changed by rows stamped
 * after `at` (a sale, its usage, a stock movement) or rollups of business days after `day`, nor by a
 * change of present state only (stock on hand, the time of a last sync). Without a horizon every change
 * of the tenant counts (migrations/20261128060000_tenant_changes_bounds.sql).
 */
export interface ChangeHorizon {
  at: Date
  /** YYYY-MM-DD */
  day: string
}

/** The log's rows that can reach an answer bounded by `horizon` (every row without one). */
function reaching(horizon: ChangeHorizon | undefined) {
  return horizon ? sql`((rows_from IS NULL AND days_from IS NULL) OR rows_from <= ${horizon.at} OR days_from <= ${horizon.day}::date)` : sql`true`
}

/** The tenant's log rows of transactions `snapshot` did not see (committed by now): one index range from its xmin. */
function changesAfter(tenant: Tenant, snapshot: string) {
  return sql`account_id = ${tenant.accountId} AND environment = ${tenant.environment}
    AND changed_xid >= pg_snapshot_xmin(${snapshot}::pg_snapshot) AND NOT pg_visible_in_snapshot(changed_xid, ${snapshot}::pg_snapshot)`
}

/**
 * Whether a transaction `snapshot` did not see has changed the tenant's data since (committed by now)
 * in a way that can reach an answer bounded by `horizon` (older transactions had all ended before the
 * snapshot's xmin), the bounds read from the index too.
 */
export async function changedSince(db: Executor, tenant: Tenant, snapshot: string, horizon?: ChangeHorizon): Promise<boolean> {
  const result = await sql<{ changed: boolean }>`
    SELECT EXISTS (SELECT 1 FROM tenant_changes WHERE ${changesAfter(tenant, snapshot)} AND ${reaching(horizon)}) AS changed`.execute(db)
  return result.rows[0]?.changed === true
}

/** What changes since an answer's snapshot reach of its part (reachOfChanges). */
export interface ChangesReach {
  /** One reaches any item's history: the answer is computed whole. */
  whole: boolean
  /** One reaches any item through the context only (tenant_changes.reaches_history false): a setting, a name, a mapping. */
  context: boolean
  /** The items named by those that reach inside the part's horizon. */
  items: string[]
  /** The snapshot of the statement that read them (as takeSnapshot's): every change it sees is among those read. */
  snapshot: string
}

/**
 * What the changes since `snapshot` that reach an answer bounded by `horizon` can reach of its part
 * bounded by `partHorizon` (an answer made of one part per item, and what is read beside them; without
 * one, every change reaches inside the parts): `whole`
 * when one reaches inside the part's horizon without naming its items and can reach their history,
 * `context` when such a change reaches only the context (what scopes the answer, names its items or is
 * matched among them), and the items named by those that reach inside it (the changes beyond it reach
 * only what is read beside the items), and the snapshot that statement read them in: a new answer's,
 * taken with them (one round trip fewer than takeSnapshot beside).
 */
export async function reachOfChanges(
  db: Executor,
  tenant: Tenant,
  snapshot: string,
  horizon: ChangeHorizon | undefined,
  partHorizon: ChangeHorizon | undefined,
): Promise<ChangesReach> {
  const result = await sql<ChangesReach>`
    WITH changes AS (
      SELECT item_ids, reaches_history, ${reaching(partHorizon)} AS inside FROM tenant_changes WHERE ${changesAfter(tenant, snapshot)} AND ${reaching(horizon)})
    SELECT (SELECT coalesce(bool_or(inside AND item_ids IS NULL AND reaches_history), false) FROM changes) AS whole,
      (SELECT coalesce(bool_or(inside AND item_ids IS NULL AND NOT reaches_history), false) FROM changes) AS context,
      (SELECT coalesce(array_agg(DISTINCT item), '{}') FROM changes CROSS JOIN LATERAL unnest(item_ids) AS item WHERE inside) AS items,
      pg_current_snapshot()::text AS snapshot`.execute(db)
  return result.rows[0] as ChangesReach
}

/**
 * Logs a change of every tenant in the caller's transaction: for what changes data without a row
 * statement (detaching a month of sales), which no trigger sees.
 */
export async function logEveryTenantChanged(db: Executor): Promise<void> {
  await sql`
    INSERT INTO tenant_changes (account_id, environment)
    SELECT a.id, e.environment FROM accounts a CROSS JOIN (VALUES ('production'), ('sandbox')) AS e (environment)`.execute(db)
}

/**
 * The longest a snapshot vouches for an answer (a cache serves nothing computed longer ago), and so how
 * long the rows a snapshot of that age could miss are kept.
 */
export const SNAPSHOT_MAX_AGE_MS = 3_600_000
/** Kept on top of SNAPSHOT_MAX_AGE_MS: a replica's snapshot is of the primary's state up to its lag earlier. */
const PRUNE_MARGIN_MS = 300_000

/**
 * Deletes the change rows no snapshot a cache may still use can miss. Each call remembers the xmin of a
 * snapshot of its own (every transaction below it had ended); a row may go once its transaction is below
 * the xmin of a call at least SNAPSHOT_MAX_AGE_MS + PRUNE_MARGIN_MS ago: every snapshot taken since has an
 * xmin at least as high, so it saw that transaction end. By transaction id, not by changed_at: a
 * transaction's now() is its start, and one open for hours commits rows that look hours old.
 */
export class ChangeLogPruner {
  #horizons: { at: number; xmin: string }[] = []

  /** Prunes what an earlier call's horizon allows, and takes this call's horizon. Answers the rows deleted. */
  async prune(db: Executor, now = Date.now()): Promise<number> {
    const due = this.#horizons.filter((horizon) => now - horizon.at >= SNAPSHOT_MAX_AGE_MS + PRUNE_MARGIN_MS)
    const horizon = due.at(-1)
    let deleted = 0
    if (horizon) {
      const result = await sql`DELETE FROM tenant_changes WHERE changed_xid < ${horizon.xmin}::xid8`.execute(db)
      deleted = Number(result.numAffectedRows ?? 0)
      this.#horizons = this.#horizons.filter((kept) => kept.at > horizon.at)
    }
    const taken = await sql<{ xmin: string }>`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`.execute(db)
    this.#horizons.push({ at: now, xmin: (taken.rows[0] as { xmin: string }).xmin })
    return deleted
  }
}
