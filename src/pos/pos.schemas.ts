import { type Static, Type } from 'typebox'
import { domainMinimum, Nullable, NUMBER_LIMITS, PageQuery, Timestamp } from '../platform/http/schemas.js'
import { StringEnum } from '../platform/http/types.js'


export const SYNC_FREQUENCIES = ['realtime', 'hourly', 'daily'] as const
export const SYNC_TYPES = ['full', 'incremental', 'sales_only'] as const
export const MAX_IMPORT_LINES = 10_000
export const DEFAULT_CONFIDENCE_THRESHOLD = 0.85

const connectionFields = {
  id: Type.String({ examples: ['pos_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  pos_type: Type.String({ examples: ['square'] }),
  name: Type.String(),
  status: StringEnum(['active', 'inactive', 'error'], {
    description: 'active; inactive (not synced by the scheduler); error (the last run could not authenticate)',
  }),
  location: Type.String({ description: 'The location synced sales are recorded at' }),
  sync_frequency: StringEnum(SYNC_FREQUENCIES),
  last_sync: Nullable(Timestamp),
  push_url: Nullable(
    Type.String({
      examples: ['/v1/pos/push/pos_01jd2x3v4w5y6z7a8b9c0d1e2f'],
      description: 'Where the vendor posts pushes (webhooks), relative to the service address; null for vendors without pushes',
    }),
  ),
  push_verification_code: Nullable(
    Type.String({
      description:
        'The one-time code the vendor posted to push_url when its webhook was set up (Clover), to enter in the vendor’s dashboard; null until one arrives',
    }),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
}

export const PosConnection = Type.Object(connectionFields)
export type PosConnection = Static<typeof PosConnection>

export const CreatedPosConnection = Type.Object({
  ...connectionFields,
  first_sync_id: Type.String({
    examples: ['sync_01jd2x3v4w5y6z7a8b9c0d1e2f'],
    description:
      'The first sync run, queued with the connection (incremental: with no cursor yet it reads the last 30 days of sales) and triggered by this key; poll GET /v1/pos/syncs/:sync_id. Until it finishes, POST …/sync is 409 sync_in_progress',
  }),
  push_secret: Type.Optional(
    Type.String({ description: 'The generated push secret, shown in this response only (absent when push_secret was supplied)' }),
  ),
})
export type CreatedPosConnection = Static<typeof CreatedPosConnection>

const PushSecret = Type.String({
  minLength: 1,
  maxLength: 500,
  description: "The key the vendor signs pushes with (Square's signature key, Clover's X-Clover-Auth code…); write only",
})

export const SyncStats = Type.Object({
  total_syncs: Type.Integer({ description: 'Finished runs, completed or failed' }),
  failed_syncs: Type.Integer(),
  last_sync_duration_ms: Nullable(Type.Integer({ description: 'Duration of the last finished run' })),
})

export const PosConnectionWithStats = Type.Object({ ...connectionFields, sync_stats: SyncStats })
export type PosConnectionWithStats = Static<typeof PosConnectionWithStats>

export const ConnectionParams = Type.Object({ id: Type.String() })

export const ListConnectionsQuery = Type.Object({ ...PageQuery }, { additionalProperties: false })

export const CreateConnectionBody = Type.Object(
  {
    // Plain strings: an unknown type is pos_not_supported and a bad shape invalid_credentials, not schema errors.
    pos_type: Type.String({ description: 'toast, square, clover, lightspeed, simphony, spoton or revel' }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    credentials: Type.Record(Type.String(), Type.Unknown(), { description: 'The vendor credential object (docs/pos.md); write only' }),
    sync_frequency: Type.Optional(StringEnum(SYNC_FREQUENCIES, { default: 'hourly' })),
    location: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: 'Default main_bar' })),
    push_secret: Type.Optional(PushSecret),
  },
  { additionalProperties: false },
)
export type CreateConnectionBody = Static<typeof CreateConnectionBody>

export const UpdateConnectionBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    sync_frequency: Type.Optional(StringEnum(SYNC_FREQUENCIES)),
    location: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
    status: Type.Optional(StringEnum(['active', 'inactive'], { description: 'inactive pauses scheduled syncs' })),
    push_secret: Type.Optional(PushSecret),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateConnectionBody = Static<typeof UpdateConnectionBody>

export const TriggerSyncBody = Type.Object(
  { sync_type: Type.Optional(StringEnum(SYNC_TYPES, { default: 'incremental' })) },
  { additionalProperties: false },
)
export type TriggerSyncBody = Static<typeof TriggerSyncBody>

export const SyncResults = Type.Object({
  sales_synced: Type.Integer({ description: 'New sale lines stored (lines seen before are not counted)' }),
  products_synced: Type.Integer(),
  variance_detected: Type.Integer({ description: 'Inventory items this run took below zero' }),
})

export const SyncRun = Type.Object({
  sync_id: Type.String(),
  connection_id: Type.String(),
  status: StringEnum(['processing', 'completed', 'failed']),
  sync_type: StringEnum(SYNC_TYPES),
  started_at: Timestamp,
  estimated_completion: Timestamp,
  completed_at: Nullable(Timestamp),
  duration_seconds: Nullable(Type.Integer()),
  results: Nullable(SyncResults),
  error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
  interruptions: Type.Integer({
    minimum: 0,
    description:
      'Times a shutdown of the service stopped this run before it ended; each time it went back in the queue and ran again, under the same sync_id, from the start of its window, when the service started again (or at once on another instance). 0 for most runs',
  }),
})
export type SyncRun = Static<typeof SyncRun>

export const SyncParams = Type.Object({ sync_id: Type.String() })

export const ListSyncRunsQuery = Type.Object(
  {
    ...PageQuery,
    connection_id: Type.String({ minLength: 1, description: 'The connection whose runs to list (connection_not_found otherwise)', examples: ['pos_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  },
  { additionalProperties: false },
)
export type ListSyncRunsQuery = Static<typeof ListSyncRunsQuery>

export const ProductMapping = Type.Object({
  pos_item_id: Type.String(),
  pos_name: Type.String(),
  category: Nullable(Type.String({ description: 'The POS category' })),
  mapped: Type.Boolean({ description: 'true when the POS item is mapped to an inventory item or to a recipe' }),
  inventory_item_id: Nullable(Type.String({ description: 'The mapped inventory item; null for a recipe mapping and for an unmapped POS item' })),
  recipe_id: Nullable(Type.String({ description: 'The mapped recipe; null for an item mapping and for an unmapped POS item' })),
  inventory_name: Nullable(
    Type.String({ description: 'The mapped inventory item’s name, or the recipe’s name for a recipe mapping (its last name once deleted)' }),
  ),
  conversion_factor: Nullable(
    Type.Number({ description: 'Item mapping: amount of the item per POS unit, in conversion_unit. Recipe mapping: servings of the recipe per POS unit' }),
  ),
  conversion_unit: Nullable(Type.String({ description: 'The unit of an item mapping’s conversion_factor; null for a recipe mapping' })),
  last_synced: Nullable(Timestamp),
  suggestion: Nullable(
    Type.Object(
      {
        inventory_item_id: Type.String(),
        inventory_name: Type.String(),
        confidence: Type.Number(),
        reason: Nullable(Type.String({ description: 'Why it was not mapped: under the threshold, or a conversion that cannot be computed' })),
      },
      { description: 'An auto-map match left for review' },
    ),
  ),
  created_at: Nullable(Timestamp),
  updated_at: Nullable(Timestamp),
})
export type ProductMapping = Static<typeof ProductMapping>

export const MappingParams = Type.Object({ id: Type.String(), pos_item_id: Type.String() })

export const RejectedSuggestion = Type.Object({
  pos_item_id: Type.String({ description: 'The POS item whose suggestion was rejected', examples: ['TITO-DBL'] }),
  rejected_item_id: Type.String({ description: 'The inventory item auto-map will not suggest or map for it again', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
})

export const ListMappingsQuery = Type.Object(
  {
    ...PageQuery,
    mapped: Type.Optional(Type.Boolean()),
    category: Type.Optional(Type.String({ description: 'The POS category' })),
  },
  { additionalProperties: false },
)
export type ListMappingsQuery = Static<typeof ListMappingsQuery>

const ConversionFactor = Type.Number({
  exclusiveMinimum: 0,
  maximum: NUMBER_LIMITS.conversionFactor,
  description:
    'Greater than 0 and at most 1,000,000, up to 4 decimals. Item mapping: amount of the item per POS unit, in conversion_unit (required). Recipe mapping: servings per POS unit (default 1)',
})
const ConversionUnit = Type.String({
  description: 'Item mappings only: default oz for bottle/can/keg items (through size_ml), else the item unit. A recipe mapping takes none',
})

export const CreateMappingBody = Type.Object(
  {
    pos_item_id: Type.String({ minLength: 1, maxLength: 200 }),
    inventory_item_id: Type.Optional(Type.String({ description: 'The item one POS unit takes from; give this or recipe_id' })),
    recipe_id: Type.Optional(Type.String({ description: 'The recipe one POS unit serves (every ingredient is taken); give this or inventory_item_id' })),
    conversion_factor: Type.Optional(ConversionFactor),
    conversion_unit: Type.Optional(ConversionUnit),
    pos_name: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'For a POS item not reported yet' })),
  },
  { additionalProperties: false },
)
export type CreateMappingBody = Static<typeof CreateMappingBody>

export const UpdateMappingBody = Type.Object(
  { conversion_factor: ConversionFactor, conversion_unit: Type.Optional(ConversionUnit) },
  { additionalProperties: false },
)
export type UpdateMappingBody = Static<typeof UpdateMappingBody>

export const UpdatedMapping = Type.Object({
  pos_item_id: Type.String(),
  inventory_item_id: Nullable(Type.String({ description: 'null for a recipe mapping' })),
  recipe_id: Nullable(Type.String({ description: 'null for an item mapping' })),
  conversion_factor: Type.Number(),
  conversion_unit: Nullable(Type.String({ description: 'null for a recipe mapping' })),
  updated_at: Timestamp,
})
export type UpdatedMapping = Static<typeof UpdatedMapping>

export const AutoMapBody = Type.Object(
  {
    confidence_threshold: Type.Optional(
      Type.Number({ minimum: 0.6, maximum: 1, default: DEFAULT_CONFIDENCE_THRESHOLD, description: 'Default 0.85; 0.6 to 1' }),
    ),
  },
  { additionalProperties: false },
)
export type AutoMapBody = Static<typeof AutoMapBody>

const AutoMapped = Type.Object({
  pos_item_id: Type.String(),
  name: Type.String({ description: 'The POS item’s name' }),
  inventory_item_id: Type.String(),
  conversion_factor: Type.Number({ description: 'Amount of the item per POS unit, in conversion_unit' }),
  conversion_unit: Type.String(),
  confidence: Type.Number({ description: 'Name similarity, 0.6 to 1' }),
})

const AutoMapReview = Type.Object({
  pos_item_id: Type.String(),
  name: Type.String({ description: 'The POS item’s name' }),
  inventory_item_id: Type.String({ description: 'The suggested inventory item' }),
  confidence: Type.Number({ description: 'Name similarity, 0.6 to 1' }),
  reason: Type.String({ description: 'Why it was left for review: under the threshold, or a conversion that cannot be computed' }),
})

export const AutoMapResult = Type.Object({
  mappings_created: Type.Integer({ description: 'Unmapped POS items matched at or above the threshold with a conversion that can be computed' }),
  mappings_review: Type.Integer({
    description: 'Matches from 0.6 up, left as suggestions: under the threshold, or at it with a conversion that cannot be computed',
  }),
  unmapped_items: Type.Integer({ description: 'Unmapped POS items with no match of 0.6 or more' }),
  mapped: Type.Array(AutoMapped, { description: 'The mappings this call made' }),
  review: Type.Array(AutoMapReview, { description: 'The matches this call left for review, with the reason' }),
})
export type AutoMapResult = Static<typeof AutoMapResult>

export const ImportSalesBody = Type.Object(
  {
    connection_id: Type.String(),
    sales: Type.Array(
      Type.Object(
        {
          location: Type.String({ minLength: 1 }),
          pos_item_id: Type.String({ minLength: 1, maxLength: 200 }),
          name: Type.String({ minLength: 1, maxLength: 300 }),
          quantity: Type.Number({ ...domainMinimum(0, true), maximum: NUMBER_LIMITS.quantity, description: 'Units sold, greater than 0 and at most 1,000,000,000, up to 3 decimals' }),
          unit_price: Type.Number({ minimum: 0, maximum: NUMBER_LIMITS.money, description: 'Price of one unit, 0 to 1,000,000,000' }),
          sold_at: Type.String({ format: 'date-time' }),
          line_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Seen before on the connection: a duplicate' })),
          staff_id: Type.Optional(Type.String({ maxLength: 200 })),
          staff_name: Type.Optional(Type.String({ maxLength: 200 })),
          check_id: Type.Optional(Type.String({ maxLength: 200 })),
          tip: Type.Optional(Type.Number({ minimum: 0, maximum: NUMBER_LIMITS.money, description: 'Tip on the line, 0 to 1,000,000,000' })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_IMPORT_LINES },
    ),
  },
  { additionalProperties: false },
)
export type ImportSalesBody = Static<typeof ImportSalesBody>
export type ImportedSale = ImportSalesBody['sales'][number]

export const ImportSalesResult = Type.Object({
  import_id: Type.String({ description: 'The ledger reference of the depletion' }),
  imported: Type.Integer(),
  duplicates: Type.Integer(),
  unmapped: Type.Integer({ description: 'Imported lines whose POS item has no mapping yet' }),
})
export type ImportSalesResult = Static<typeof ImportSalesResult>

export const PushParams = Type.Object({ connection_id: Type.String() })

export const PushReceipt = Type.Object({
  kind: StringEnum(['orders_changed', 'catalog_changed', 'other'], { description: 'What the push said changed' }),
  queued: Type.Boolean({ description: 'false when a run was already queued or running, or the push asks for nothing' }),
  sync_id: Nullable(Type.String({ description: 'The run queued by this push, or the one already queued or running' })),
})
export type PushReceipt = Static<typeof PushReceipt>
