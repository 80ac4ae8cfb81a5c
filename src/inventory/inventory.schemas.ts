import { type Static, Type } from 'typebox'
import { columnsOf, FormatQuery } from '../platform/http/csv.js'
import { domainMinimum, NOT_BLANK, Nullable, NUMBER_LIMITS, PageQuery, Timestamp } from '../platform/http/schemas.js'
import { StringEnum } from '../platform/http/types.js'
import { CATEGORIES, UNITS } from './units.js'

const Category = StringEnum(CATEGORIES, { description: `One of ${CATEGORIES.join(', ')}`, examples: ['spirits'] })
// A plain string here: an unknown unit is the domain error invalid_unit, not a schema violation.
const UnitField = Type.String({ description: `One of ${UNITS.join(', ')} (invalid_unit otherwise)`, examples: ['bottle'] })
const QuantityField = Type.Number({
  ...domainMinimum(0),
  maximum: NUMBER_LIMITS.quantity,
  description: 'In the item’s unit: zero or more, up to 3 decimals (invalid_quantity otherwise), at most 1,000,000,000',
  examples: [12],
})
/** When a stock change happened, for one entered after the fact (a transfer, waste, a delivery received). */
export const PastTime = (description: string) =>
  Type.String({
    format: 'date-time',
    description: `${description}; default now. Not in the future (invalid_parameter). Dated before an item’s latest count it is history for that item: recorded for reports, current stock unchanged (the counts’ rule)`,
    examples: ['2026-11-22T18:00:00Z'],
  })
const Money = Type.Number({
  minimum: 0,
  maximum: NUMBER_LIMITS.money,
  description:
    'Cost of one unit in the account currency: exact decimal, up to 4 decimals kept; 0 to 1,000,000,000. A change holds from now on: windows counted before it keep the cost of their time in reports',
  examples: [18.5],
})
/** The heaviest weight taken, in grams (a tonne: far above any full keg). */
export const MAX_WEIGHT_G = 1_000_000
/** Decimals of a weight in grams (a kitchen or bar scale shows 1 g or 0.1 g). */
export const WEIGHT_DECIMALS = 2
const ContainerWeight = (which: string, example: number) =>
  Type.Number({
    minimum: 0,
    maximum: MAX_WEIGHT_G,
    description: `Grams ${which}, 0 to 1,000,000, up to 2 decimals; bottle, can and keg items only, with the other weight (both or neither, full above empty): an open container's weight converts to a fraction of it`,
    examples: [example],
  })
const ParLevel = Type.Number({
  ...domainMinimum(0),
  maximum: NUMBER_LIMITS.quantity,
  description: 'The quantity the item is stocked up to, in its unit: zero or more, up to 3 decimals (invalid_quantity otherwise); orders recommended for it reach at least this',
  examples: [12],
})

