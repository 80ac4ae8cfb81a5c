import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { quantityOut, unitCostOut } from '../platform/decimal.js'
import type { InventoryItem, ListItemsQuery } from './inventory.schemas.js'
import type { InventoryItemTable } from './inventory.tables.js'
import type { PageRequest } from '../platform/http/pagination.js'
import type { Selectable } from 'kysely'

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
    created_at: row.created_at.toISOString(),
    last_updated: row.last_updated.toISOString(),
  }
}

function liveItems(db: Executor, tenant: Tenant) {
  return db
    .selectFrom('inventory_items')
    .where('account_id', '=', tenant.accountId)
    .where('environment', '=', tenant.environment)
    .where('deleted_at', 'is', null)
}

export async function findItemRow(db: Executor, tenant: Tenant, id: string): Promise<ItemRow | undefined> {
  return liveItems(db, tenant).selectAll().where('id', '=', id).executeTakeFirst()
}

/** The items among `ids` by id, in one query: live ones, and soft-deleted ones too when asked (deleted_at tells). */
export async function findItemRows(
  db: Executor,
  tenant: Tenant,
  ids: string[],
  options: { includeDeleted?: boolean } = {},
): Promise<Map<string, ItemRow>> {
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

export async function listItemRows(db: Executor, tenant: Tenant, query: ListItemsQuery, page: PageRequest) {
  let select = liveItems(db, tenant)
  if (query.location) select = select.where('location_id', '=', query.location)
  if (query.category) select = select.where('category', '=', query.category)
  if (query.low_stock) select = select.whereRef('quantity', '<', 'reorder_point')
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
  const total =
    rows[0] !== undefined
      ? Number(rows[0].total)
      : Number((await select.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)
  return { rows, total }
}

export async function countItemsAtLocation(db: Executor, tenant: Tenant, locationId: string): Promise<number> {
  const row = await liveItems(db, tenant)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('location_id', '=', locationId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The sum of each item's ledger deltas recorded as occurring after `since`. */
export async function movementsSince(trx: Trx, itemIds: string[], since: Date): Promise<Map<string, string>> {
  if (itemIds.length === 0) return new Map()
  const rows = await trx
    .selectFrom('stock_movements')
    .select(['item_id', (eb) => eb.fn.sum<string>('delta').as('total')])
    .where('item_id', 'in', itemIds)
    .where('occurred_at', '>', since)
    .groupBy('item_id')
    .execute()
  return new Map(rows.map((row) => [row.item_id, String(row.total)]))
}

/** When the item was last counted: sales before it are already in the counted quantity. */
export async function lastCountedAt(db: Executor, itemId: string): Promise<Date | undefined> {
  const row = await db
    .selectFrom('stock_movements')
    .select((eb) => eb.fn.max('occurred_at').as('at'))
    .where('item_id', '=', itemId)
    .where('kind', '=', 'count')
    .executeTakeFirst()
  return (row?.at as Date | null) ?? undefined
}

/** The live items with the fields name matching needs. */
export async function listItemsForMatching(db: Executor, tenant: Tenant) {
  return liveItems(db, tenant).select(['id', 'name', 'unit', 'size_ml', 'category']).execute()
}
