import { type Expression, sql } from 'kysely'
import type { Executor, Tenant } from '../../platform/db/database.js'
import type { PosSaleTable } from './sales.tables.js'
import type { ReportedSaleLine } from './sales.repository.js'

/**
 * The sales history POS publishes for reports (analytics reads it here, never the tables). A line is
 * mapped when it took stock through a mapping (pos_sales.depleted); revenue is quantity × unit price.
 */

/**
 * The columns of pos_sales that analytics' rollup triggers read (analytics_roll_sales: every inserted,
 * deleted or re-mapped line is folded into analytics_pos_item_days and analytics_unmapped_sale_days in the
 * writing statement's transaction, where TypeScript cannot see it). They keep their name and meaning while
 * the triggers read them: this list is checked against the table's type here, and against the triggers'
 * SQL by test/analytics/rollup-contract.test.ts, so renaming one (`depleted`, say) fails one or the other.
 */
export const SALE_COLUMNS_ROLLED_UP = [
  'sequence',
  'account_id',
  'environment',
  'connection_id',
  'pos_item_id',
  'location_id',
  'sold_at',
  'name',
  'quantity',
  'unit_price',
  'depleted',
] as const satisfies readonly (keyof PosSaleTable)[]

/** Moments of one location: after `start`, before `end`. */
export interface LocationSpan {
  location: string
  start: Date
  end: Date
}

function spansTable(spans: LocationSpan[]) {
  return sql`unnest(${spans.map((_, index) => index)}::int[], ${spans.map((span) => span.location)}::text[],
    ${spans.map((span) => span.start.toISOString())}::timestamptz[], ${spans.map((span) => span.end.toISOString())}::timestamptz[])
    AS b (ord, location_id, start_at, end_at)`
}

/**
 * The tenant's unmapped sale lines (not depleted: no mapping took stock for them), as a typed subquery a
 * report's own query filters by location and time (pos_sales_unmapped_time serves that): location_id,
 * sold_at, connection_id, pos_item_id, name, quantity. Analytics reads them only for the partial business
 * days at the ends of a count window; the whole days between come from its daily rollup of them.
 */
export function unmappedSaleLines(db: Executor, tenant: Tenant) {
  return (
    db
      .selectFrom('pos_sales')
      .select(['location_id', 'sold_at', 'connection_id', 'pos_item_id', 'name', 'quantity'])
      .where('account_id', '=', tenant.accountId)
      .where('environment', '=', tenant.environment)
      // As the partial index says it (NOT depleted): a bound `depleted = $1` would not match it.
      .where((eb) => eb.not(eb.ref('depleted')))
  )
}

/**
 * One sale line's POS quantity when it is the tenant's and took stock through a mapping, else null, as a
 * typed scalar subquery; `sequence` and `soldAt` are SQL naming the line and its sale time, usually columns
 * of the query it is correlated with. The line is found by its primary key alone, sequence and sale time
 * (pos_sales is partitioned by month: the time probes one month's index, not every month's): with the
 * tenant in the WHERE, a planner without statistics on pos_sales yet (a young database) probed the
 * tenant's index and read every line of the account for each line.
 */
export function mappedSaleLineQuantity(db: Executor, tenant: Tenant, sequence: Expression<string>, soldAt: Expression<Date>) {
  return db
    .selectFrom('pos_sales')
    .select((eb) =>
      eb
        .case()
        .when(eb.and([eb('account_id', '=', tenant.accountId), eb('environment', '=', tenant.environment), eb.ref('depleted')]))
        .then(eb.ref('quantity'))
        .end()
        .as('quantity'),
    )
    .where('sequence', '=', sequence)
    .where('sold_at', '=', soldAt)
}

/** One stored sale line as the POS reported it. */
export interface SaleLine extends ReportedSaleLine {
  /** The line's sequence (text): what inventory's usage names as its sale line. */
  line: string
  location: string
  connectionId: string
}

const SALE_LINE_COLUMNS = sql`s.sequence::text AS line, s.location_id AS location, s.connection_id AS "connectionId", s.pos_item_id AS "posItemId",
  s.name, s.quantity::text AS quantity, s.unit_price::text AS "unitPrice", s.sold_at AS "soldAt", s.staff_id AS "staffId",
  s.staff_name AS "staffName", s.check_id AS "checkId", s.tip::text AS tip, s.depleted`

/** Every line sold at these locations in their spans, mapped or not, oldest first. */
export async function saleLinesInSpans(db: Executor, tenant: Tenant, spans: LocationSpan[]): Promise<SaleLine[]> {
  if (spans.length === 0) return []
  const result = await sql<SaleLine>`
    SELECT ${SALE_LINE_COLUMNS}
    FROM ${spansTable(spans)}
    JOIN pos_sales s ON s.account_id = ${tenant.accountId} AND s.environment = ${tenant.environment}
      AND s.location_id = b.location_id AND s.sold_at >= b.start_at AND s.sold_at < b.end_at
    ORDER BY s.sold_at, s.sequence`.execute(db)
  return result.rows
}

/** The tenant's sale lines among these sequences. */
export async function saleLinesById(db: Executor, tenant: Tenant, lines: string[]): Promise<SaleLine[]> {
  if (lines.length === 0) return []
  const result = await sql<SaleLine>`
    SELECT ${SALE_LINE_COLUMNS}
    FROM pos_sales s
    WHERE s.account_id = ${tenant.accountId} AND s.environment = ${tenant.environment} AND s.sequence = ANY(${lines}::bigint[])
    ORDER BY s.sequence`.execute(db)
  return result.rows
}
