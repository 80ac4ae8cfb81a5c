import { checkDecimalPlaces } from '../platform/number-input.js'
import { parsePastTime } from '../platform/http/date-filter.js'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { type Decimal, decimal, decimalPlaces, QUANTITY_INPUT_DECIMALS, toDbNumeric, UNIT_COST_DECIMALS } from '../platform/decimal.js'
import { AppError, invalidParameter } from '../platform/errors.js'
import type { PageRequest } from '../platform/http/pagination.js'
import { newId } from '../platform/ids.js'
import { getLocation } from '../locations/index.js'
import { inventoryErrors } from './inventory.errors.js'
import {
  type ItemRow,
  insertItemRow,
  markItemDeleted,
  updateItemRow,
  findItemRow,
  findItemRows,
  listItemRows,
  liveItemsOfSku,
  lockSku,
  listMovementRows,
  itemBatches,
  itemStockBatches,
  itemStockRows,
  movementBatches,
  lockItemRow,
  lockItemRows,
  rowToItem,
} from './inventory.repository.js'
import type { BatchBody, BatchResult, CreateItemBody, InventoryItem, ItemStock, ListItemsQuery, UpdateItemBody } from './inventory.schemas.js'
import { itemWeightsAfter } from './container-weights.js'
import { notifyIfNewlyLow, setStock, type StockMovement } from './stock-ledger.js'
import { recordCostChanges } from './item-costs.js'
import { isUnit, UNITS } from './units.js'
import { changeAfter } from './theoretical-stock.repository.js'

/** A stock quantity from the API: zero or more, at most 3 decimals (invalid_quantity otherwise). */
export function parseQuantity(value: number, field: string): Decimal {
  if (!Number.isFinite(value) || value < 0) {
    throw inventoryErrors.invalidQuantity(`${field} must be zero or a positive number, got ${value}`, { parameter: field, value })
  }
  if (decimalPlaces(value) > QUANTITY_INPUT_DECIMALS) {
    throw inventoryErrors.invalidQuantity(`${field} takes at most ${QUANTITY_INPUT_DECIMALS} decimals, got ${value}`, {
      parameter: field,
      value,
    })
  }
  return decimal(value)
}

function checkUnit(unit: string): void {
  if (!isUnit(unit)) throw inventoryErrors.invalidUnit([unit, UNITS.join(', ')], { parameter: 'unit', value: unit })
}

/** A par level from the API as its column's value: null clears it, absent (undefined) keeps it. Throws invalid_quantity. */
function parLevelColumn(value: number | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value
  return toDbNumeric(parseQuantity(value, 'par_level'))
}

function checkCost(value: number | undefined): void {
  if (value !== undefined) checkDecimalPlaces('cost_per_unit', value, UNIT_COST_DECIMALS)
}

const UNIQUE_VIOLATION = '23505'

/** Runs a statement that may hit the unique index of live SKUs per location, answering 409 duplicate_sku for it. */
async function guardSku<T>(product: ProductFields, statement: () => Promise<T>): Promise<T> {
  try {
    return await statement()
  } catch (error) {
    const pgError = error as { code?: string; constraint?: string }
    if (pgError.code === UNIQUE_VIOLATION && pgError.constraint === 'inventory_items_sku_per_location') throw duplicateAt(product)
    throw error
  }
}

/** What an item must agree on with the items of its SKU at other locations, and where it is. */
type ProductFields = Pick<ItemRow, 'sku' | 'location_id' | 'unit' | 'size_ml'> & { id?: string }

function duplicateAt(product: ProductFields) {
  return inventoryErrors.duplicateSku([product.sku, `already exists at ${product.location_id}`], { sku: product.sku })
}

function sizeText(sizeMl: number | null): string {
  return sizeMl === null ? 'without size_ml' : `${sizeMl} ml`
}

/**
 * Why `product` cannot be the product that `other` (its SKU at another location) is, or undefined when it
 * can: one SKU has one size_ml everywhere, and one unit, except that a case stands for the units it holds
 * (a storeroom may keep by the case what the bars keep by the bottle).
 */
