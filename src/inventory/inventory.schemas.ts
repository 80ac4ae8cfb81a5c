import { type Static, Type } from 'typebox'
import { columnsOf, FormatQuery } from '../platform/http/csv.js'
import { domainMinimum, NOT_BLANK, Nullable, NUMBER_LIMITS, PageQuery, Timestamp } from '../platform/http/schemas.js'
import { StringEnum } from '../platform/http/types.js'
import { CATEGORIES, UNITS } from './units.js'

const Category = StringEnum(CATEGORIES, { description: `One of ${CATEGORIES.join(', ')}` })
// A plain string here: an unknown unit is the domain error invalid_unit, not a schema violation.
const UnitField = Type.String({ description: `One of ${UNITS.join(', ')} (invalid_unit otherwise)`, examples: ['bottle'] })
const QuantityField = Type.Number({ ...domainMinimum(0), maximum: NUMBER_LIMITS.quantity, description: 'Zero or more, up to 3 decimals (invalid_quantity otherwise), at most 1,000,000,000' })
const Money = Type.Number({ minimum: 0, maximum: NUMBER_LIMITS.money, description: 'Exact decimal, up to 4 decimals kept; 0 to 1,000,000,000' })

export const InventoryItem = Type.Object({
  id: Type.String({ examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  name: Type.String(),
  sku: Type.String(),
  category: Type.String(),
  quantity: Type.Number({ description: 'Current theoretical stock; may be below zero when sales outran a recorded delivery' }),
  unit: Type.String(),
  size_ml: Type.Union([Type.Integer(), Type.Null()]),
  case_size: Type.Union([Type.Integer(), Type.Null()], { description: 'Units per case, for ordering by the case' }),
  location: Type.String(),
  reorder_point: Type.Number(),
  cost_per_unit: Type.Number(),
  created_at: Timestamp,
  last_updated: Timestamp,
})
export type InventoryItem = Static<typeof InventoryItem>

const itemFields = {
  name: Type.String({ minLength: 1, maxLength: 200, pattern: NOT_BLANK }),
  sku: Type.String({ minLength: 1, maxLength: 100, pattern: NOT_BLANK }),
  category: Category,
  quantity: QuantityField,
  unit: UnitField,
  size_ml: Type.Integer({ minimum: 1, maximum: 100_000 }),
  case_size: Type.Integer({ minimum: 1, maximum: 10_000 }),
  location: Type.String({ minLength: 1, maxLength: 63 }),
  reorder_point: Type.Number({ ...domainMinimum(0), maximum: NUMBER_LIMITS.quantity, description: 'Zero or more, at most 1,000,000,000; the item is low on stock below it' }),
  cost_per_unit: Money,
}

export const CreateItemBody = Type.Object(
  {
    name: itemFields.name,
    sku: itemFields.sku,
    category: itemFields.category,
    quantity: itemFields.quantity,
    unit: itemFields.unit,
    location: itemFields.location,
    size_ml: Type.Optional(itemFields.size_ml),
    case_size: Type.Optional(itemFields.case_size),
    reorder_point: Type.Optional(itemFields.reorder_point),
    cost_per_unit: Type.Optional(itemFields.cost_per_unit),
  },
  { additionalProperties: false },
)
export type CreateItemBody = Static<typeof CreateItemBody>

export const UpdateItemBody = Type.Object(
  {
    name: Type.Optional(itemFields.name),
    sku: Type.Optional(itemFields.sku),
    category: Type.Optional(itemFields.category),
    quantity: Type.Optional(itemFields.quantity),
    unit: Type.Optional(itemFields.unit),
    location: Type.Optional(itemFields.location),
    size_ml: Type.Optional(Type.Union([itemFields.size_ml, Type.Null()])),
    case_size: Type.Optional(Type.Union([itemFields.case_size, Type.Null()])),
    reorder_point: Type.Optional(itemFields.reorder_point),
    cost_per_unit: Type.Optional(itemFields.cost_per_unit),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateItemBody = Static<typeof UpdateItemBody>

export const SORT_FIELDS = ['name', 'quantity', 'last_updated', 'created_at', 'sku', 'category'] as const

export const ListItemsQuery = Type.Object(
  {
    ...PageQuery,
    ...FormatQuery,
    location: Type.Optional(Type.String({ description: 'Only items at this location' })),
    category: Type.Optional(Category),
    low_stock: Type.Optional(Type.Boolean({ description: 'true: only items whose quantity is below their reorder point' })),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Search: items whose name or SKU contains every word of q, ignoring case (e.g. "titos 750")',
        examples: ['titos 750'],
      }),
    ),
    sku: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only the item with exactly this SKU', examples: ['TITO-750'] })),
    sort: Type.Optional(StringEnum(SORT_FIELDS, { default: 'name' })),
    order: Type.Optional(StringEnum(['asc', 'desc'], { default: 'asc' })),
  },
  { additionalProperties: false },
)
export type ListItemsQuery = Static<typeof ListItemsQuery>

export const ItemParams = Type.Object({ id: Type.String() })

export const ListMovementsQuery = Type.Object({ ...PageQuery, ...FormatQuery }, { additionalProperties: false })
export type ListMovementsQuery = Static<typeof ListMovementsQuery>

export const StockMovement = Type.Object({
  kind: StringEnum(['count', 'adjustment', 'batch', 'delivery', 'sale', 'transfer'], {
    description:
      'count (a count set it), adjustment (a PUT quantity, or the starting stock), batch, delivery (an order received), sale (POS or imported sales of a business day; positive when a refund gave units back)',
  }),
  change: Type.Number({ description: 'quantity_after − quantity_before, in the item’s unit' }),
  quantity_before: Type.Number(),
  quantity_after: Type.Number(),
  occurred_at: Timestamp,
  recorded_at: Timestamp,
  location: Type.String(),
  unit_cost: Type.Number({ description: 'The item’s cost per unit at the time' }),
  actor: Type.String({ description: 'Who made it: the API key id, a POS connection id, or who received an order', examples: ['key_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  reference_id: Nullable(Type.String({ description: 'The count, order, sync run or import it came from', examples: ['cnt_01jd2x3v4w5y6z7a8b9c0d1e2f'] })),
})
export type StockMovement = Static<typeof StockMovement>

export const CountBody = Type.Object(
  {
    location: Type.String({ minLength: 1 }),
    counted_by: Type.String({ minLength: 1, maxLength: 200, description: 'Who counted (a user identifier)' }),
    counted_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the count was taken, for a count entered after the fact; default now' }),
    ),
    items: Type.Array(
      Type.Object(
        {
          item_id: Type.String(),
          quantity: QuantityField,
          notes: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 1000 },
    ),
  },
  { additionalProperties: false },
)
export type CountBody = Static<typeof CountBody>

export const VarianceEntry = Type.Object({
  item_id: Type.String(),
  expected: Type.Number({ description: 'Theoretical quantity at counted_at' }),
  actual: Type.Number({ description: 'Counted quantity' }),
  variance: Type.Number({ description: 'actual minus expected' }),
})

export const CountResult = Type.Object({
  count_id: Type.String(),
  location: Type.String(),
  counted_by: Type.String(),
  counted_at: Timestamp,
  items_updated: Type.Integer(),
  variance_detected: Type.Array(VarianceEntry, { description: 'Items whose count differs from theoretical stock' }),
  created_at: Timestamp,
})
export type CountResult = Static<typeof CountResult>

export const StockValueQuery = Type.Object(
  { location: Type.Optional(Type.String({ description: 'Only this location (location_not_found otherwise)' })) },
  { additionalProperties: false },
)
export type StockValueQuery = Static<typeof StockValueQuery>

const ValueFields = {
  value: Type.Number({ description: 'Σ quantity × cost_per_unit of the live items, stock below zero counting as none; 2 decimals' }),
  items: Type.Integer({ description: 'Live items' }),
}

export const StockValue = Type.Object({
  currency: Type.String({ description: 'The account’s currency (settings)', examples: ['USD'] }),
  ...ValueFields,
  locations: Type.Array(
    Type.Object({
      location: Type.String(),
      ...ValueFields,
      categories: Type.Array(Type.Object({ category: Type.String(), ...ValueFields })),
    }),
  ),
})
export type StockValue = Static<typeof StockValue>

export const ListCountsQuery = Type.Object(
  { ...PageQuery, ...FormatQuery, location: Type.Optional(Type.String({ description: 'Only counts of this location (location_not_found otherwise)' })) },
  { additionalProperties: false },
)
export type ListCountsQuery = Static<typeof ListCountsQuery>

export const CountSummary = Type.Object({
  count_id: Type.String(),
  location: Type.String(),
  counted_by: Type.String(),
  counted_at: Timestamp,
  items_updated: Type.Integer(),
  created_at: Timestamp,
})
export type CountSummary = Static<typeof CountSummary>

export const CountParams = Type.Object({ count_id: Type.String() })
export const CountQuery = Type.Object({ ...FormatQuery }, { additionalProperties: false })

const CountLine = Type.Object({ ...VarianceEntry.properties, notes: Nullable(Type.String()) })
export type CountLine = Static<typeof CountLine>

export const CountDetail = Type.Object({
  ...CountSummary.properties,
  items: Type.Array(CountLine, { description: 'Every counted item: theoretical stock at counted_at, what was counted, the difference' }),
})
export type CountDetail = Static<typeof CountDetail>

/** The CSV export of a count: one row per counted item, the count's own fields repeated on each. */
export type CountLineRow = CountSummary & CountLine
export const COUNT_LINE_COLUMNS: (keyof CountLineRow & string)[] = [...columnsOf(CountSummary), ...columnsOf(CountLine)]

export const BatchBody = Type.Object(
  {
    updates: Type.Array(
      Type.Object(
        {
          item_id: Type.String(),
          quantity: Type.Optional(Type.Number({ ...domainMinimum(0), maximum: NUMBER_LIMITS.quantity, description: 'The new absolute quantity, 0 to 1,000,000,000' })),
          change: Type.Optional(
            Type.Number({ minimum: -NUMBER_LIMITS.quantity, maximum: NUMBER_LIMITS.quantity, description: 'A signed delta, instead of quantity: −1,000,000,000 to 1,000,000,000' }),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 1000 },
    ),
  },
  { additionalProperties: false },
)
export type BatchBody = Static<typeof BatchBody>

export const BatchResult = Type.Object({
  batch_id: Type.String(),
  items_updated: Type.Integer(),
  failed: Type.Array(
    Type.Object({
      item_id: Type.String(),
      error: Type.Object({ code: Type.String(), message: Type.String() }),
    }),
  ),
})
export type BatchResult = Static<typeof BatchResult>