export const InventoryItem = Type.Object({
  id: Type.String({ description: 'The item’s id', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  name: Type.String({ description: 'Its name', examples: ["Tito's Handmade Vodka 750ml"] }),
  sku: Type.String({
    description: 'Its stock-keeping unit: unique among the live items of its location; the same product at other locations has the same SKU',
    examples: ['TITO-750'],
  }),
  category: Type.String({ description: `One of ${CATEGORIES.join(', ')}`, examples: ['spirits'] }),
  quantity: Type.Number({ description: 'Current theoretical stock, in unit; may be below zero when sales outran a recorded delivery', examples: [11.4] }),
  unit: Type.String({ description: `What quantity counts: one of ${UNITS.join(', ')}`, examples: ['bottle'] }),
  size_ml: Type.Union([Type.Integer(), Type.Null()], { description: 'Millilitres in one unit (a 750 ml bottle: 750); null when not given', examples: [750] }),
  case_size: Type.Union([Type.Integer(), Type.Null()], { description: 'Units per case, for ordering by the case; null when not sold by the case', examples: [12] }),
  location: Type.String({ description: 'The location id it is kept at', examples: ['main_bar'] }),
  reorder_point: Type.Number({ description: 'Below this quantity the item is low on stock (0: never)', examples: [6] }),
  cost_per_unit: Type.Number({
    description:
      'Cost of one unit now, in the account currency: as created, set by the latest receipt (docs/ordering.md), or by a PUT. Every change enters the item’s cost history with its time, and reports value each count window at the cost of its time',
    examples: [18.5],
  }),
  full_weight_g: Nullable(Type.Number({ description: 'Grams of a full container (bottle, can or keg) for counting open ones by weight; null when not set', examples: [1250] })),
  empty_weight_g: Nullable(Type.Number({ description: 'Grams of an empty container (its tare); null when not set', examples: [480] })),
  par_level: Nullable(Type.Number({ description: 'The quantity the item is stocked up to, in its unit; null without a par', examples: [12] })),
  created_at: { ...Timestamp, description: 'When it was created' },
  last_updated: { ...Timestamp, description: 'When its quantity or fields last changed' },
})
export type InventoryItem = Static<typeof InventoryItem>

/** An item's stock, in the API's fields of those names: what a forecast's stock advice reads of a whole catalogue. */
export type ItemStock = Pick<InventoryItem, 'id' | 'name' | 'unit' | 'location' | 'quantity' | 'reorder_point'>

const itemFields = {
  name: Type.String({ minLength: 1, maxLength: 200, pattern: NOT_BLANK, description: 'Its name, 1 to 200 characters', examples: ["Tito's Handmade Vodka 750ml"] }),
  sku: Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: NOT_BLANK,
    description:
      'Stock-keeping unit, 1 to 100 characters, unique among the live items of the location (duplicate_sku). The same product at other locations takes the same SKU, with the same size_ml and unit (or case): otherwise duplicate_sku with details.field',
    examples: ['TITO-750'],
  }),
  category: Category,
  quantity: QuantityField,
  unit: UnitField,
  size_ml: Type.Integer({ minimum: 1, maximum: 100_000, description: 'Millilitres in one unit, 1 to 100,000 (recipes in ml or oz convert with it)', examples: [750] }),
  case_size: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    description: 'Units per case, 1 to 10,000: orders and low-stock recommendations round up to whole cases',
    examples: [12],
  }),
  location: Type.String({ minLength: 1, maxLength: 63, description: 'The location id it is kept at (location_not_found otherwise)', examples: ['main_bar'] }),
  reorder_point: Type.Number({
    ...domainMinimum(0),
    maximum: NUMBER_LIMITS.quantity,
    description: 'In the item’s unit: zero or more, at most 1,000,000,000; the item is low on stock below it. Default 0',
    examples: [6],
  }),
  cost_per_unit: Money,
  full_weight_g: ContainerWeight('of a full container', 1250),
  empty_weight_g: ContainerWeight('of an empty container (its tare)', 480),
  par_level: ParLevel,
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
    full_weight_g: Type.Optional(itemFields.full_weight_g),
    empty_weight_g: Type.Optional(itemFields.empty_weight_g),
    par_level: Type.Optional(itemFields.par_level),
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
    size_ml: Type.Optional(Nullable(itemFields.size_ml, 'Millilitres in one unit, 1 to 100,000; null clears it')),
    case_size: Type.Optional(Nullable(itemFields.case_size, 'Units per case, 1 to 10,000; null clears it')),
    reorder_point: Type.Optional(itemFields.reorder_point),
    cost_per_unit: Type.Optional(itemFields.cost_per_unit),
    full_weight_g: Type.Optional(Nullable(itemFields.full_weight_g, 'Grams of a full container; null (with empty_weight_g null) clears the weights')),
    empty_weight_g: Type.Optional(Nullable(itemFields.empty_weight_g, 'Grams of an empty container; null (with full_weight_g null) clears the weights')),
    par_level: Type.Optional(Nullable(itemFields.par_level, 'The quantity the item is stocked up to, zero or more, up to 3 decimals; null clears it')),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateItemBody = Static<typeof UpdateItemBody>

export const SORT_FIELDS = ['name', 'quantity', 'last_updated', 'created_at', 'sku', 'category'] as const