function productConflict(product: ProductFields, other: ItemRow): { field: 'size_ml' | 'unit'; message: string } | undefined {
  const where = `at ${other.location_id} (item ${other.id})`
  if (product.size_ml !== other.size_ml) {
    return { field: 'size_ml', message: `is ${sizeText(other.size_ml)} ${where}, not ${sizeText(product.size_ml)}: a SKU has one size_ml at every location` }
  }
  if (product.unit === other.unit || product.unit === 'case' || other.unit === 'case') return undefined
  return { field: 'unit', message: `is kept in ${other.unit} ${where}, not ${product.unit}: a SKU has one unit at every location, or case` }
}

/**
 * Checks a product about to be written against its SKU's other live items: one at its own location is
 * duplicate_sku, one elsewhere that disagrees (productConflict) is duplicate_sku with details.field. The
 * SKU stays locked to the end of the transaction, so the write lands before another writer of the SKU checks.
 */
async function checkProduct(trx: Trx, tenant: Tenant, product: ProductFields): Promise<void> {
  await lockSku(trx, tenant, product.sku)
  for (const other of await liveItemsOfSku(trx, tenant, product.sku)) {
    if (other.id === product.id) continue
    if (other.location_id === product.location_id) throw duplicateAt(product)
    const conflict = productConflict(product, other)
    if (conflict) {
      throw inventoryErrors.duplicateSku([product.sku, conflict.message], {
        sku: product.sku,
        field: conflict.field,
        value: product[conflict.field],
        item_id: other.id,
        location: other.location_id,
      })
    }
  }
}

/** Of `ids`, those that are live items at the location (a location's shelf order holds only these). */
export async function liveItemIdsAt(db: Executor, tenant: Tenant, location: string, ids: string[]): Promise<Set<string>> {
  const rows = await findItemRows(db, tenant, ids)
  return new Set([...rows.values()].filter((row) => row.location_id === location).map((row) => row.id))
}

export async function getItem(db: Executor, tenant: Tenant, id: string): Promise<InventoryItem> {
  const row = await findItemRow(db, tenant, id)
  if (!row) throw inventoryErrors.itemNotFound(id)
  return rowToItem(row)
}

/** Throws location_not_found when a list's location filter names no location (an empty list would mislead). */
export async function checkLocationFilter(db: Executor, tenant: Tenant, location: string | undefined): Promise<void> {
  if (location !== undefined) await getLocation(db, tenant, location)
}

/** A page of an item's stock ledger, newest first. Throws item_not_found. */
export async function listMovements(db: Executor, tenant: Tenant, itemId: string, page: PageRequest) {
  await getItem(db, tenant, itemId)
  return listMovementRows(db, tenant, itemId, page)
}

/** An item's whole ledger, newest first, in batches. Throws item_not_found before any row is read. */
export async function exportMovements(db: Executor, tenant: Tenant, itemId: string) {
  await getItem(db, tenant, itemId)
  return movementBatches(db, tenant, itemId)
}

/** A page of items; a `location` filter naming no location is 404 location_not_found, not an empty list. */
export async function listItems(db: Executor, tenant: Tenant, query: ListItemsQuery, page: PageRequest) {
  await checkLocationFilter(db, tenant, query.location)
  const { rows, total } = await listItemRows(db, tenant, query, page)
  return { items: rows.map(rowToItem), total }
}

/** Every item of a list query (its filters and order, no page), in an export's batches. Throws location_not_found before any is read. */
export async function exportItems(db: Executor, tenant: Tenant, query: ListItemsQuery): Promise<AsyncIterable<InventoryItem[]>> {
  await checkLocationFilter(db, tenant, query.location)
  return itemBatches(db, tenant, query)
}

/** Items a statement of everyItem reads: a bar's whole catalogue in one. */
const ITEMS_PER_READ = 5000

