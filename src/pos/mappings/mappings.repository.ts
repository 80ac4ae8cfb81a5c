import { type Selectable, sql } from 'kysely'
import type { Executor, Tenant, Trx } from '../../platform/db/database.js'
import { toDbNumeric } from '../../platform/decimal.js'
import type { PageRequest } from '../../platform/http/pagination.js'
import type { PosProduct, PosStaffMember } from '../vendors/adapter.js'
import type { ListMappingsQuery } from './mappings.schemas.js'
import type { PosMappingTable } from './mappings.tables.js'
import { pageWithTotal } from '../../platform/db/page.js'

export type MappingRow = Selectable<PosMappingTable>

export async function mappingsOf(db: Executor, connectionId: string, posItemIds?: string[]): Promise<Map<string, MappingRow>> {
  if (posItemIds?.length === 0) return new Map()
  let query = db.selectFrom('pos_mappings').selectAll().where('connection_id', '=', connectionId)
  if (posItemIds) query = query.where('pos_item_id', 'in', posItemIds)
  const rows = await query.execute()
  return new Map(rows.map((row) => [row.pos_item_id, row]))
}

export async function findMapping(db: Executor, connectionId: string, posItemId: string): Promise<MappingRow | undefined> {
  return db.selectFrom('pos_mappings').selectAll().where('connection_id', '=', connectionId).where('pos_item_id', '=', posItemId).executeTakeFirst()
}

export async function insertMapping(trx: Trx, row: Omit<MappingRow, 'created_at' | 'updated_at'>): Promise<MappingRow> {
  return trx.insertInto('pos_mappings').values(row).returningAll().executeTakeFirstOrThrow()
}

/** What a mapping takes and at what conversion: exactly one of the two ids, conversion_unit null for a recipe. */
export type MappingTargetColumns = Pick<MappingRow, 'inventory_item_id' | 'recipe_id' | 'conversion_factor' | 'conversion_unit'>

export async function updateMappingRow(trx: Trx, connectionId: string, posItemId: string, fields: MappingTargetColumns) {
  return trx
    .updateTable('pos_mappings')
    .set({ ...fields, updated_at: new Date() })
    .where('connection_id', '=', connectionId)
    .where('pos_item_id', '=', posItemId)
    .returningAll()
    .executeTakeFirst()
}

