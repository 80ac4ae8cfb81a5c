import type { Environment, Executor, Tenant, Trx } from '../platform/db/database.js'
import { type Bind, precompiled, precompiledShapes, type Shaped } from '../platform/db/precompiled.js'
import { decimal, quantityOut, unitCostOut } from '../platform/decimal.js'
import { keysetBatches } from '../platform/db/keyset-batches.js'
import { textList } from '../platform/db/text-list.js'
import type { InventoryItem, ItemStock, ListItemsQuery, StockMovement } from './inventory.schemas.js'
import type { InventoryItemTable, StockMovementTable } from './inventory.tables.js'
import type { PageRequest } from '../platform/http/pagination.js'
import { type Insertable, type Selectable, sql, type Updateable } from 'kysely'
import { pageWithTotal, type RowPage } from '../platform/db/page.js'

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

export function liveItems(db: Executor, tenant: Tenant) {
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

/** Inserts an item and answers its row (its stock is then set through the ledger). */
export async function insertItemRow(trx: Trx, values: Insertable<InventoryItemTable>): Promise<ItemRow> {
  return trx.insertInto('inventory_items').values(values).returningAll().executeTakeFirstOrThrow()
}

/** Changes an item's fields, stamping last_updated, and answers its row. */
export async function updateItemRow(trx: Trx, id: string, fields: Updateable<InventoryItemTable>): Promise<ItemRow> {
  return trx
    .updateTable('inventory_items')
    .set({ ...fields, last_updated: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** Deletes an item softly: kept for the ledger and past orders, gone from every list. */
export async function markItemDeleted(trx: Trx, id: string): Promise<void> {
  await trx.updateTable('inventory_items').set({ deleted_at: new Date() }).where('id', '=', id).execute()
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

/**
 * A page of a list query with the total in every row, compiled once per shape of query (which filters,
 * sort and order): building and compiling it cost a list request several percent of its CPU. A search
 * (q) is built each time: its patterns are made from the words, and its shapes are many.
 */
type PageArgs = [tenant: Tenant, query: ListItemsQuery, page: PageRequest]

/** A list page's shape, its bound values passed through `bind`; a search is left out (see itemPage). */
function pageShape(bind: Bind, tenant: Tenant, query: ListItemsQuery, page: PageRequest): Shaped<PageArgs> | undefined {
  if (query.q) return undefined
  return {
    key: [!!query.location, !!query.category, query.low_stock, query.below_par, !!query.sku, query.sort, query.order].join(),
    args: [
      { accountId: bind(tenant.accountId), environment: bind(tenant.environment) },
      { ...query, location: query.location && bind(query.location), category: query.category && bind(query.category), sku: query.sku && bind(query.sku) },
      { ...page, perPage: bind(page.perPage), offset: bind(page.offset) },
    ],
  }
}

/**
 * A page of a list query with the total in every row, compiled once per shape of query (which filters,
 * sort and order): building and compiling it cost a list request several percent of its CPU. A search
 * (q) is built each time: its patterns are made from the words, and its shapes are many.
 */
const itemPage = precompiledShapes(pageShape, (db, ...[tenant, query, page]: PageArgs) =>
  filteredItems(db, tenant, query)
    .selectAll()
    .select((eb) => eb.fn.countAll<number>().over().as('total'))
    .orderBy(query.sort ?? 'name', query.order ?? 'asc')
    .orderBy('id', query.order ?? 'asc')
    .limit(page.perPage)
    .offset(page.offset),
)

export async function listItemRows(db: Executor, tenant: Tenant, query: ListItemsQuery, page: PageRequest) {
  const rows = await itemPage(db, tenant, query, page)
  // Past the last page no row carries the total: count separately.
  const total =
    rows[0] !== undefined
      ? Number(rows[0].total)
      : Number(
          (
            await filteredItems(db, tenant, query)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        )
  return { rows, total }
}

/**
 * The items a list query selects that follow `last` in its order, by keyset, the sort value given as
 * `sort_key`: the database's text (a timestamp keeps its microseconds), which the comparison reads back in
 * the column's type. The caller picks the columns and the limit.
 */
function itemsAfter(db: Executor, tenant: Tenant, query: ListItemsQuery, last: { id: string; sort_key: string } | undefined) {
  const sort = query.sort ?? 'name'
  const direction = query.order ?? 'asc'
  let select = filteredItems(db, tenant, query).select(sql<string>`${sql.ref(sort)}::text`.as('sort_key'))
  if (last) select = select.where(sql<boolean>`(${sql.ref(sort)}, id) ${sql.raw(direction === 'asc' ? '>' : '<')} (${last.sort_key}, ${last.id})`)
  return select.orderBy(sort, direction).orderBy('id', direction)
}

/** Every item a list query selects, in its order, batch after batch: `batchSize` rows a statement (an export's default). */
export async function* itemBatches(db: Executor, tenant: Tenant, query: ListItemsQuery, batchSize?: number): AsyncGenerator<InventoryItem[]> {
  const batches = keysetBatches((last: { id: string; sort_key: string } | undefined, size) => itemsAfter(db, tenant, query, last).selectAll().limit(size).execute(), batchSize)
  for await (const rows of batches) yield rows.map(rowToItem)
}

/** The columns of an item its stock is read from (ItemStock). */
const STOCK_COLUMNS = ['id', 'name', 'unit', 'location_id', 'quantity', 'reorder_point'] as const

function rowToStock(row: Pick<ItemRow, (typeof STOCK_COLUMNS)[number]>): ItemStock {
  return { id: row.id, name: row.name, unit: row.unit, location: row.location_id, quantity: quantityOut(row.quantity), reorder_point: quantityOut(row.reorder_point) }
}

/**
 * itemBatches with each item's stock only: no dates, costs or weights read and parsed (in a forecast of
 * 2,000 items, building whole items was about a tenth of the endpoint's CPU).
 */
export async function* itemStockBatches(db: Executor, tenant: Tenant, query: ListItemsQuery, batchSize?: number): AsyncGenerator<ItemStock[]> {
  const batches = keysetBatches(
    (last: { id: string; sort_key: string } | undefined, size) => itemsAfter(db, tenant, query, last).select(STOCK_COLUMNS).limit(size).execute(),
    batchSize,
  )
  for await (const rows of batches) yield rows.map(rowToStock)
}

/** The stock of the live items among `ids` that a list query's filters keep. */
export async function itemStockRows(db: Executor, tenant: Tenant, query: ListItemsQuery, ids: string[]): Promise<ItemStock[]> {
  if (ids.length === 0) return []
  const rows = await filteredItems(db, tenant, query)
    .where('id', '=', sql<string>`any(${textList(ids)})`)
    .select(STOCK_COLUMNS)
    .execute()
  return rows.map(rowToStock)
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
