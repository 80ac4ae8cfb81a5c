import type { Selectable } from 'kysely'
import { sql } from 'kysely'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { keysetBatches } from '../platform/db/keyset-batches.js'
import { pageWithTotal, type RowPage } from '../platform/db/page.js'
import { type Decimal, decimal, quantityOut, toDbNumeric } from '../platform/decimal.js'
import type { CountDetail, CountLine, CountSummary } from './inventory.schemas.js'
import type { InventoryCountLineTable, InventoryCountTable } from './inventory.tables.js'

/** Counts as stored: the counts of a location and their lines. */

function rowToCountSummary(row: Selectable<InventoryCountTable>): CountSummary {
  return {
    count_id: row.id,
    location: row.location_id,
    counted_by: row.counted_by,
    counted_at: row.counted_at.toISOString(),
    items_updated: row.items_updated,
    created_at: row.created_at.toISOString(),
  }
}

function tenantCounts(db: Executor, tenant: Tenant) {
  return db.selectFrom('inventory_counts').where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment)
}

function countsAt(db: Executor, tenant: Tenant, location: string | undefined) {
  return location === undefined ? tenantCounts(db, tenant) : tenantCounts(db, tenant).where('location_id', '=', location)
}

/** A page of the tenant's counts (of one location, or all), newest first, and how many there are. */
export async function listCountRows(db: Executor, tenant: Tenant, location: string | undefined, page: RowPage) {
  const counts = countsAt(db, tenant, location)
  const { rows, total } = await pageWithTotal(counts.selectAll().orderBy('counted_at', 'desc').orderBy('id', 'desc'), counts, page)
  return { counts: rows.map(rowToCountSummary), total }
}

/** Every count (of one location, or all), newest first, batch after batch. */
export async function* countBatches(db: Executor, tenant: Tenant, location: string | undefined): AsyncGenerator<CountSummary[]> {
  const batches = keysetBatches(async (last: { id: string; counted_key: string } | undefined, size) => {
    let select = countsAt(db, tenant, location).selectAll().select(sql<string>`counted_at::text`.as('counted_key'))
    if (last) select = select.where(sql<boolean>`(counted_at, id) < (${last.counted_key}, ${last.id})`)
    return select.orderBy('counted_at', 'desc').orderBy('id', 'desc').limit(size).execute()
  })
  for await (const rows of batches) yield rows.map(rowToCountSummary)
}

function rowToCountLine(line: Selectable<InventoryCountLineTable>): CountLine {
  return {
    item_id: line.item_id,
    expected: quantityOut(line.expected),
    actual: quantityOut(line.actual),
    variance: quantityOut(decimal(line.actual).minus(line.expected)),
    notes: line.notes,
    weights_g: line.weights_g && line.weights_g.map(Number),
  }
}

/** One count of the tenant with every counted line, or undefined. */
export async function findCountDetail(db: Executor, tenant: Tenant, countId: string): Promise<CountDetail | undefined> {
  const count = await findCountSummary(db, tenant, countId)
  if (!count) return undefined
  const lines = await db.selectFrom('inventory_count_lines').selectAll().where('count_id', '=', countId).orderBy('item_id').execute()
  return { ...count, items: lines.map(rowToCountLine) }
}

/** One count of the tenant without its lines, or undefined. */
export async function findCountSummary(db: Executor, tenant: Tenant, countId: string): Promise<CountSummary | undefined> {
  const row = await tenantCounts(db, tenant).selectAll().where('id', '=', countId).executeTakeFirst()
  return row && rowToCountSummary(row)
}

/** The lines of a count, by item id, batch after batch. */
export async function* countLineBatches(db: Executor, countId: string): AsyncGenerator<CountLine[]> {
  const batches = keysetBatches(async (last: { item_id: string } | undefined, size) => {
    let select = db.selectFrom('inventory_count_lines').selectAll().where('count_id', '=', countId)
    if (last) select = select.where('item_id', '>', last.item_id)
    return select.orderBy('item_id').limit(size).execute()
  })
  for await (const rows of batches) yield rows.map(rowToCountLine)
}

/** A count about to be stored. */
interface NewCount {
  id: string
  location: string
  countedBy: string
  countedAt: Date
  createdAt: Date
}

/** Stores a count and its lines (expected: each item's theoretical stock at counted_at). */
export async function insertCount(
  trx: Trx,
  tenant: Tenant,
  count: NewCount,
  lines: { line: { notes?: string | null }; item: { id: string }; actual: Decimal; weights: number[] | null }[],
  expected: Map<string, Decimal>,
): Promise<void> {
  await trx
    .insertInto('inventory_counts')
    .values({
      id: count.id,
      account_id: tenant.accountId,
      environment: tenant.environment,
      location_id: count.location,
      counted_by: count.countedBy,
      counted_at: count.countedAt,
      items_updated: lines.length,
      created_at: count.createdAt,
    })
    .execute()
  await trx
    .insertInto('inventory_count_lines')
    .values(
      lines.map(({ line, item, actual, weights }) => ({
        count_id: count.id,
        item_id: item.id,
        expected: toDbNumeric(expected.get(item.id) as Decimal),
        actual: toDbNumeric(actual),
        notes: line.notes ?? null,
        weights_g: weights && weights.map(String),
        counted_at: count.countedAt,
        recorded_at: count.createdAt,
      })),
    )
    .execute()
}
