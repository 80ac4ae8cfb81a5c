import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { type Decimal, decimal, QUANTITY_STORED_DECIMALS, quantityOut } from '../platform/decimal.js'
import { invalidParameter } from '../platform/errors.js'
import { parsePastTime } from '../platform/http/date-filter.js'
import type { PageRequest } from '../platform/http/pagination.js'
import { newId } from '../platform/ids.js'
import { enqueue } from '../platform/outbox.js'
import { getLocation } from '../locations/index.js'
import { countedQuantity } from './container-weights.js'
import { countBatches, countLineBatches, findCountDetail, findCountSummary, insertCount, listCountRows } from './counts.repository.js'
import { type ItemRow, lockItemRows } from './inventory.repository.js'
import { inventoryErrors } from './inventory.errors.js'
import type { CountBody, CountDetail, CountLineRow, CountResult, CountSummary, ListCountsQuery } from './inventory.schemas.js'
import { checkLocationFilter, parseQuantity } from './inventory.service.js'
import { setStock } from './stock-ledger.js'
import { changeAfter, theoreticalStocksAt } from './theoretical-stock.repository.js'

/** Physical counts: recording one (it anchors each counted item's stock) and reading them back. */

/** A page of the tenant's counts, newest first. Throws location_not_found for a location filter naming none. */
export async function listCounts(db: Executor, tenant: Tenant, query: ListCountsQuery, page: PageRequest) {
  await checkLocationFilter(db, tenant, query.location)
  return listCountRows(db, tenant, query.location, page)
}

/** Every count of the filter, newest first, in batches. Throws location_not_found before any is read. */
export async function exportCounts(db: Executor, tenant: Tenant, query: ListCountsQuery): Promise<AsyncIterable<CountSummary[]>> {
  await checkLocationFilter(db, tenant, query.location)
  return countBatches(db, tenant, query.location)
}

/** A count with every counted line. Throws count_not_found. */
export async function getCount(db: Executor, tenant: Tenant, countId: string): Promise<CountDetail> {
  const count = await findCountDetail(db, tenant, countId)
  if (!count) throw inventoryErrors.countNotFound(countId)
  return count
}

/** A count's lines, each with the count's own fields, in batches. Throws count_not_found before any is read. */
export async function exportCountLines(db: Executor, tenant: Tenant, countId: string): Promise<AsyncIterable<CountLineRow[]>> {
  const count = await findCountSummary(db, tenant, countId)
  if (!count) throw inventoryErrors.countNotFound(countId)
  return (async function* () {
    for await (const lines of countLineBatches(db, countId)) yield lines.map((line) => ({ ...count, ...line }))
  })()
}

/**
 * Each item's theoretical stock at a count's time: for an item the count anchors (counted at or after
 * its anchor), current stock less what moved since; for one counted before its anchor (history), from
 * the anchors and earlier counts around `countedAt` (theoreticalStocksAt).
 */
async function expectedAtCount(trx: Trx, items: ItemRow[], countedAt: Date, later: Map<string, string>): Promise<Map<string, Decimal>> {
  const history = items.filter((item) => countedAt < item.anchored_at)
  const theoretical = await theoreticalStocksAt(
    trx,
    history.map((item) => item.id),
    countedAt,
  )
  return new Map(
    items.map((item) => {
      const fromHistory = theoretical.get(item.id)
      if (countedAt < item.anchored_at && fromHistory !== undefined) return [item.id, decimal(fromHistory)]
      return [item.id, decimal(item.quantity).minus(later.get(item.id) ?? 0)]
    }),
  )
}

/** A count as recorded, for an observer that acts on it in the count's transaction. */
export interface RecordedCount {
  countId: string
  location: string
  countedAt: Date
  itemIds: string[]
}

/** Told of a count inside its transaction: what it writes commits with the count. */
export type CountObserver = (trx: Trx, tenant: Tenant, count: RecordedCount) => Promise<void>

/** One line of a count, with its item (locked) and what was counted (weighed containers included). */
type CountedLine = { line: CountBody['items'][number]; item: ItemRow } & ReturnType<typeof countedQuantity>

/** Locks the counted items (in id order). Throws invalid_parameter for an item counted twice, invalid_quantity. */
async function lockCountedItems(trx: Trx, tenant: Tenant, input: CountBody): Promise<{ items: Map<string, ItemRow>; fullUnits: Decimal[] }> {
  const ids = input.items.map((line) => line.item_id)
  const duplicate = ids.find((id, index) => ids.indexOf(id) !== index)
  if (duplicate) throw invalidParameter('items', duplicate, `item ${duplicate} is counted twice`)
  const fullUnits = input.items.map((line, index) => parseQuantity(line.quantity, `items[${index}].quantity`))
  return { items: await lockItemRows(trx, tenant, ids), fullUnits }
}

