import { type Static, Type } from 'typebox'
import { Nullable, NUMBER_LIMITS, PageQuery, Timestamp } from '../../platform/http/schemas.js'
import { ConnectionParams } from '../connections/connections.schemas.js'
export const DEFAULT_CONFIDENCE_THRESHOLD = 0.85

export const UsagePerSale = Type.Object(
  {
    inventory_item_id: Type.String({ description: 'An item the mapping names (a recipe mapping: one entry per ingredient)', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
    inventory_name: Type.String({ description: 'Its name', examples: ["Tito's Handmade Vodka 750ml"] }),
    units: Type.Number({ description: 'Units of the item one POS unit depletes, in `unit`, 6 decimals: 1.5 oz of a 750 ml bottle is 0.059147', examples: [0.059147] }),
    unit: Type.String({ description: 'The item’s unit', examples: ['bottle'] }),
  },
  { description: 'What one POS unit depletes from one item' },
)
export type UsagePerSale = Static<typeof UsagePerSale>

export const MappingWarning = Type.Object(
  {
    code: Type.String({
      description:
        'implausible_usage: one POS unit depletes more than one container (bottle, can, keg) of an item, or less than one bottle or can of an item in category beer or cider (sold by the container)',
      examples: ['implausible_usage'],
    }),
    message: Type.String({
      description: 'What looks wrong and what to send instead',
      examples: ['1 sale takes 0.08329 bottle of Bud Light 12oz Bottle, a beer sold by the bottle: use conversion_unit bottle with a factor of 1'],
    }),
  },
  { description: 'A mapping that works but probably does not say what was meant' },
)
export type MappingWarning = Static<typeof MappingWarning>

export const ProductMapping = Type.Object({
  pos_item_id: Type.String({ description: 'The POS’s id of the item', examples: ['SQ-ITEM-TITOS-SHOT'] }),
  pos_name: Type.String({ description: 'The POS’s name of the item', examples: ["Tito's Vodka Shot"] }),
  category: Nullable(Type.String({ description: 'The POS category', examples: ['Vodka'] })),
  mapped: Type.Boolean({ description: 'true when the POS item is mapped to an inventory item or to a recipe', examples: [true] }),
  inventory_item_id: Nullable(
    Type.String({ description: 'The mapped inventory item; null for a recipe mapping and for an unmapped POS item', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  ),
  recipe_id: Nullable(Type.String({ description: 'The mapped recipe; null for an item mapping and for an unmapped POS item', examples: [null] })),
  inventory_name: Nullable(
    Type.String({
      description: 'The mapped inventory item’s name, or the recipe’s name for a recipe mapping (its last name once deleted)',
      examples: ["Tito's Handmade Vodka 750ml"],
    }),
  ),
  conversion_factor: Nullable(
    Type.Number({ description: 'Item mapping: amount of the item per POS unit, in conversion_unit. Recipe mapping: servings of the recipe per POS unit', examples: [1.5] }),
  ),
  conversion_unit: Nullable(Type.String({ description: 'The unit of an item mapping’s conversion_factor; null for a recipe mapping', examples: ['oz'] })),
  usage_per_sale: Type.Array(UsagePerSale, {
    description:
      'What one POS unit depletes, per item, in the item’s unit: one entry for an item mapping, one per live ingredient for a recipe mapping; empty when unmapped or when the mapped item or recipe was deleted (its sales deplete nothing)',
  }),
  warnings: Type.Array(MappingWarning, { description: 'Why the mapping looks wrong; empty when none. The mapping works either way' }),
  last_synced: Nullable(Timestamp, 'When a sync last reported the POS item'),
  suggestion: Nullable(
    Type.Object(
      {
        inventory_item_id: Type.String({ description: 'The suggested inventory item', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
        location: Type.String({ description: 'That item’s location: lines sold at another location that stocks its SKU deplete the item there', examples: ['main_bar'] }),
        inventory_name: Type.String({ description: 'Its name', examples: ["Tito's Handmade Vodka 750ml"] }),
        confidence: Type.Number({ description: 'Name similarity, 0.6 to 1', examples: [0.78] }),
        reason: Nullable(
          Type.String({
            description: 'Why it was not mapped: under the threshold, or a conversion that cannot be computed',
            examples: ['confidence 0.78 is below the threshold 0.85'],
          }),
        ),
      },
      { description: 'An auto-map match left for review' },
    ),
    'An auto-map match left for review (accept it with POST …/mappings); null when none',
  ),
  created_at: Nullable(Timestamp, 'When the mapping was made; null when unmapped'),
  updated_at: Nullable(Timestamp, 'When the mapping last changed; null when unmapped'),
})
export type ProductMapping = Static<typeof ProductMapping>

export const MappingParams = Type.Object({
  id: ConnectionParams.properties.id,
  pos_item_id: Type.String({ description: 'The POS’s id of the item', examples: ['SQ-ITEM-TITOS-SHOT'] }),
})

export const RejectedSuggestion = Type.Object({
  pos_item_id: Type.String({ description: 'The POS item whose suggestion was rejected', examples: ['TITO-DBL'] }),
  rejected_item_id: Type.String({ description: 'The inventory item auto-map will not suggest or map for it again', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
})

export const ListMappingsQuery = Type.Object(
  {
    ...PageQuery,
    mapped: Type.Optional(Type.Boolean({ description: 'true: only mapped POS items; false: only unmapped ones', examples: [false] })),
    category: Type.Optional(Type.String({ description: 'Only POS items of this POS category', examples: ['Vodka'] })),
  },
  { additionalProperties: false },
)
export type ListMappingsQuery = Static<typeof ListMappingsQuery>

const CONVERSION_FACTOR_LIMITS = { exclusiveMinimum: 0, maximum: NUMBER_LIMITS.conversionFactor, examples: [1.5] }
const CONVERSION_FACTOR_MEANING =
  'Greater than 0 and at most 1,000,000, up to 4 decimals. Item mapping: amount of the item per POS unit, in conversion_unit (required). Recipe mapping: servings per POS unit (default 1)'
const ConversionFactor = Type.Number({ ...CONVERSION_FACTOR_LIMITS, description: CONVERSION_FACTOR_MEANING })
const ConversionUnit = Type.String({
  description: 'Item mappings only: default oz for bottle/can/keg items (through size_ml), else the item unit. A recipe mapping takes none',
  examples: ['oz'],
})

export const CreateMappingBody = Type.Object(
  {
    pos_item_id: Type.String({ minLength: 1, maxLength: 200, description: 'The POS’s id of the item, 1 to 200 characters', examples: ['SQ-ITEM-TITOS-SHOT'] }),
    inventory_item_id: Type.Optional(Type.String({ description: 'The item one POS unit takes from; give this or recipe_id', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] })),
    recipe_id: Type.Optional(
      Type.String({ description: 'The recipe one POS unit serves (every ingredient is taken); give this or inventory_item_id', examples: ['rcp_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
    ),
    conversion_factor: Type.Optional(ConversionFactor),
    conversion_unit: Type.Optional(ConversionUnit),
    pos_name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 300,
        description: 'The POS item’s name, for a POS item no sync has reported yet; 1 to 300 characters',
        examples: ["Tito's Vodka Shot"],
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ pos_item_id: 'SQ-ITEM-TITOS-SHOT', inventory_item_id: 'item_01jd2x3v4w5y6z7a8b9c0d1e2f', conversion_factor: 1.5, conversion_unit: 'oz' }],
  },
)
export type CreateMappingBody = Static<typeof CreateMappingBody>

export const UpdateMappingBody = Type.Object(
  {
    inventory_item_id: Type.Optional(
      Type.String({ description: 'Re-points the mapping to this item (from another item or from a recipe)', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
    ),
    recipe_id: Type.Optional(Type.String({ description: 'Re-points the mapping to this recipe (from an item or another recipe)', examples: ['rcp_01jd2x3v4w5y6z7a8b9c0d1e2f'] })),
    conversion_factor: Type.Optional(
      Type.Number({
        ...CONVERSION_FACTOR_LIMITS,
        description: `${CONVERSION_FACTOR_MEANING}. Kept when not given; required when switching between an item and a recipe`,
      }),
    ),
    conversion_unit: Type.Optional(ConversionUnit),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ inventory_item_id: 'item_01jd2x3v4w5y6z7a8b9c0d1e2f', conversion_factor: 1, conversion_unit: 'bottle' }] },
)
export type UpdateMappingBody = Static<typeof UpdateMappingBody>

export const AutoMapBody = Type.Object(
  {
    confidence_threshold: Type.Optional(
      Type.Number({
        minimum: 0.6,
        maximum: 1,
        default: DEFAULT_CONFIDENCE_THRESHOLD,
        description: 'Name similarity from which a match is mapped, 0.6 to 1, default 0.85; weaker matches from 0.6 become suggestions',
        examples: [0.85],
      }),
    ),
  },
  { additionalProperties: false },
)
export type AutoMapBody = Static<typeof AutoMapBody>

const AutoMapped = Type.Object({
  pos_item_id: Type.String({ description: 'The POS’s id of the item', examples: ['SQ-ITEM-TITOS-SHOT'] }),
  name: Type.String({ description: 'The POS item’s name', examples: ["Tito's Vodka Shot"] }),
  inventory_item_id: Type.String({ description: 'The inventory item it was mapped to', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  location: Type.String({ description: 'That item’s location: lines sold at another location that stocks its SKU deplete the item there', examples: ['main_bar'] }),
  conversion_factor: Type.Number({ description: 'Amount of the item per POS unit, in conversion_unit', examples: [1.5] }),
  conversion_unit: Type.String({ description: 'The unit of conversion_factor', examples: ['oz'] }),
  confidence: Type.Number({ description: 'Name similarity, 0.6 to 1', examples: [0.93] }),
})

const AutoMapReview = Type.Object({
  pos_item_id: Type.String({ description: 'The POS’s id of the item', examples: ['SQ-ITEM-HOUSE-MARG'] }),
  name: Type.String({ description: 'The POS item’s name', examples: ['House Marg'] }),
  inventory_item_id: Type.String({ description: 'The suggested inventory item', examples: ['item_01jd2x4a5b6c7d8e9f0g1h2j3k'] }),
  location: Type.String({ description: 'That item’s location: lines sold at another location that stocks its SKU deplete the item there', examples: ['main_bar'] }),
  confidence: Type.Number({ description: 'Name similarity, 0.6 to 1', examples: [0.71] }),
  reason: Type.String({
    description: 'Why it was left for review: under the threshold, or a conversion that cannot be computed',
    examples: ['confidence 0.71 is below the threshold 0.85'],
  }),
})

export const AutoMapResult = Type.Object({
  mappings_created: Type.Integer({ description: 'Unmapped POS items matched at or above the threshold with a conversion that can be computed', examples: [1] }),
  mappings_review: Type.Integer({
    description: 'Matches from 0.6 up, left as suggestions: under the threshold, or at it with a conversion that cannot be computed',
    examples: [1],
  }),
  unmapped_items: Type.Integer({ description: 'Unmapped POS items with no match of 0.6 or more', examples: [4] }),
  mapped: Type.Array(AutoMapped, { description: 'The mappings this call made' }),
  review: Type.Array(AutoMapReview, { description: 'The matches this call left for review, with the reason' }),
})
export type AutoMapResult = Static<typeof AutoMapResult>