export async function deleteMappingRow(trx: Trx, connectionId: string, posItemId: string): Promise<boolean> {
  const result = await trx.deleteFrom('pos_mappings').where('connection_id', '=', connectionId).where('pos_item_id', '=', posItemId).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

interface PosItemKey {
  tenant: Tenant
  connectionId: string
}

/** Records catalog products: new ones appear in the mappings list, known ones take the POS's latest name. */
export async function upsertProducts(trx: Trx, key: PosItemKey, products: PosProduct[], syncedAt: Date): Promise<void> {
  if (products.length === 0) return
  const column = <T>(pick: (product: PosProduct) => T) => products.map(pick)
  await sql`
    INSERT INTO pos_items (connection_id, pos_item_id, account_id, environment, name, category, sku, price, last_synced)
    SELECT ${key.connectionId}, p.id, ${key.tenant.accountId}, ${key.tenant.environment}, p.name, p.category, p.sku, p.price, ${syncedAt}
    FROM unnest(${column((p) => p.posItemId)}::text[], ${column((p) => p.name)}::text[], ${column((p) => p.category)}::text[],
      ${column((p) => p.sku)}::text[], ${column((p) => p.price)}::numeric[]) AS p (id, name, category, sku, price)
    ON CONFLICT (connection_id, pos_item_id) DO UPDATE SET
      name = excluded.name, category = excluded.category, sku = excluded.sku, price = excluded.price, last_synced = excluded.last_synced`.execute(trx)
}

/** Records POS items seen only in sales (kept as the POS named them; the catalog's data wins later). */
export async function addSoldItems(trx: Trx, key: PosItemKey, items: Map<string, string>, seenAt: Date): Promise<void> {
  if (items.size === 0) return
  await sql`
    INSERT INTO pos_items (connection_id, pos_item_id, account_id, environment, name, last_synced)
    SELECT ${key.connectionId}, s.id, ${key.tenant.accountId}, ${key.tenant.environment}, s.name, ${seenAt}
    FROM unnest(${[...items.keys()]}::text[], ${[...items.values()]}::text[]) AS s (id, name)
    ON CONFLICT (connection_id, pos_item_id) DO UPDATE SET last_synced = excluded.last_synced`.execute(trx)
}

/** A POS item a mapping names before the POS reported it. */
export async function ensurePosItem(trx: Trx, key: PosItemKey, posItemId: string, name: string): Promise<void> {
  await trx
    .insertInto('pos_items')
    .values({ connection_id: key.connectionId, pos_item_id: posItemId, account_id: key.tenant.accountId, environment: key.tenant.environment, name })
    .onConflict((conflict) => conflict.columns(['connection_id', 'pos_item_id']).doNothing())
    .execute()
}

export async function upsertStaff(trx: Trx, key: PosItemKey, staff: PosStaffMember[], syncedAt: Date): Promise<void> {
  if (staff.length === 0) return
  await sql`
    INSERT INTO pos_staff (connection_id, staff_id, account_id, environment, name, role, last_synced)
    SELECT ${key.connectionId}, s.id, ${key.tenant.accountId}, ${key.tenant.environment}, s.name, s.role, ${syncedAt}
    FROM unnest(${staff.map((s) => s.staffId)}::text[], ${staff.map((s) => s.name)}::text[], ${staff.map((s) => s.role)}::text[])
      AS s (id, name, role)
    ON CONFLICT (connection_id, staff_id) DO UPDATE SET name = excluded.name, role = excluded.role, last_synced = excluded.last_synced`.execute(trx)
}

export async function countPosItems(db: Executor, connectionId: string): Promise<number> {
  const row = await db
    .selectFrom('pos_items')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('connection_id', '=', connectionId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function unmappedPosItems(db: Executor, connectionId: string): Promise<{ posItemId: string; name: string; rejectedItemId: string | null }[]> {
  const rows = await db
    .selectFrom('pos_items as p')
    .leftJoin('pos_mappings as m', (join) => join.onRef('m.connection_id', '=', 'p.connection_id').onRef('m.pos_item_id', '=', 'p.pos_item_id'))
    .select(['p.pos_item_id', 'p.name', 'p.rejected_item_id'])
    .where('p.connection_id', '=', connectionId)
    .where('m.pos_item_id', 'is', null)
    .orderBy('p.pos_item_id')
    .execute()
  return rows.map((row) => ({ posItemId: row.pos_item_id, name: row.name, rejectedItemId: row.rejected_item_id }))
}

export async function setSuggestion(trx: Trx, connectionId: string, posItemId: string, suggestion: { itemId: string; confidence: number; reason: string } | null) {
  await trx
    .updateTable('pos_items')
    .set({
      suggested_item_id: suggestion?.itemId ?? null,
      suggested_confidence: suggestion ? toDbNumeric(suggestion.confidence) : null,
      suggested_reason: suggestion?.reason ?? null,
    })
    .where('connection_id', '=', connectionId)
    .where('pos_item_id', '=', posItemId)
    .execute()
}

/** Drops the POS item's suggestion and remembers its item as rejected; the rejected item id, or undefined when there was no suggestion. */
export async function rejectSuggestionRow(trx: Trx, connectionId: string, posItemId: string): Promise<string | undefined> {
  const row = await trx
    .updateTable('pos_items')
    .set((eb) => ({ rejected_item_id: eb.ref('suggested_item_id'), suggested_item_id: null, suggested_confidence: null, suggested_reason: null }))
    .where('connection_id', '=', connectionId)
    .where('pos_item_id', '=', posItemId)
    .where('suggested_item_id', 'is not', null)
    .returning('rejected_item_id')
    .executeTakeFirst()
  return row?.rejected_item_id ?? undefined
}

/** The list's filters; posItemId narrows it to one entry. */
export type MappingFilter = ListMappingsQuery & { posItemId?: string }

function mappingListQuery(db: Executor, connectionId: string, query: MappingFilter) {
  let select = db
    .selectFrom('pos_items as p')
    .leftJoin('pos_mappings as m', (join) => join.onRef('m.connection_id', '=', 'p.connection_id').onRef('m.pos_item_id', '=', 'p.pos_item_id'))
    .where('p.connection_id', '=', connectionId)
  if (query.posItemId !== undefined) select = select.where('p.pos_item_id', '=', query.posItemId)
  if (query.mapped !== undefined) select = select.where('m.pos_item_id', query.mapped ? 'is not' : 'is', null)
  if (query.category !== undefined) select = select.where('p.category', '=', query.category)
  return select
}

/** An entry of the mappings list as POS stores it: names of inventory items and recipes are inventory's and recipes' to give. */
export interface MappingListRow {
  pos_item_id: string
  pos_name: string
  category: string | null
  last_synced: Date | null
  suggested_item_id: string | null
  suggested_confidence: string | null
  suggested_reason: string | null
  inventory_item_id: string | null
  recipe_id: string | null
  conversion_factor: string | null
  conversion_unit: string | null
  created_at: Date | null
  updated_at: Date | null
}

export async function listMappingRows(db: Executor, connectionId: string, query: MappingFilter, page: PageRequest): Promise<{ rows: MappingListRow[]; total: number }> {
  return pageWithTotal(
    mappingListQuery(db, connectionId, query)
      .select([
        'p.pos_item_id',
        'p.name as pos_name',
        'p.category',
        'p.last_synced',
        'p.suggested_item_id',
        'p.suggested_confidence',
        'p.suggested_reason',
        'm.inventory_item_id',
        'm.recipe_id',
        'm.conversion_factor',
        'm.conversion_unit',
        'm.created_at',
        'm.updated_at',
      ])
      .orderBy('p.name')
      .orderBy('p.pos_item_id'),
    mappingListQuery(db, connectionId, query),
    page,
  )
}
