import { type Static, Type } from 'typebox'
import { DateQuery, domainMinimum, NOT_BLANK, Nullable, NUMBER_LIMITS, PageQuery, Timestamp } from '../platform/http/schemas.js'
import { StringEnum } from '../platform/http/types.js'
import { PastTime } from './inventory.schemas.js'

/** Why stock was wasted (DECISIONS, Bar operations → Waste). */
export const WASTE_REASONS = ['spill', 'breakage', 'comp', 'staff_drink', 'spoilage', 'returned', 'other'] as const

const MOVED_RULE = 'more than zero, up to 3 decimals (invalid_quantity otherwise), at most 1,000,000,000'
const Moved = (description: string, example: number) =>
  Type.Number({ ...domainMinimum(0, true), maximum: NUMBER_LIMITS.quantity, description: `${description}: ${MOVED_RULE}`, examples: [example] })
const Person = (description: string, example: string) =>
  Type.String({ minLength: 1, maxLength: 200, pattern: NOT_BLANK, description: `${description}, 1 to 200 characters`, examples: [example] })
const Notes = Type.Optional(Nullable(Type.String({ maxLength: 1000, description: 'Up to 1,000 characters', examples: ['for the Friday rush'] })))

// ---- Transfers ----

export const TransferBody = Type.Object(
  {
    from_location: Type.String({ minLength: 1, description: 'Where the stock leaves (location_not_found otherwise)', examples: ['storeroom'] }),
    to_location: Type.String({ minLength: 1, description: 'Where it arrives; not from_location (invalid_parameter)', examples: ['main_bar'] }),
    transferred_by: Person('Who moved it', 'Sam (bar back)'),
    transferred_at: Type.Optional(PastTime('When it moved')),
    notes: Notes,
    items: Type.Array(
      Type.Object(
        {
          item_id: Type.String({
            description: 'An item at from_location (invalid_parameter naming the line otherwise), each at most once',
            examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'],
          }),
          quantity: Moved('In the source item’s unit', 6),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 500, description: '1 to 500 lines' },
    ),
  },
  { additionalProperties: false },
)
export type TransferBody = Static<typeof TransferBody>

export const TransferLine = Type.Object({
  from_item_id: Type.String({ description: 'The source item', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  to_item_id: Type.String({
    description: 'The item of the same SKU at to_location (created by the transfer when that location had none)',
    examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e30'],
  }),
  quantity: Type.Number({ description: 'Moved, in the source item’s unit (the destination received it in its own unit: cases convert to the units they hold)', examples: [6] }),
  unit_cost: Type.Number({ description: 'The source item’s cost per unit at the time, in the account currency', examples: [18.5] }),
})

export const Transfer = Type.Object({
  id: Type.String({ description: 'The transfer’s id', examples: ['trf_01jd3a9b8c7d6e5f4g3h2j1k0m'] }),
  from_location: Type.String({ description: 'Where the stock left', examples: ['storeroom'] }),
  to_location: Type.String({ description: 'Where it arrived', examples: ['main_bar'] }),
  transferred_by: Type.String({ description: 'Who moved it', examples: ['Sam (bar back)'] }),
  notes: Nullable(Type.String({ description: 'As given', examples: ['for the Friday rush'] })),
  items: Type.Array(TransferLine, { description: 'The moved items, in the request’s order' }),
  transferred_at: { ...Timestamp, description: 'When it moved' },
  voided_at: Nullable({ ...Timestamp, description: 'When it was voided (DELETE): its movements were reversed; null while it stands' }),
  created_at: { ...Timestamp, description: 'When it was recorded' },
})
export type Transfer = Static<typeof Transfer>

export const ListTransfersQuery = Type.Object(
  {
    ...PageQuery,
    location: Type.Optional(Type.String({ description: 'Only transfers out of or into this location id (location_not_found otherwise)', examples: ['storeroom'] })),
    item_id: Type.Optional(Type.String({ description: 'Only transfers of this item, on either side', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] })),
    date_from: Type.Optional(DateQuery('2026-11-01')),
    date_to: Type.Optional(DateQuery('2026-11-30')),
  },
  { additionalProperties: false },
)
export type ListTransfersQuery = Static<typeof ListTransfersQuery>

// ---- Waste ----

export const WasteBody = Type.Object(
  {
    location: Type.String({ minLength: 1, description: 'Where it was wasted (location_not_found otherwise)', examples: ['main_bar'] }),
    recorded_by: Person('Who logged it', 'Maria'),
    occurred_at: Type.Optional(PastTime('When it happened')),
    items: Type.Array(
      Type.Object(
        {
          item_id: Type.String({ description: 'An item at the location (invalid_parameter naming the line otherwise)', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
          quantity: Moved('In unit', 1.5),
          unit: Type.Optional(
            Type.String({
              description: 'The item’s own unit (default), or for an item with size_ml a volume (ml, oz, liter, gallon: a spill is a pour); another unit is invalid_unit',
              examples: ['oz'],
            }),
          ),
          reason: Type.String({
            description: `One of ${WASTE_REASONS.join(', ')} (invalid_parameter listing them otherwise). A comp the POS rang is a sale: log only what the POS did not ring`,
            examples: ['spill'],
          }),
          notes: Notes,
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 500, description: '1 to 500 lines' },
    ),
  },
  { additionalProperties: false },
)
export type WasteBody = Static<typeof WasteBody>

export const WasteLine = Type.Object({
  item_id: Type.String({ description: 'The wasted item', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  name: Type.String({ description: 'The item’s name', examples: ["Tito's Handmade Vodka 750ml"] }),
  quantity: Type.Number({ description: 'As entered, in unit', examples: [1.5] }),
  unit: Type.String({ description: 'The unit it was entered in', examples: ['oz'] }),
  quantity_in_item_unit: Type.Number({ description: 'What left stock, in the item’s unit (4 decimals)', examples: [0.0591] }),
  reason: StringEnum(WASTE_REASONS, { description: 'Why', examples: ['spill'] }),
  notes: Nullable(Type.String({ description: 'As given', examples: ['knocked over at close'] })),
  cost: Type.Number({ description: 'quantity_in_item_unit × the item’s cost per unit at the time, in the account currency, 2 decimals', examples: [1.09] }),
})

export const WasteEntry = Type.Object({
  id: Type.String({ description: 'The waste entry’s id', examples: ['wst_01jd3a9b8c7d6e5f4g3h2j1k0m'] }),
  location: Type.String({ description: 'Where it was wasted', examples: ['main_bar'] }),
  recorded_by: Type.String({ description: 'Who logged it', examples: ['Maria'] }),
  occurred_at: { ...Timestamp, description: 'When it happened' },
  items: Type.Array(WasteLine, { description: 'The wasted items, in the request’s order' }),
  total_cost: Type.Number({ description: 'Σ cost of the lines, 2 decimals', examples: [1.09] }),
  voided_at: Nullable({ ...Timestamp, description: 'When it was voided (DELETE): its movements were reversed; null while it stands' }),
  created_at: { ...Timestamp, description: 'When it was recorded' },
})
export type WasteEntry = Static<typeof WasteEntry>

export const ListWasteQuery = Type.Object(
  {
    ...PageQuery,
    location: Type.Optional(Type.String({ description: 'Only waste at this location id (location_not_found otherwise)', examples: ['main_bar'] })),
    reason: Type.Optional(StringEnum(WASTE_REASONS, { description: 'Only entries with a line of this reason', examples: ['breakage'] })),
    date_from: Type.Optional(DateQuery('2026-11-01')),
    date_to: Type.Optional(DateQuery('2026-11-30')),
  },
  { additionalProperties: false },
)
export type ListWasteQuery = Static<typeof ListWasteQuery>

export const OperationParams = Type.Object({ id: Type.String({ description: 'The transfer’s or waste entry’s id', examples: ['trf_01jd3a9b8c7d6e5f4g3h2j1k0m'] }) })