/**
 * Every item of a list query (its filters and order), in one array, for other rooms that read a whole
 * catalogue: by keyset, ITEMS_PER_READ a statement. Pages of 100 by offset, each counting the list's total
 * again, took 20 round trips for 2,000 items, most of a forecast's time on a busy machine. Throws
 * location_not_found.
 */
export function everyItem(db: Executor, tenant: Tenant, query: ListItemsQuery): Promise<InventoryItem[]> {
  return wholeCatalogue(db, tenant, query, itemBatches)
}

/** everyItem with each item's stock only (ItemStock): what a forecast reads of a whole catalogue. */
export function everyItemStock(db: Executor, tenant: Tenant, query: ListItemsQuery): Promise<ItemStock[]> {
  return wholeCatalogue(db, tenant, query, itemStockBatches)
}

/** The stock of the live items among `ids` that a list query's filters keep (what a forecast reads of a few items again), in no order. */
export function itemStocks(db: Executor, tenant: Tenant, query: ListItemsQuery, ids: string[]): Promise<ItemStock[]> {
  return itemStockRows(db, tenant, query, ids)
}

async function wholeCatalogue<Item>(
  db: Executor,
  tenant: Tenant,
  query: ListItemsQuery,
  batches: (db: Executor, tenant: Tenant, query: ListItemsQuery, batchSize: number) => AsyncGenerator<Item[]>,
): Promise<Item[]> {
  const items: Item[] = []
  await checkLocationFilter(db, tenant, query.location)
  for await (const batch of batches(db, tenant, query, ITEMS_PER_READ)) items.push(...batch)
  return items
}

/**
 * Creates an item. Its starting quantity is the first ledger row, so the ledger always sums to the stock;
 * it stands like a count at `stockedAt` (default now: a transfer that creates its destination item stocks
 * it just before the transfer's own time). Throws invalid_unit, invalid_quantity, location_not_found,
 * duplicate_sku (also under concurrent creates).
 */
export async function createItem(trx: Trx, tenant: Tenant, input: CreateItemBody, actor: string, stockedAt = new Date()): Promise<InventoryItem> {
  return rowToItem(await createItemRow(trx, tenant, input, actor, stockedAt))
}

/** createItem's row, for inventory's own operations (a transfer creating its destination item). */
export async function createItemRow(trx: Trx, tenant: Tenant, input: CreateItemBody, actor: string, stockedAt: Date): Promise<ItemRow> {
  checkUnit(input.unit)
  const quantity = parseQuantity(input.quantity, 'quantity')
  const reorderPoint = parseQuantity(input.reorder_point ?? 0, 'reorder_point')
  const parLevel = parLevelColumn(input.par_level) ?? null
  checkCost(input.cost_per_unit)
  const weights = itemWeightsAfter(input.unit, input)
  await getLocation(trx, tenant, input.location)
  const product = { sku: input.sku, location_id: input.location, unit: input.unit, size_ml: input.size_ml ?? null }
  await checkProduct(trx, tenant, product)
  const created = await guardSku(product, () =>
    insertItemRow(trx, {
      id: newId('item'),
      account_id: tenant.accountId,
      environment: tenant.environment,
      location_id: input.location,
      name: input.name,
      sku: input.sku,
      category: input.category,
      quantity: '0',
      unit: input.unit,
      size_ml: input.size_ml ?? null,
      case_size: input.case_size ?? null,
      reorder_point: toDbNumeric(reorderPoint),
      cost_per_unit: toDbNumeric(input.cost_per_unit ?? 0),
      anchored_at: stockedAt,
      ...weights,
      par_level: parLevel,
    }),
  )
  // The cost it is created with stands for its whole past, until its first receipt or change.
  await recordCostChanges(trx, tenant, [{ itemId: created.id, unitCost: created.cost_per_unit, effectiveAt: 'always', source: 'created', referenceId: null }])
  // The starting quantity stands like a count of this moment, even at 0: sales sold before it are history.
  const stocked = await setStock(trx, tenant, created, quantity, { kind: 'adjustment', actor, referenceId: created.id, occurredAt: stockedAt, anchorQuantity: quantity })
  if (quantity.eq(0)) await notifyIfNewlyLow(trx, tenant, undefined, stocked)
  return stocked
}