export const ListItemsQuery = Type.Object(
  {
    ...PageQuery,
    ...FormatQuery,
    location: Type.Optional(Type.String({ description: 'Only items at this location id', examples: ['main_bar'] })),
    category: Type.Optional(Category),
    low_stock: Type.Optional(Type.Boolean({ description: 'true: only items whose quantity is below their reorder point', examples: [true] })),
    below_par: Type.Optional(
      Type.Boolean({
        description: 'true: only items whose quantity is below their par_level; false: only items at or above it, or without a par (unlike low_stock=false, which filters nothing)',
        examples: [true],
      }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Search: items whose name or SKU contains every word of q, ignoring case (e.g. "titos 750")',
        examples: ['titos 750'],
      }),
    ),
    sku: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Only the items with exactly this SKU: the product at every location (with location, at one)',
        examples: ['TITO-750'],
      }),
    ),
    sort: Type.Optional(StringEnum(SORT_FIELDS, { default: 'name', description: 'The field to sort by, default name' })),
    order: Type.Optional(StringEnum(['asc', 'desc'], { default: 'asc', description: 'asc (default) or desc' })),
  },
  { additionalProperties: false },
)
export type ListItemsQuery = Static<typeof ListItemsQuery>

export const ItemParams = Type.Object({ id: Type.String({ description: 'The item’s id', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }) })

export const ListMovementsQuery = Type.Object({ ...PageQuery, ...FormatQuery }, { additionalProperties: false })
export type ListMovementsQuery = Static<typeof ListMovementsQuery>