/**
 * Each line with its item and what was counted (weighed containers included). Throws item_not_found,
 * invalid_parameter for an item stored at another location, then the weights' errors (countedQuantity).
 */
function countedLines(input: CountBody, items: Map<string, ItemRow>, fullUnits: Decimal[]): CountedLine[] {
  for (const { item_id: id } of input.items) {
    const item = items.get(id)
    if (!item) throw inventoryErrors.itemNotFound(id)
    if (item.location_id !== input.location) {
      throw invalidParameter('items', id, `item ${id} is stored at ${item.location_id}, not ${input.location}`)
    }
  }
  return input.items.map((line, index) => {
    const item = items.get(line.item_id) as ItemRow
    return { line, item, ...countedQuantity(line, index, item, fullUnits[index] as Decimal) }
  })
}

/**
 * Sets each counted item's stock by the count, as an anchor: what was counted plus what moved since
 * `countedAt`; a line counted before its item's anchor is history and leaves stock alone. Answers the
 * lines whose count differs from what was expected.
 */
async function applyCountedLines(
  trx: Trx,
  tenant: Tenant,
  count: { id: string; countedBy: string; countedAt: Date },
  counted: CountedLine[],
  expected: Map<string, Decimal>,
  later: Map<string, string>,
): Promise<CountResult['variance_detected']> {
  const variances: CountResult['variance_detected'] = []
  for (const { item, actual } of counted) {
    const itemExpected = expected.get(item.id) as Decimal
    const variance = actual.minus(itemExpected)
    if (!variance.round(QUANTITY_STORED_DECIMALS).eq(0)) {
      variances.push({ item_id: item.id, expected: quantityOut(itemExpected), actual: quantityOut(actual), variance: quantityOut(variance) })
    }
    // Counted before the item's anchor: history for analytics, current stock stays.
    if (count.countedAt < item.anchored_at) continue
    await setStock(trx, tenant, item, actual.plus(later.get(item.id) ?? 0), {
      kind: 'count',
      actor: count.countedBy,
      referenceId: count.id,
      occurredAt: count.countedAt,
      anchorQuantity: actual,
    })
  }
  return variances
}

/**
 * Records a physical count: `expected` is each item's theoretical stock at counted_at. A count at or
 * after the item's anchor becomes its anchor: stock is what was counted plus what moved since counted_at
 * (deliveries, sales sold after it). A count back-dated before the anchor is history: recorded for
 * analytics, current stock unchanged. A line's weighed open containers (weight_g, weights_g) add their
 * fractions of a unit to its quantity (container-weights.ts). Emits inventory.updated per changed item and
 * inventory.count_completed, then tells `observer` (variance events). Throws location_not_found,
 * item_not_found, invalid_quantity, invalid_parameter.
 */
export async function recordCount(trx: Trx, tenant: Tenant, input: CountBody, observer?: CountObserver): Promise<CountResult> {
  await getLocation(trx, tenant, input.location)
  const { items, fullUnits } = await lockCountedItems(trx, tenant, input)
  // Taken under the lock: a change committed while this count waited is before it, not re-applied after it.
  const countedAt = parsePastTime(input.counted_at, 'counted_at')
  const counted = countedLines(input, items, fullUnits)
  const ids = counted.map(({ item }) => item.id)
  const later = await changeAfter(trx, ids, countedAt)
  const count = { id: newId('cnt'), countedBy: input.counted_by, countedAt, createdAt: new Date() }
  const expected = await expectedAtCount(
    trx,
    counted.map(({ item }) => item),
    countedAt,
    later,
  )
  await insertCount(trx, tenant, { ...count, location: input.location }, counted, expected)
  const variances = await applyCountedLines(trx, tenant, count, counted, expected, later)
  await enqueue(trx, tenant, 'inventory.count_completed', {
    count_id: count.id,
    location: input.location,
    items_counted: ids.length,
    variance_detected: variances.length,
    counted_by: input.counted_by,
  })
  await observer?.(trx, tenant, { countId: count.id, location: input.location, countedAt, itemIds: ids })
  return {
    count_id: count.id,
    location: input.location,
    counted_by: input.counted_by,
    counted_at: countedAt.toISOString(),
    items_updated: ids.length,
    variance_detected: variances,
    created_at: count.createdAt.toISOString(),
  }
}