/** The fields of an update that change which product an item is, or where. */
const PRODUCT_INPUTS = ['sku', 'location', 'unit', 'size_ml'] as const

async function lockItem(trx: Trx, tenant: Tenant, id: string): Promise<ItemRow> {
  const row = await lockItemRow(trx, tenant, id)
  if (!row) throw inventoryErrors.itemNotFound(id)
  return row
}

/**
 * Updates an item's fields; a quantity change goes through the ledger as an adjustment.
 * Throws item_not_found, invalid_unit, invalid_quantity, location_not_found, duplicate_sku.
 */
export async function updateItem(trx: Trx, tenant: Tenant, id: string, input: UpdateItemBody, actor: string): Promise<InventoryItem> {
  const original = await lockItem(trx, tenant, id)
  if (input.unit !== undefined) checkUnit(input.unit)
  const quantity = input.quantity === undefined ? undefined : parseQuantity(input.quantity, 'quantity')
  const reorderPoint = input.reorder_point === undefined ? undefined : parseQuantity(input.reorder_point, 'reorder_point')
  const parLevel = parLevelColumn(input.par_level)
  checkCost(input.cost_per_unit)
  // Checked whenever the weights or the unit change: weights stay valid for the unit they end up with.
  const weights = itemWeightsAfter(input.unit ?? original.unit, input, original)
  const changesWeights = input.full_weight_g !== undefined || input.empty_weight_g !== undefined
  if (input.location !== undefined) await getLocation(trx, tenant, input.location)
  const { quantity: _q, location, reorder_point: _r, cost_per_unit, full_weight_g: _f, empty_weight_g: _e, par_level: _p, ...plain } = input
  const fields = {
    ...plain,
    ...(location !== undefined && { location_id: location }),
    ...(reorderPoint !== undefined && { reorder_point: toDbNumeric(reorderPoint) }),
    ...(cost_per_unit !== undefined && { cost_per_unit: toDbNumeric(cost_per_unit) }),
    ...(changesWeights && weights),
    ...(parLevel !== undefined && { par_level: parLevel }),
  }
  const changesFields = Object.keys(fields).length > 0
  const product = {
    id,
    sku: input.sku ?? original.sku,
    location_id: location ?? original.location_id,
    unit: input.unit ?? original.unit,
    size_ml: input.size_ml === undefined ? original.size_ml : input.size_ml,
  }
  if (PRODUCT_INPUTS.some((field) => input[field] !== undefined)) await checkProduct(trx, tenant, product)
  const updated = changesFields ? await guardSku(product, () => updateItemRow(trx, id, fields)) : original
  if (!decimal(updated.cost_per_unit).eq(original.cost_per_unit)) {
    // A cost changed by hand holds from now on: windows counted before it keep the cost of their time.
    await recordCostChanges(trx, tenant, [{ itemId: id, unitCost: updated.cost_per_unit, effectiveAt: new Date(), source: 'updated', referenceId: null }])
  }
  if (quantity !== undefined) {
    // A quantity set by hand is an absolute quantity: it anchors the item like a count.
    return rowToItem(await setStock(trx, tenant, updated, quantity, { kind: 'adjustment', actor, referenceId: null, anchorQuantity: quantity }, original))
  }
  if (changesFields) await notifyIfNewlyLow(trx, tenant, original, updated)
  return rowToItem(updated)
}

/** Deletes an item (kept for the ledger and past orders, gone from every list). Throws item_not_found. */
export async function deleteItem(trx: Trx, tenant: Tenant, id: string) {
  await lockItem(trx, tenant, id)
  await markItemDeleted(trx, id)
  return { id, deleted: true as const }
}

type BatchUpdate = BatchBody['updates'][number]

