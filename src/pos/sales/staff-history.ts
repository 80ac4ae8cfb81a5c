import { sql } from 'kysely'
import type { Executor, Tenant } from '../../platform/db/database.js'

/**
 * The staff POS publishes for reports (analytics reads it here, never the tables): employees the POS
 * reported (pos_staff) and staff ids seen on sale lines. Names are personal data: never logged.
 */

export interface StaffMember {
  staffId: string
  /** From the POS's employee list, else the staff_name of the member's latest sale line. */
  name: string | null
  /** From the POS's employee list; null for a member seen only on sale lines. */
  role: string | null
}

/**
 * The tenant's staff among `staffIds` (every one it knows when omitted): a staff id the POS reported as an
 * employee on any connection (the latest synced record wins) or seen on any sale line.
 */
export async function staffMembers(db: Executor, tenant: Tenant, staffIds?: string[]): Promise<Map<string, StaffMember>> {
  const only = staffIds === undefined ? sql`true` : sql`staff_id = ANY(${staffIds}::text[])`
  const result = await sql<StaffMember>`
    SELECT coalesce(e.staff_id, l.staff_id) AS "staffId", coalesce(e.name, l.staff_name) AS name, e.role
    FROM (
      SELECT DISTINCT ON (staff_id) staff_id, name, role FROM pos_staff
      WHERE account_id = ${tenant.accountId} AND environment = ${tenant.environment} AND ${only}
      ORDER BY staff_id, last_synced DESC, connection_id
    ) e
    FULL JOIN (
      SELECT DISTINCT ON (staff_id) staff_id, staff_name FROM pos_sales
      WHERE account_id = ${tenant.accountId} AND environment = ${tenant.environment} AND staff_id IS NOT NULL AND ${only}
      ORDER BY staff_id, (staff_name IS NULL), sold_at DESC, sequence DESC
    ) l ON l.staff_id = e.staff_id`.execute(db)
  return new Map(result.rows.map((row) => [row.staffId, row]))
}
