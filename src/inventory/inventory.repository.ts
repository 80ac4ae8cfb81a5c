import type { Environment, Executor, Tenant, Trx } from '../platform/db/database.js'
import { precompiled } from '../platform/db/precompiled.js'
import { decimal, quantityOut, unitCostOut } from '../platform/decimal.js'
import { keysetBatches } from '../platform/db/keyset-batches.js'
import type { CountDetail, CountLine, CountSummary, InventoryItem, ListItemsQuery, StockMovement } from './inventory.schemas.js'
import type { InventoryCountLineTable, InventoryCountTable, InventoryItemTable, StockMovementTable } from './inventory.tables.js'
import type { PageRequest } from '../platform/http/pagination.js'
import { type RawBuilder, type Selectable, sql } from 'kysely'
import { pageWithTotal, type RowPage } from '../platform/db/page.js'
import { signedLineQuantity } from './operations.repository.js'
import { itemCostAt } from './item-costs.js'

export type ItemRow = Selectable<InventoryItemTable>

export function rowToItem(row: ItemRow): InventoryItem {
  return {
    id: row.id,
    name: row.name,
    sku: row.sku,
    category: row.category,
    quantity: quantityOut(row.quantity),
    unit: row.unit,
    size_ml: row.size_ml,
    case_size: row.case_size,
    location: row.location_id,
    reorder_point: quantityOut(row.reorder_point),
    cost_per_unit: unitCostOut(row.cost_per_unit),
    full_weight_g: nullableNumber(row.full_weight_g),
    empty_weight_g: nullableNumber(row.empty_weight_g),
    par_level: row.par_level === null ? null : quantityOut(row.par_level),
    created_at: row.created_at.toISOString(),
    last_updated: row.last_updated.toISOString(),
  }
}

/** A nullable numeric column as the API's number (its decimals as stored), or null. */
function nullableNumber(value: string | null): number | null {
  return value === null ? null : Number(value)
}

function liveItems(db: Executor, tenant: Tenant) {
  return db.selectFrom('inventory_items').where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment).where('deleted_at', 'is', null)
}

function itemById(db: Executor, accountId: string, environment: Environment, id: string) {
  return liveItems(db, { accountId, environment }).selectAll().where('id', '=', id)
}

// GET /v1/inventory/items/:id, the API's hottest read, runs this once per request: compiled once. So
// does the lock PUT and DELETE of one item take first.
const liveItemById = precompiled(itemById)
const lockedItemById = precompiled((db, accountId: string, environment: Environment, id: string) => itemById(db, accountId, environment, id).forUpdate())

export async function findItemRow(db: Executor, tenant: Tenant, id: string): Promise<ItemRow | undefined> {
  const rows = await liveItemById(db, tenant.accountId, tenant.environment, id)
  return rows[0]
}

/** The items among `ids` by id, in one query: live ones, and soft-deleted ones too when asked (deleted_at tells). */
export async function findItemRows(db: Executor, tenant: Tenant, ids: string[], options: { includeDeleted?: boolean } = {}): Promise<Map<string, ItemRow>> {
  if (ids.length === 0) return new Map()
  let select = db
    .selectFrom('inventory_items')
    .selectAll()
    .where('account_id', '=', tenant.accountId)
    .where('environment', '=', tenant.environment)
    .where('id', 'in', [...new Set(ids)])
  if (!options.includeDeleted) select = select.where('deleted_at', 'is', null)
  const rows = await select.execute()
  return new Map(rows.map((row) => [row.id, row]))
}

/** Locks one live item (FOR UPDATE) and answers it; undefined when there is none. */
export async function lockItemRow(trx: Trx, tenant: Tenant, id: string): Promise<ItemRow | undefined> {
  const rows = await lockedItemById(trx, tenant.accountId, tenant.environment, id)
  return rows[0]
}

/** Locks the live items among `ids`, in id order so concurrent writers never deadlock. */
export async function lockItemRows(trx: Trx, tenant: Tenant, ids: string[]): Promise<Map<string, ItemRow>> {
  if (ids.length === 0) return new Map()
  const rows = await liveItems(trx, tenant)
    .selectAll()
    .where('id', 'in', [...new Set(ids)])
    .orderBy('id')
    .forUpdate()
    .execute()
  return new Map(rows.map((row) => [row.id, row]))
}