/** A batch's ledger fields; every update of a batch is dated at the batch's time. */
type BatchMovement = StockMovement & { occurredAt: Date }

/**
 * Whether an update dated `at` is history for the item, as a count is: before its anchor. At the anchor's
 * own time it applies, as a count does and unlike a sale: the batch's own earlier update of the item may
 * have set that anchor.
 */
function isHistory(item: ItemRow, at: Date): boolean {
  return at < item.anchored_at
}

/**
 * An absolute quantity as of the batch's time. At or after the item's anchor it becomes the anchor, and
 * what moved since (`later`) stays on top, as for a count; before it, its row records what the shelf held
 * then (theoretical stock reads it) and current stock stays.
 */
function absoluteTarget(item: ItemRow, quantity: Decimal, later: string | undefined, movement: BatchMovement): Decimal {
  return isHistory(item, movement.occurredAt) ? decimal(item.quantity) : quantity.plus(later ?? 0)
}

function changedTarget(update: BatchUpdate, item: ItemRow, index: number, movement: BatchMovement): Decimal {
  const change = update.change as number
  parseQuantity(Math.abs(change), `updates[${index}].change`)
  if (isHistory(item, movement.occurredAt)) {
    const message = `occurred_at is before ${item.id}’s latest count or absolute quantity (${item.anchored_at.toISOString()}), which already holds this change; give quantity to record what the shelf held then`
    throw invalidParameter(`updates[${index}].change`, change, message)
  }
  const result = decimal(item.quantity).plus(change)
  if (result.lt(0)) {
    throw inventoryErrors.invalidQuantity(`change ${change} would take ${item.id} below zero`, {
      parameter: `updates[${index}].change`,
      value: change,
    })
  }
  return result
}

async function applyUpdate(trx: Trx, tenant: Tenant, item: ItemRow, update: BatchUpdate, index: number, later: string | undefined, movement: BatchMovement): Promise<ItemRow> {
  if ((update.quantity === undefined) === (update.change === undefined)) {
    throw invalidParameter(`updates[${index}]`, update, 'give exactly one of quantity and change')
  }
  if (update.quantity === undefined) return setStock(trx, tenant, item, changedTarget(update, item, index, movement), movement)
  const quantity = parseQuantity(update.quantity, `updates[${index}].quantity`)
  return setStock(trx, tenant, item, absoluteTarget(item, quantity, later, movement), { ...movement, anchorQuantity: quantity })
}

/**
 * Applies quantity updates item by item, dated at `occurred_at` (default now) by the counts' rule
 * (absoluteTarget, changedTarget): valid ones land, invalid ones come back in `failed` with their error.
 * Each item is locked (in id order) for the whole batch. Throws invalid_parameter for a future occurred_at.
 */
export async function applyBatch(trx: Trx, tenant: Tenant, input: BatchBody, actor: string): Promise<BatchResult> {
  const requestedAt = input.occurred_at === undefined ? undefined : parsePastTime(input.occurred_at, 'occurred_at')
  const batchId = newId('bat')
  const items = await lockItemRows(
    trx,
    tenant,
    input.updates.map((update) => update.item_id),
  )
  // Now by default, taken under the locks as a count's is: a change committed while this waited is before it.
  const movement = { kind: 'batch' as const, actor, referenceId: batchId, occurredAt: requestedAt ?? new Date() }
  // Read once: the batch's own rows are dated at its time, never after it.
  const later = await changeAfter(trx, [...items.keys()], movement.occurredAt)
  const failed: BatchResult['failed'] = []
  let updated = 0
  for (const [index, update] of input.updates.entries()) {
    try {
      const item = items.get(update.item_id)
      if (!item) throw inventoryErrors.itemNotFound(update.item_id)
      items.set(item.id, await applyUpdate(trx, tenant, item, update, index, later.get(item.id), movement))
      updated++
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      failed.push({ item_id: update.item_id, error: { code: error.code, message: error.message } })
    }
  }
  return { batch_id: batchId, items_updated: updated, failed }
}