export const StockMovement = Type.Object({
  kind: StringEnum(['count', 'adjustment', 'batch', 'delivery', 'sale', 'transfer', 'waste'], {
    description:
      'count (a count set it), adjustment (a PUT quantity, or the starting stock), batch, delivery (an order received; one dated before the item’s latest count is history, with no row), sale (POS or imported sales of a business day; positive when a refund gave units back), transfer (out of or into the item; reference_id is the transfer, and a voided transfer’s reversal), waste (recorded waste; reference_id is the waste entry)',
    examples: ['sale'],
  }),
  change: Type.Number({ description: 'quantity_after − quantity_before, in the item’s unit', examples: [-0.6] }),
  quantity_before: Type.Number({ description: 'Stock before the movement, in the item’s unit', examples: [12] }),
  quantity_after: Type.Number({ description: 'Stock after it, in the item’s unit', examples: [11.4] }),
  occurred_at: { ...Timestamp, description: 'When it happened (a count’s counted_at, a business day’s end for sales)' },
  recorded_at: { ...Timestamp, description: 'When barstock recorded it' },
  location: Type.String({ description: 'The item’s location id', examples: ['main_bar'] }),
  unit_cost: Type.Number({
    description: 'The item’s cost per unit at the time (a delivery: the price it was received at, per item unit), in the account currency',
    examples: [18.5],
  }),
  actor: Type.String({ description: 'Who made it: the API key id, a POS connection id, or who received an order', examples: ['key_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  reference_id: Nullable(Type.String({ description: 'The count, order, sync run or import it came from', examples: ['cnt_01jd2x3v4w5y6z7a8b9c0d1e2f'] })),
})
export type StockMovement = Static<typeof StockMovement>

/** Open containers one count line may weigh. */
export const MAX_WEIGHED_CONTAINERS = 50
const CountedWeight = (description: string) =>
  Type.Number({
    ...domainMinimum(0),
    maximum: MAX_WEIGHT_G,
    description: `${description}: up to 2 decimals, from the empty weight less 5 % of the liquid’s weight (full − empty) to the full weight plus 5 % (invalid_quantity otherwise). Each adds (weight − empty) / (full − empty), clamped to 0..1`,
    examples: [812.5],
  })

export const CountBody = Type.Object(
  {
    location: Type.String({ minLength: 1, description: 'The counted location id (location_not_found otherwise)', examples: ['main_bar'] }),
    counted_by: Type.String({ minLength: 1, maxLength: 200, description: 'Who counted, 1 to 200 characters', examples: ['Maria (closing shift)'] }),
    counted_at: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'When the count was taken, for a count entered after the fact; default now. A count before the item’s latest count or delivery is history: it does not change current stock',
        examples: ['2026-11-22T03:45:00Z'],
      }),
    ),
    items: Type.Array(
      Type.Object(
        {
          item_id: Type.String({ description: 'A counted item at the location, each at most once', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
          quantity: {
            ...QuantityField,
            description:
              'What was counted, in the item’s unit (partial bottles as decimals, e.g. 10.5): zero or more, up to 3 decimals. With weight_g or weights_g: the full units only',
            examples: [10.5],
          },
          weight_g: Type.Optional(CountedWeight('The weight of one open container, in grams, counted on top of quantity (the item needs full_weight_g and empty_weight_g)')),
          weights_g: Type.Optional(
            Type.Array(CountedWeight('An open container’s weight in grams'), {
              minItems: 1,
              maxItems: MAX_WEIGHED_CONTAINERS,
              description: `The weights of several open containers, in grams (1 to ${MAX_WEIGHED_CONTAINERS}), each counted on top of quantity; instead of weight_g`,
            }),
          ),
          notes: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()], { description: 'Up to 1,000 characters', examples: ['one open bottle'] })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 1000, description: '1 to 1,000 counted items' },
    ),
  },
  {
    additionalProperties: false,
    // Given whole: composed from the fields' examples, a line would carry weight_g and weights_g at once.
    examples: [
      {
        location: 'main_bar',
        counted_by: 'Maria (closing shift)',
        items: [
          { item_id: 'item_01jd2x3v4w5y6z7a8b9c0d1e2f', quantity: 10.5, notes: 'one open bottle' },
          { item_id: 'item_01jd2x4a5b6c7d8e9f0g1h2j3k', quantity: 3, weights_g: [812.5, 640] },
        ],
      },
    ],
  },
)
export type CountBody = Static<typeof CountBody>

export const VarianceEntry = Type.Object({
  item_id: Type.String({ description: 'The counted item', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  expected: Type.Number({ description: 'Theoretical quantity at counted_at, in the item’s unit', examples: [11.4] }),
  actual: Type.Number({ description: 'Counted quantity, in the item’s unit', examples: [10.5] }),
  variance: Type.Number({ description: 'actual minus expected, in the item’s unit', examples: [-0.9] }),
})

export const CountResult = Type.Object({
  count_id: Type.String({ description: 'The count’s id', examples: ['cnt_01jd3a9b8c7d6e5f4g3h2j1k0m'] }),
  location: Type.String({ description: 'The counted location id', examples: ['main_bar'] }),
  counted_by: Type.String({ description: 'Who counted', examples: ['Maria (closing shift)'] }),
  counted_at: { ...Timestamp, description: 'When the count was taken' },
  items_updated: Type.Integer({ description: 'Items whose current stock the count set (a back-dated count sets none)', examples: [42] }),
  variance_detected: Type.Array(VarianceEntry, { description: 'Items whose count differs from theoretical stock' }),
  created_at: { ...Timestamp, description: 'When it was recorded' },
})
export type CountResult = Static<typeof CountResult>

export const StockValueQuery = Type.Object(
  {
    location: Type.Optional(Type.String({ description: 'Only this location id (location_not_found otherwise)', examples: ['main_bar'] })),
    sku: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only the items of this SKU: one product’s value at each location', examples: ['TITO-750'] })),
  },
  { additionalProperties: false },
)
export type StockValueQuery = Static<typeof StockValueQuery>

const ValueFields = {
  value: Type.Number({ description: 'Σ quantity × cost_per_unit of the live items, in the account currency, stock below zero counting as none; 2 decimals', examples: [4872.35] }),
  items: Type.Integer({ description: 'Live items', examples: [137] }),
}

export const StockValue = Type.Object({
  currency: Type.String({ description: 'The account’s currency (settings)', examples: ['USD'] }),
  ...ValueFields,
  locations: Type.Array(
    Type.Object({
      location: Type.String({ description: 'The location id', examples: ['main_bar'] }),
      ...ValueFields,
      categories: Type.Array(Type.Object({ category: Type.String({ description: 'The inventory category', examples: ['spirits'] }), ...ValueFields }), {
        description: 'The location’s value per category',
      }),
    }),
    { description: 'The value per location' },
  ),
})
export type StockValue = Static<typeof StockValue>

export const ListCountsQuery = Type.Object(
  { ...PageQuery, ...FormatQuery, location: Type.Optional(Type.String({ description: 'Only counts of this location id (location_not_found otherwise)', examples: ['main_bar'] })) },
  { additionalProperties: false },
)
export type ListCountsQuery = Static<typeof ListCountsQuery>

export const CountSummary = Type.Object({
  count_id: CountResult.properties.count_id,
  location: CountResult.properties.location,
  counted_by: CountResult.properties.counted_by,
  counted_at: CountResult.properties.counted_at,
  items_updated: CountResult.properties.items_updated,
  created_at: CountResult.properties.created_at,
})
export type CountSummary = Static<typeof CountSummary>

export const CountParams = Type.Object({ count_id: Type.String({ description: 'The count’s id', examples: ['cnt_01jd3a9b8c7d6e5f4g3h2j1k0m'] }) })
export const CountQuery = Type.Object({ ...FormatQuery }, { additionalProperties: false })

const CountLine = Type.Object({
  ...VarianceEntry.properties,
  notes: Nullable(Type.String({ description: 'The counter’s note', examples: ['one open bottle'] })),
  weights_g: Nullable(
    Type.Array(Type.Number({ description: 'Grams', examples: [812.5] }), {
      description: 'The open containers’ weights the line was counted from (weight_g as a list of one); null when counted by eye. In CSV, separated by spaces',
      examples: [[812.5, 640]],
    }),
  ),
})
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
          item_id: Type.String({ description: 'The item to change', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
          quantity: Type.Optional(
            Type.Number({ ...domainMinimum(0), maximum: NUMBER_LIMITS.quantity, description: 'The new absolute quantity, in the item’s unit, 0 to 1,000,000,000', examples: [24] }),
          ),
          change: Type.Optional(
            Type.Number({
              minimum: -NUMBER_LIMITS.quantity,
              maximum: NUMBER_LIMITS.quantity,
              description: 'A signed delta in the item’s unit, instead of quantity: −1,000,000,000 to 1,000,000,000 (invalid_quantity if stock would go below zero)',
              examples: [-2],
            }),
          ),
        },
        { additionalProperties: false, description: 'Exactly one of quantity or change' },
      ),
      { minItems: 1, maxItems: 1000, description: '1 to 1,000 updates' },
    ),
    occurred_at: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'When the updates happened, for updates entered after the fact; default now. Not in the future (invalid_parameter). For an item whose latest count or absolute quantity is later, the counts’ rule: a quantity is history (recorded as what the shelf held then, current stock unchanged), and a change is refused in `failed` with invalid_parameter (that count already holds it)',
        examples: ['2026-11-22T18:00:00Z'],
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        updates: [
          { item_id: 'item_01jd2x3v4w5y6z7a8b9c0d1e2f', quantity: 24 },
          { item_id: 'item_01jd2x4a5b6c7d8e9f0g1h2j3k', change: -2 },
        ],
      },
    ],
  },
)
export type BatchBody = Static<typeof BatchBody>

export const BatchResult = Type.Object({
  batch_id: Type.String({ description: 'The batch’s id, the reference_id of its ledger rows', examples: ['bat_01jd3b2c3d4e5f6g7h8j9k0m1n'] }),
  items_updated: Type.Integer({ description: 'Updates that landed', examples: [1] }),
  failed: Type.Array(
    Type.Object({
      item_id: Type.String({ description: 'The item of the refused update', examples: ['item_01jd2x4a5b6c7d8e9f0g1h2j3k'] }),
      error: Type.Object(
        {
          code: Type.String({ description: 'item_not_found, invalid_quantity or invalid_parameter', examples: ['invalid_quantity'] }),
          message: Type.String({ description: 'Why, for a person', examples: ['Stock of item_01jd2x4a5b6c7d8e9f0g1h2j3k would go below zero (1 − 2)'] }),
        },
        { description: 'Why it was refused' },
      ),
    }),
    { description: 'Updates refused, each with its error; the others landed' },
  ),
})
export type BatchResult = Static<typeof BatchResult>
