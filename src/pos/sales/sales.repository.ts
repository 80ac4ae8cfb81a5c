import { type RawBuilder, sql } from 'kysely'
import type { Executor, Tenant, Trx } from '../../platform/db/database.js'

/** What a POS reported of one sale line, as stored: decimals as strings. */
export interface ReportedSaleLine {
  posItemId: string
  name: string
  quantity: string
  unitPrice: string
  soldAt: Date
  staffId: string | null
  /** Personal data: never logged. */
  staffName: string | null
  checkId: string | null
  /** null when the POS reported no tip for the line. */
  tip: string | null
  /** Whether the line took stock through a mapping. */
  depleted: boolean
}

/** A sale line ready to store, the depleted flag decided by the caller. */
export interface SaleLineRow extends ReportedSaleLine {
  lineId: string
  locationId: string
  /** A modifier's parent line. */
  parentLineId: string | null
}

/** A correction (refund, return, void after close) as a vendor reported it; decimals as strings, quantity negative. */
export interface CorrectionRow {
  lineId: string
  correctsLineId: string
  quantity: string
  unitPrice: string
  correctedAt: Date
}

export interface SaleSource {
  tenant: Tenant
  connectionId: string
  /** The sync run or import that brings the lines. */
  sourceId: string
}

/**
 * Inserts lines with one statement (a column array each, so any number of lines costs a handful of
 * parameters); a (connection, line id) stored before is skipped, whatever its sale time (claimAndInsert).
 * Returns the lines actually inserted.
 */
export async function insertSaleLines(db: Executor, source: SaleSource, lines: SaleLineRow[]): Promise<{ posItemId: string; quantity: string; depleted: boolean }[]> {
  if (lines.length === 0) return []
  const result = await sql<{ pos_item_id: string; quantity: string; depleted: boolean }>`${insertLinesStatement(source, lines)}
    RETURNING pos_item_id, quantity, depleted`.execute(db)
  return result.rows.map((row) => ({ posItemId: row.pos_item_id, quantity: String(row.quantity), depleted: row.depleted }))
}

/** Inserts lines as insertSaleLines does, answering only how many were new: no rows come back, which a bulk sync does not need. */
export async function stageSaleLines(db: Executor, source: SaleSource, lines: SaleLineRow[]): Promise<number> {
  if (lines.length === 0) return 0
  const result = await insertLinesStatement(source, lines).execute(db)
  return Number(result.numAffectedRows ?? 0)
}

/**
 * Stores the `given` lines (a relation with `sequence`, numbered from pos_sales' sequence, and the
 * `columns` of pos_sales after the source's) whose (connection, line id) key this statement claims: a
 * key taken before, whatever the line's sale time then (also of an archived month), or earlier in the
 * same statement, is skipped. `before`: CTEs `given` reads, each followed by a comma (a data-modifying one
 * must be at the top). pos_sales is partitioned by month and cannot hold that key unique itself
 * (migrations/20261127160000_partition_sales_ledger.sql); every insert into it goes through here.
 */
function claimAndInsert(source: Omit<SaleSource, 'tenant'> & { tenant?: Tenant }, given: RawBuilder<unknown>, columns: string[], before = sql``) {
  const list = sql.raw(columns.join(', '))
  const picked = sql.raw(columns.map((column) => `g.${column}`).join(', '))
  const tenantColumns = source.tenant ? sql`${source.tenant.accountId}, ${source.tenant.environment},` : sql``
  return sql`
    WITH ${before} given AS MATERIALIZED (${given}),
    claimed AS (
      INSERT INTO pos_sale_line_keys (connection_id, line_id, sequence, sold_at)
      SELECT ${source.connectionId}, g.line_id, g.sequence, g.sold_at FROM given g
      ON CONFLICT DO NOTHING
      RETURNING sequence)
    INSERT INTO pos_sales (sequence, ${source.tenant ? sql`account_id, environment,` : sql``} connection_id, source_id, ${list})
    SELECT g.sequence, ${tenantColumns} ${source.connectionId}, ${source.sourceId}, ${picked}
    FROM given g JOIN claimed c ON c.sequence = g.sequence`
}

