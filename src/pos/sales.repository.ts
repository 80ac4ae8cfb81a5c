import { sql } from 'kysely'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'

/** A sale line ready to store: decimals as strings, the depleted flag decided by the caller. */
export interface SaleLineRow {
  lineId: string
  locationId: string
  posItemId: string
  name: string
  quantity: string
  unitPrice: string
  soldAt: Date
  staffId: string | null
  staffName: string | null
  checkId: string | null
  tip: string | null
  depleted: boolean
}

export interface SaleSource {
  tenant: Tenant
  connectionId: string
  /** The sync run or import that brings the lines. */
  sourceId: string
}

/**
 * Inserts lines with one statement (a column array each, so any number of lines costs a handful of
 * parameters); a (connection, line id) stored before is skipped. Returns the lines actually inserted.
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

function insertLinesStatement(source: SaleSource, lines: SaleLineRow[]) {
  const column = <T>(pick: (line: SaleLineRow) => T) => lines.map(pick)
  return sql`
    INSERT INTO pos_sales (account_id, environment, connection_id, source_id, line_id, location_id, pos_item_id, name,
      quantity, unit_price, sold_at, staff_id, staff_name, check_id, tip, depleted)
    SELECT ${source.tenant.accountId}, ${source.tenant.environment}, ${source.connectionId}, ${source.sourceId}, l.*
    FROM unnest(${column((l) => l.lineId)}::text[], ${column((l) => l.locationId)}::text[], ${column((l) => l.posItemId)}::text[],
      ${column((l) => l.name)}::text[], ${column((l) => l.quantity)}::numeric[], ${column((l) => l.unitPrice)}::numeric[],
      ${column((l) => l.soldAt.toISOString())}::timestamptz[], ${column((l) => l.staffId)}::text[], ${column((l) => l.staffName)}::text[],
      ${column((l) => l.checkId)}::text[], ${column((l) => l.tip)}::numeric[], ${column((l) => l.depleted)}::boolean[])
      AS l (line_id, location_id, pos_item_id, name, quantity, unit_price, sold_at, staff_id, staff_name, check_id, tip, depleted)
    ON CONFLICT (connection_id, line_id) DO NOTHING`
}

/** Sets the depleted flag of a source's lines of these POS items. */
export async function markSourceLines(trx: Trx, sourceId: string, posItemIds: string[], depleted: boolean): Promise<void> {
  if (posItemIds.length === 0) return
  await trx
    .updateTable('pos_sales')
    .set({ depleted })
    .where('source_id', '=', sourceId)
    .where('pos_item_id', 'in', posItemIds)
    .where('depleted', '=', !depleted)
    .execute()
}

export async function deleteSourceLines(trx: Trx, sourceId: string): Promise<void> {
  await trx.deleteFrom('pos_sales').where('source_id', '=', sourceId).execute()
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