/**
 * Holds the tenant's SKU until the transaction ends, so writers of one SKU check what its items at other
 * locations agree on (size_ml, unit) one after the other: two venues creating a new SKU at once with
 * different sizes cannot both pass. A SKU-scoped advisory lock, since the first item of a SKU has no row to lock.
 */
export async function lockSku(trx: Trx, tenant: Tenant, sku: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`inventory_items/sku/${tenant.accountId}/${tenant.environment}/${sku}`}, 0))`.execute(trx)
}

/** The live items of one SKU, one per location at most, by location. */
export async function liveItemsOfSku(db: Executor, tenant: Tenant, sku: string): Promise<ItemRow[]> {
  return liveItems(db, tenant).selectAll().where('sku', '=', sku).orderBy('location_id').execute()
}

/** The words of a search, each matched anywhere in the name or the SKU (apostrophes ignored: titos finds Tito's). */
function searchWords(q: string | undefined): string[] {
  return (q ?? '').replace(/['’]/g, '').split(/\s+/).filter(Boolean)
}

/** The live items a list query selects (filters and search, no order or page). */
function filteredItems(db: Executor, tenant: Tenant, query: ListItemsQuery) {
  let select = liveItems(db, tenant)
  if (query.location) select = select.where('location_id', '=', query.location)
  if (query.category) select = select.where('category', '=', query.category)
  if (query.low_stock) select = select.whereRef('quantity', '<', 'reorder_point')
  // below_par=false is the complement: at or above par, or without one.
  if (query.below_par === true) select = select.whereRef('quantity', '<', 'par_level')
  if (query.below_par === false) select = select.where((eb) => eb.or([eb('par_level', 'is', null), eb('quantity', '>=', eb.ref('par_level'))]))
  if (query.sku) select = select.where('sku', '=', query.sku)
  for (const word of searchWords(query.q)) {
    const pattern = `%${word.replace(/[\\%_]/g, (character) => `\\${character}`)}%`
    select = select.where((eb) => eb.or([eb(sql<string>`translate(name, ${"'’"}, '')`, 'ilike', pattern), eb('sku', 'ilike', pattern)]))
  }
  return select
}

export async function listItemRows(db: Executor, tenant: Tenant, query: ListItemsQuery, page: PageRequest) {
  const select = filteredItems(db, tenant, query)
  const sort = query.sort ?? 'name'
  const direction = query.order ?? 'asc'
  const rows = await select
    .selectAll()
    .select((eb) => eb.fn.countAll<number>().over().as('total'))
    .orderBy(sort, direction)
    .orderBy('id', direction)
    .limit(page.perPage)
    .offset(page.offset)
    .execute()
  // Past the last page no row carries the total: count separately.
  const total = rows[0] !== undefined ? Number(rows[0].total) : Number((await select.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)
  return { rows, total }
}

/**
 * Every item a list query selects, in its order, batch after batch. The keyset carries the sort value as
 * the database's text (a timestamp keeps its microseconds), which the comparison reads back in the
 * column's type.
 */
export async function* itemBatches(db: Executor, tenant: Tenant, query: ListItemsQuery): AsyncGenerator<InventoryItem[]> {
  const sort = query.sort ?? 'name'
  const direction = query.order ?? 'asc'
  const batches = keysetBatches(async (last: { id: string; sort_key: string } | undefined, size) => {
    let select = filteredItems(db, tenant, query)
      .selectAll()
      .select(sql<string>`${sql.ref(sort)}::text`.as('sort_key'))
    if (last) select = select.where(sql<boolean>`(${sql.ref(sort)}, id) ${sql.raw(direction === 'asc' ? '>' : '<')} (${last.sort_key}, ${last.id})`)
    return select.orderBy(sort, direction).orderBy('id', direction).limit(size).execute()
  })
  for await (const rows of batches) yield rows.map(rowToItem)
}

function itemMovements(db: Executor, tenant: Tenant, itemId: string) {
  return db.selectFrom('stock_movements').where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment).where('item_id', '=', itemId)
}

function rowToMovement(row: Selectable<StockMovementTable>): StockMovement {
  return {
    kind: row.kind,
    change: quantityOut(decimal(row.quantity_after).minus(row.quantity_before)),
    quantity_before: quantityOut(row.quantity_before),
    quantity_after: quantityOut(row.quantity_after),
    occurred_at: row.occurred_at.toISOString(),
    recorded_at: row.recorded_at.toISOString(),
    location: row.location_id,
    unit_cost: unitCostOut(row.unit_cost),
    actor: row.actor,
    reference_id: row.reference_id,
  }
}

/** A page of an item's ledger, newest first (by when it happened, then as recorded), and its length. */
export async function listMovementRows(db: Executor, tenant: Tenant, itemId: string, page: RowPage) {
  const movements = itemMovements(db, tenant, itemId)
  const { rows, total } = await pageWithTotal(movements.selectAll().orderBy('occurred_at', 'desc').orderBy('sequence', 'desc'), movements, page)
  return { movements: rows.map(rowToMovement), total }
}

/** An item's whole ledger, newest first, batch after batch (the keyset keeps occurred_at's microseconds as text). */
export async function* movementBatches(db: Executor, tenant: Tenant, itemId: string): AsyncGenerator<StockMovement[]> {
  const batches = keysetBatches(async (last: { sequence: string; occurred_key: string } | undefined, size) => {
    let select = itemMovements(db, tenant, itemId).selectAll().select(sql<string>`occurred_at::text`.as('occurred_key'))
    if (last) select = select.where(sql<boolean>`(occurred_at, sequence) < (${last.occurred_key}, ${last.sequence})`)
    return select.orderBy('occurred_at', 'desc').orderBy('sequence', 'desc').limit(size).execute()
  })
  for await (const rows of batches) yield rows.map(rowToMovement)
}

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

/** Stock value and live items per location and category (of one location, one SKU, or all), in cost_per_unit's money. */
export async function stockValueRows(db: Executor, tenant: Tenant, filter: { location?: string; sku?: string }) {
  let items = liveItems(db, tenant)
  if (filter.location !== undefined) items = items.where('location_id', '=', filter.location)
  if (filter.sku !== undefined) items = items.where('sku', '=', filter.sku)
  return items
    .select((eb) => ['location_id', 'category', sql<string>`sum(greatest(quantity, 0) * cost_per_unit)`.as('value'), eb.fn.countAll<number>().as('items')])
    .groupBy(['location_id', 'category'])
    .orderBy('location_id')
    .orderBy('category')
    .execute()
}

export async function countItemsAtLocation(db: Executor, tenant: Tenant, locationId: string): Promise<number> {
  const row = await liveItems(db, tenant)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('location_id', '=', locationId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * `+ what transfers, waste and deliveries moved as history` (no ledger row: dated before the item's anchor
 * when recorded), voided ones left out.
 */
function historyOperations(itemId: RawBuilder<unknown>, from: RawBuilder<unknown>, until: RawBuilder<unknown>) {
  return sql`+ coalesce((SELECT sum(${signedLineQuantity('o')}) FROM stock_operation_lines o
      WHERE o.item_id = ${itemId} AND NOT o.applied AND o.voided_at IS NULL AND o.occurred_at > ${from} ${until}), 0)`
}

/**
 * What moved the stock of the item `itemId` (an SQL column) in (from, to]: ledger deltas that are neither
 * sales nor absolute quantities (deliveries, batch changes, transfers and waste that took stock), less the
 * usage of the sale lines sold in it: only those that took current stock with `appliedOnly`, else every
 * one, and the transfers, waste and deliveries that are history too.
 */
function netMovement(itemId: RawBuilder<unknown>, from: RawBuilder<unknown>, to: RawBuilder<unknown> | undefined, appliedOnly: boolean) {
  const until = (column: string) => (to === undefined ? sql`` : sql`AND ${sql.ref(column)} <= ${to}`)
  return sql`(
    coalesce((SELECT sum(m.delta) FROM stock_movements m WHERE m.item_id = ${itemId} AND m.occurred_at > ${from} ${until('m.occurred_at')}
      AND m.kind <> 'sale' AND NOT m.anchor), 0)
    - coalesce((SELECT sum(u.units) FROM stock_sale_usage u WHERE u.item_id = ${itemId} AND u.sold_at > ${from} ${until('u.sold_at')}
      ${appliedOnly ? sql`AND u.applied` : sql``}), 0)
    ${appliedOnly ? sql`` : historyOperations(itemId, from, until('o.occurred_at'))})`
}

/**
 * How each item's stock moved after `since` by what stays on top of an anchor set at `since`: ledger
 * deltas that are neither sales nor absolute quantities (deliveries, batch changes), less the sales
 * applied to stock that were sold after `since` (from the per-line usage, exact to the line).
 */
export async function changeAfter(trx: Trx, itemIds: string[], since: Date): Promise<Map<string, string>> {
  if (itemIds.length === 0) return new Map()
  const result = await sql<{ item_id: string; change: string }>`
    SELECT id AS item_id, ${netMovement(sql.ref('i.id'), sql`${since}::timestamptz`, undefined, true)} AS change
    FROM inventory_items i WHERE i.id = ANY(${itemIds}::text[])`.execute(trx)
  return new Map(result.rows.map((row) => [row.item_id, String(row.change)]))
}

/**
 * Each item's theoretical stock at `at`, in one statement: from its latest known quantity at or before
 * `at` forward, else back from its earliest known quantity after `at`, by what physically moved the stock
 * in between (ledger deltas that are neither sales nor absolute quantities, less every sale sold, taken
 * from stock or history alike). A known quantity is an anchor of the ledger or a count, history counts
 * included: a count back-dated before the item's anchor leaves current stock alone, but it is what the
 * shelf held then, so the next count entered after the fact expects from it, as its variance window
 * does. Items without either are absent.
 */
export async function theoreticalStocksAt(db: Executor, itemIds: string[], at: Date): Promise<Map<string, string>> {
  if (itemIds.length === 0) return new Map()
  const net = (from: string, to: string) => netMovement(sql.ref('s.item_id'), sql.ref(from), sql.ref(to), false)
  const result = await sql<{ item_id: string; quantity: string }>`
    WITH s AS (SELECT unnest(${itemIds}::text[]) AS item_id, ${at}::timestamptz AS at),
    known AS (
      SELECT m.item_id, m.occurred_at, m.anchor_quantity AS quantity FROM stock_movements m JOIN s ON s.item_id = m.item_id WHERE m.anchor
      UNION ALL
      SELECT c.item_id, c.counted_at, c.actual FROM inventory_count_lines c JOIN s ON s.item_id = c.item_id),
    before AS (
      SELECT DISTINCT ON (k.item_id) k.item_id, k.occurred_at, k.quantity FROM known k JOIN s ON s.item_id = k.item_id
      WHERE k.occurred_at <= s.at ORDER BY k.item_id, k.occurred_at DESC),
    after AS (
      SELECT DISTINCT ON (k.item_id) k.item_id, k.occurred_at, k.quantity FROM known k JOIN s ON s.item_id = k.item_id
      WHERE k.occurred_at > s.at ORDER BY k.item_id, k.occurred_at)
    SELECT s.item_id, (CASE WHEN b.item_id IS NOT NULL THEN b.quantity + ${net('b.occurred_at', 's.at')}
      ELSE a.quantity - ${net('s.at', 'a.occurred_at')} END)::text AS quantity
    FROM s LEFT JOIN before b ON b.item_id = s.item_id LEFT JOIN after a ON a.item_id = s.item_id
    WHERE b.item_id IS NOT NULL OR a.item_id IS NOT NULL`.execute(db)
  return new Map(result.rows.map((row) => [row.item_id, row.quantity]))
}

/** The live item of the named item's SKU at a location, for one of the pairs asked about (`ord`: its index). */
export interface SkuItemAt {
  ord: number
  named: { unit: string; case_size: number | null }
  local: { id: string; unit: string; case_size: number | null }
}

/**
 * For each (item, location) pair, the live item of the item's SKU at that location (the item itself when
 * it is there), in one query; pairs whose location stocks no live item of the SKU are absent.
 */
export async function skuItemsAt(db: Executor, tenant: Tenant, pairs: { itemId: string; location: string }[]): Promise<SkuItemAt[]> {
  if (pairs.length === 0) return []
  const result = await sql<{ ord: number; named_unit: string; named_case_size: number | null; id: string; unit: string; case_size: number | null }>`
    SELECT p.ord::int - 1 AS ord, n.unit AS named_unit, n.case_size AS named_case_size, l.id, l.unit, l.case_size
    FROM unnest(${pairs.map((pair) => pair.itemId)}::text[], ${pairs.map((pair) => pair.location)}::text[]) WITH ORDINALITY AS p (item_id, location_id, ord)
    JOIN inventory_items n ON n.id = p.item_id AND n.account_id = ${tenant.accountId} AND n.environment = ${tenant.environment}
    JOIN inventory_items l ON l.account_id = n.account_id AND l.environment = n.environment AND l.sku = n.sku
      AND l.location_id = p.location_id AND l.deleted_at IS NULL`.execute(db)
  return result.rows.map((row) => ({
    ord: row.ord,
    named: { unit: row.named_unit, case_size: row.named_case_size },
    local: { id: row.id, unit: row.unit, case_size: row.case_size },
  }))
}

/** The items that hold usage of the sale lines `source` names (before it is restated). */
export async function itemsUsedByLines(trx: Trx, tenant: Tenant, source: RawBuilder<unknown>): Promise<string[]> {
  const result = await sql<{ item_id: string }>`
    SELECT DISTINCT u.item_id FROM stock_sale_usage u
    WHERE u.account_id = ${tenant.accountId} AND u.environment = ${tenant.environment}
      AND u.sale_line IN (SELECT s.sale_line FROM (${source}) AS s)`.execute(trx)
  return result.rows.map((row) => row.item_id)
}

/**
 * Records per-line sale usage from `source` for the tenant's live items, each row with the item's location
 * (where stock was taken) and the line's (where it was sold), and the item's cost in force when the line
 * was sold (a line imported into the past is costed at its time, not today's); a (line, item) stored
 * before is skipped.
 */
export async function insertSaleUsage(trx: Trx, tenant: Tenant, batchId: string, source: RawBuilder<unknown>): Promise<void> {
  await sql`
    INSERT INTO stock_sale_usage (account_id, environment, item_id, location_id, sale_location_id, sale_line, recipe_id, sold_at, units, unit_cost,
      applied, batch_id)
    SELECT i.account_id, i.environment, i.id, i.location_id, s.sale_location_id, s.sale_line, s.recipe_id, s.sold_at, s.units,
      ${itemCostAt(sql.ref('i.id'), sql.ref('s.sold_at'))}, s.sold_at > i.anchored_at, ${batchId}
    FROM (${source}) AS s
    JOIN inventory_items i ON i.id = s.item_id AND i.account_id = ${tenant.accountId} AND i.environment = ${tenant.environment}
      AND i.deleted_at IS NULL
    ON CONFLICT (sale_line, item_id, sold_at) DO NOTHING`.execute(trx)
}

export interface UsageDay {
  item_id: string
  /** Units applied to stock that business day (0 when all of it was history). */
  applied_units: string
  /** The day's latest applied sale, null when none was applied. */
  last_applied_at: Date | null
}

/**
 * Usage rows `r` (a relation with the usage columns and `took_stock`) summed per item and business day
 * of the row's location: the units that took current stock, and the day's last such sale.
 */
function usageByBusinessDay(rows: RawBuilder<unknown>) {
  return sql<UsageDay>`
    SELECT r.item_id, (coalesce(sum(r.units) FILTER (WHERE r.took_stock), 0))::text AS applied_units,
      max(r.sold_at) FILTER (WHERE r.took_stock) AS last_applied_at
    FROM ${rows} r
    JOIN locations l ON l.account_id = r.account_id AND l.environment = r.environment AND l.id = r.location_id
    GROUP BY r.item_id, business_day(r.sold_at, l.timezone, l.business_day_cutoff)
    ORDER BY r.item_id, business_day(r.sold_at, l.timezone, l.business_day_cutoff)`
}

/** A usage batch summed per item and business day of the item's location, oldest day first. */
export async function usageDaysOfBatch(trx: Trx, batchId: string): Promise<UsageDay[]> {
  // Materialized, so the batch is read by its own index whatever the statistics say: on a table not yet
  // analyzed (a first import of months of sales, or autovacuum off) the planner read the location's
  // whole history by the location index and filtered it, a cost growing with every import.
  const result = await sql<UsageDay>`
    WITH batch AS MATERIALIZED (SELECT *, applied AS took_stock FROM stock_sale_usage WHERE batch_id = ${batchId})
    ${usageByBusinessDay(sql`batch`)}`.execute(trx)
  return result.rows
}

/**
 * The live items name matching chooses among, one per SKU (an item is a product at a location, and a
 * mapping stands for its SKU): the one at `location` where that location stocks the SKU, else one kept
 * by its own unit rather than by the case; with the fields matching needs and its location.
 */
export async function listItemsForMatching(db: Executor, tenant: Tenant, location: string) {
  return liveItems(db, tenant)
    .distinctOn('sku')
    .select(['id', 'name', 'unit', 'size_ml', 'category', 'location_id'])
    .orderBy('sku')
    .orderBy(sql`location_id = ${location}`, 'desc')
    .orderBy(sql`unit = 'case'`)
    .orderBy('id')
    .execute()
}

/** An item as reports read it: what names, units, places and costs it. */
export interface ReportItem {
  id: string
  name: string
  location_id: string
  category: string
  unit: string
  size_ml: number | null
  /** A decimal string. */
  cost_per_unit: string
}

/**
 * Live items, optionally of one location and one category, by name then id, with the fields reports read
 * (a report reads a thousand: every column of them, timestamps parsed, cost the driver four times as much).
 */
export async function liveReportItemsIn(db: Executor, tenant: Tenant, scope: { location?: string; category?: string }): Promise<ReportItem[]> {
  let query = liveItems(db, tenant).select(['id', 'name', 'location_id', 'category', 'unit', 'size_ml', 'cost_per_unit'])
  if (scope.location) query = query.where('location_id', '=', scope.location)
  if (scope.category) query = query.where('category', '=', scope.category)
  return query.orderBy('name').orderBy('id').execute()
}

export async function findItemRowsInCategories(db: Executor, tenant: Tenant, categories: string[]): Promise<ItemRow[]> {
  if (categories.length === 0) return []
  return liveItems(db, tenant)
    .selectAll()
    .where('category', 'in', [...new Set(categories)])
    .orderBy('name')
    .orderBy('id')
    .execute()
}

export interface DeliveryUnitCost {
  /** The unit cost its latest delivery was received at (4 decimals). */
  unitCost: string
  deliveredAt: Date
}

/**
 * Per item among `itemIds`, the unit cost of its latest delivery by time, a ledger row or a history line
 * (dated before the item's anchor); items never delivered are absent.
 */
export async function lastDeliveryUnitCosts(db: Executor, tenant: Tenant, itemIds: string[]): Promise<Map<string, DeliveryUnitCost>> {
  if (itemIds.length === 0) return new Map()
  const ids = [...new Set(itemIds)]
  const result = await sql<{ item_id: string; unit_cost: string; occurred_at: Date }>`
    SELECT DISTINCT ON (item_id) item_id, unit_cost::text AS unit_cost, occurred_at FROM (
      SELECT m.item_id, m.unit_cost, m.occurred_at, m.sequence FROM stock_movements m
      WHERE m.account_id = ${tenant.accountId} AND m.environment = ${tenant.environment} AND m.kind = 'delivery'
        AND m.item_id = ANY(${ids}::text[])
      UNION ALL
      SELECT l.item_id, l.unit_cost, l.occurred_at, l.sequence FROM stock_operation_lines l
      WHERE l.account_id = ${tenant.accountId} AND l.environment = ${tenant.environment} AND l.kind = 'delivery'
        AND l.item_id = ANY(${ids}::text[]) AND l.voided_at IS NULL) deliveries
    ORDER BY item_id, occurred_at DESC, sequence DESC`.execute(db)
  return new Map(result.rows.map((row) => [row.item_id, { unitCost: row.unit_cost, deliveredAt: row.occurred_at }]))
}

/**
 * Removes the stored usage of the sale lines `source` names, answering per item and business day the
 * units of it that stood after the item's anchor (and so had taken current stock).
 */
export async function removeSaleUsageOfLines(trx: Trx, tenant: Tenant, source: RawBuilder<unknown>): Promise<UsageDay[]> {
  const result = await sql<UsageDay>`
    WITH removed AS (
      DELETE FROM stock_sale_usage u
      WHERE u.account_id = ${tenant.accountId} AND u.environment = ${tenant.environment}
        AND u.sale_line IN (SELECT s.sale_line FROM (${source}) AS s)
      RETURNING u.*)
    ${usageByBusinessDay(sql`(SELECT removed.*, removed.sold_at > i.anchored_at AS took_stock FROM removed JOIN inventory_items i ON i.id = removed.item_id)`)}`.execute(trx)
  return result.rows
}