/** The columns a sale line and a correction of one both carry. */
const SOLD_LINE_COLUMNS = ['line_id', 'location_id', 'pos_item_id', 'name', 'quantity', 'unit_price', 'sold_at', 'staff_id', 'staff_name', 'check_id', 'tip', 'depleted']

const LINE_COLUMNS = [...SOLD_LINE_COLUMNS, 'parent_line_id']

function insertLinesStatement(source: SaleSource, lines: SaleLineRow[]) {
  const column = <T>(pick: (line: SaleLineRow) => T) => lines.map(pick)
  const given = sql`
    SELECT nextval('pos_sales_line_sequence') AS sequence, l.*
    FROM unnest(${column((l) => l.lineId)}::text[], ${column((l) => l.locationId)}::text[], ${column((l) => l.posItemId)}::text[],
      ${column((l) => l.name)}::text[], ${column((l) => l.quantity)}::numeric[], ${column((l) => l.unitPrice)}::numeric[],
      ${column((l) => l.soldAt.toISOString())}::timestamptz[], ${column((l) => l.staffId)}::text[], ${column((l) => l.staffName)}::text[],
      ${column((l) => l.checkId)}::text[], ${column((l) => l.tip)}::numeric[], ${column((l) => l.depleted)}::boolean[],
      ${column((l) => l.parentLineId)}::text[])
      AS l (${sql.raw(LINE_COLUMNS.join(', '))})`
  return claimAndInsert(source, given, LINE_COLUMNS)
}

/**
 * Stages corrections to wait for their original lines (resolveCorrections moves them into the sales);
 * one stored before, waiting or applied, is skipped. Returns how many were new.
 */
export async function stageCorrections(db: Executor, source: SaleSource, corrections: CorrectionRow[]): Promise<number> {
  if (corrections.length === 0) return 0
  const column = <T>(pick: (row: CorrectionRow) => T) => corrections.map(pick)
  const result = await sql`
    INSERT INTO pos_pending_corrections (account_id, environment, connection_id, source_id, line_id, corrects_line_id, quantity,
      unit_price, corrected_at)
    SELECT ${source.tenant.accountId}, ${source.tenant.environment}, ${source.connectionId}, ${source.sourceId}, c.*
    FROM unnest(${column((c) => c.lineId)}::text[], ${column((c) => c.correctsLineId)}::text[], ${column((c) => c.quantity)}::numeric[],
      ${column((c) => c.unitPrice)}::numeric[], ${column((c) => c.correctedAt.toISOString())}::timestamptz[])
      AS c (line_id, corrects_line_id, quantity, unit_price, corrected_at)
    WHERE NOT EXISTS (SELECT 1 FROM pos_sale_line_keys k WHERE k.connection_id = ${source.connectionId} AND k.line_id = c.line_id)
    ON CONFLICT (connection_id, line_id) DO NOTHING`.execute(db)
  return Number(result.numAffectedRows ?? 0)
}

/**
 * Moves the connection's waiting corrections whose original line is stored now into the sales, under
 * `sourceId`: each takes its original's POS item, location, check, staff, depleted flag and sale time,
 * so it takes back from the day the line was sold. Others keep waiting. Answers how many joined.
 */
export async function resolveCorrections(trx: Trx, connectionId: string, sourceId: string): Promise<number> {
  // The original is found through its key: its sequence and sale time are pos_sales' primary key.
  const resolved = sql`
    resolved AS (
      DELETE FROM pos_pending_corrections p USING pos_sale_line_keys k, pos_sales o
      WHERE p.connection_id = ${connectionId} AND k.connection_id = p.connection_id AND k.line_id = p.corrects_line_id
        AND o.sequence = k.sequence AND o.sold_at = k.sold_at
      RETURNING p.line_id, p.corrects_line_id, p.quantity, p.unit_price, p.corrected_at, o.account_id, o.environment, o.location_id,
        o.pos_item_id, o.name, o.sold_at, o.staff_id, o.staff_name, o.check_id, o.depleted
    ),`
  const given = sql`SELECT nextval('pos_sales_line_sequence') AS sequence, resolved.*, NULL::numeric AS tip FROM resolved`
  const result = await claimAndInsert({ connectionId, sourceId }, given, CORRECTION_COLUMNS, resolved).execute(trx)
  return Number(result.numAffectedRows ?? 0)
}

/**
 * Sets aside the connection's waiting corrections whose original line was archived (`barstock archive`:
 * its key is stored, its line no longer is), so none waits forever: each is dropped from the waiting
 * ones without joining the sales, and its own line id is taken as a stored line's is, so the vendor
 * re-sending it is a duplicate. The archived month's usage and rollups stay as they were, as for a
 * mapping changed after an archive (docs/operations.md, "Partitions and archive"). Answers how many.
 */
export async function setAsideCorrectionsOfArchivedLines(trx: Trx, connectionId: string): Promise<number> {
  const result = await sql`
    WITH set_aside AS (
      DELETE FROM pos_pending_corrections p USING pos_sale_line_keys k
      WHERE p.connection_id = ${connectionId} AND k.connection_id = p.connection_id AND k.line_id = p.corrects_line_id
        AND NOT EXISTS (SELECT 1 FROM pos_sales o WHERE o.sequence = k.sequence AND o.sold_at = k.sold_at)
      RETURNING p.line_id, k.sold_at)
    INSERT INTO pos_sale_line_keys (connection_id, line_id, sequence, sold_at)
    SELECT ${connectionId}, s.line_id, nextval('pos_sales_line_sequence'), s.sold_at FROM set_aside s
    ON CONFLICT DO NOTHING`.execute(trx)
  return Number(result.numAffectedRows ?? 0)
}

const CORRECTION_COLUMNS = ['account_id', 'environment', ...SOLD_LINE_COLUMNS, 'corrects_line_id', 'corrected_at']

/** Sets the depleted flag of a source's lines of these POS items. */
export async function markSourceLines(trx: Trx, sourceId: string, posItemIds: string[], depleted: boolean): Promise<void> {
  if (posItemIds.length === 0) return
  await trx.updateTable('pos_sales').set({ depleted }).where('source_id', '=', sourceId).where('pos_item_id', 'in', posItemIds).where('depleted', '=', !depleted).execute()
}

/** Deletes what a failed run staged: its sale lines and the corrections it left waiting. */
export async function deleteSourceLines(trx: Trx, sourceId: string): Promise<void> {
  await trx.deleteFrom('pos_sales').where('source_id', '=', sourceId).execute()
  await trx.deleteFrom('pos_pending_corrections').where('source_id', '=', sourceId).execute()
}

/**
 * Marks depleted the stored lines of one POS item that never depleted stock, and answers their line
 * numbers. Lines of a run still in flight are left to that run's commit.
 */
export async function claimUndepletedLines(trx: Trx, connectionId: string, posItemId: string): Promise<string[]> {
  const result = await sql<{ sequence: string }>`
    UPDATE pos_sales s SET depleted = true
    WHERE s.connection_id = ${connectionId} AND s.pos_item_id = ${posItemId} AND NOT s.depleted
      AND NOT EXISTS (SELECT 1 FROM pos_sync_runs r WHERE r.id = s.source_id AND r.status = 'processing')
    RETURNING s.sequence`.execute(trx)
  return result.rows.map((row) => String(row.sequence))
}

/**
 * Marks the depleted stored lines of one POS item as never depleted (its mapping is gone), so reports count
 * them as unmapped sales, and answers their line numbers. Lines of a run still in flight are left to that
 * run's commit, as claimUndepletedLines leaves them.
 */
export async function releaseDepletedLines(trx: Trx, connectionId: string, posItemId: string): Promise<string[]> {
  const result = await sql<{ sequence: string }>`
    UPDATE pos_sales s SET depleted = false
    WHERE s.connection_id = ${connectionId} AND s.pos_item_id = ${posItemId} AND s.depleted
      AND NOT EXISTS (SELECT 1 FROM pos_sync_runs r WHERE r.id = s.source_id AND r.status = 'processing')
    RETURNING s.sequence`.execute(trx)
  return result.rows.map((row) => String(row.sequence))
}
