import { type Static, Type } from 'typebox'
import { domainMinimum, Nullable, NUMBER_LIMITS, PageQuery, Timestamp } from '../platform/http/schemas.js'
import { StringEnum } from '../platform/http/types.js'

export const SYNC_FREQUENCIES = ['realtime', 'hourly', 'daily'] as const
export const SYNC_TYPES = ['full', 'incremental', 'sales_only'] as const
/** The runs a create may queue as its first: sales_only would leave the connection without its menu. */
export const INITIAL_SYNC_TYPES = ['incremental', 'full'] as const
export const MAX_IMPORT_LINES = 10_000
export const DEFAULT_CONFIDENCE_THRESHOLD = 0.85

const connectionFields = {
  id: Type.String({ description: 'The connection’s id', examples: ['pos_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  pos_type: Type.String({ description: 'toast, square, clover, lightspeed, simphony, spoton or revel', examples: ['square'] }),
  name: Type.String({ description: 'Its name', examples: ['Square – Main Bar'] }),
  status: StringEnum(['active', 'inactive', 'error'], {
    description: 'active; inactive (not synced by the scheduler); error (the last run could not authenticate)',
    examples: ['active'],
  }),
  location: Type.String({ description: 'The location id synced sales are recorded at', examples: ['main_bar'] }),
  sync_frequency: StringEnum(SYNC_FREQUENCIES, {
    description: 'How often the scheduler syncs: realtime (every minute, and on vendor pushes), hourly or daily',
    examples: ['hourly'],
  }),
  last_sync: Nullable(Timestamp, 'When its last run completed; null before the first'),
  push_url: Nullable(
    Type.String({
      examples: ['/v1/pos/push/pos_01jd2x3v4w5y6z7a8b9c0d1e2f'],
      description: 'Where the vendor posts pushes (webhooks), relative to the service address; null for vendors without pushes',
    }),
  ),
  push_verification_code: Nullable(
    Type.String({
      description: 'The one-time code the vendor posted to push_url when its webhook was set up (Clover), to enter in the vendor’s dashboard; null until one arrives',
      examples: [null],
    }),
  ),
  sales_reread_hours: Nullable(
    Type.Integer({
      description:
        'How many hours before the last run an incremental run reads sales again (lines seen before are skipped); null: the vendor’s default (10 minutes; lightspeed 48 hours, for back-office cancellations dated to the original sale)',
      examples: [null],
    }),
  ),
  created_at: { ...Timestamp, description: 'When it was created' },
  updated_at: { ...Timestamp, description: 'When it last changed' },
}

/** Hours of sales an incremental run reads again: up to 30 days (what a full run reads). */
const SalesRereadHours = Type.Integer({
  minimum: 0,
  maximum: 720,
  description:
    'Hours before its last run an incremental run reads sales again, 0 to 720 (30 days); null (or absent on create) for the vendor’s default. Raise it for a Lightspeed location that cancels in the back office later than 48 hours after a sale: K-Series dates such a cancellation to the sale and offers no listing by the time it was filed',
  examples: [120],
})

export const PosConnection = Type.Object(connectionFields)
export type PosConnection = Static<typeof PosConnection>

export const CreatedPosConnection = Type.Object({
  ...connectionFields,
  first_sync_id: Nullable(
    Type.String({
      examples: ['sync_01jd2x3v4w5y6z7a8b9c0d1e2f'],
      description:
        'The sync run initial_sync queued with the connection, triggered by this key; poll GET /v1/pos/syncs/:sync_id (until it finishes, POST …/sync is 409 sync_in_progress). null when the create asked for none: no run is queued, and POST …/sync starts the first',
    }),
  ),
  push_secret: Type.Optional(
    Type.String({
      description: 'The generated push secret, shown in this response only (absent when push_secret was supplied)',
      examples: ['pps_q3Vx8bN2kL7mR4tY9wE1hJ6dF0sA5gC2'],
    }),
  ),
})
export type CreatedPosConnection = Static<typeof CreatedPosConnection>

const PushSecret = Type.String({
  minLength: 1,
  maxLength: 500,
  description: "The key the vendor signs pushes with (Square's signature key, Clover's X-Clover-Auth code…), 1 to 500 characters; write only. Generated when omitted",
  examples: ['sqwh_sig_4Kp9Xw2Qz7Lm1Rt8'],
})

export const SyncStats = Type.Object(
  {
    total_syncs: Type.Integer({ description: 'Finished runs, completed or failed', examples: [412] }),
    failed_syncs: Type.Integer({ description: 'Finished runs that failed', examples: [3] }),
    last_sync_duration_ms: Nullable(Type.Integer({ description: 'Duration of the last finished run, in milliseconds; null before the first', examples: [14210] })),
  },
  { description: 'How its sync runs went' },
)

export const PosConnectionWithStats = Type.Object({ ...connectionFields, sync_stats: SyncStats })
export type PosConnectionWithStats = Static<typeof PosConnectionWithStats>

export const ConnectionParams = Type.Object({ id: Type.String({ description: 'The connection’s id', examples: ['pos_01jd2x3v4w5y6z7a8b9c0d1e2f'] }) })

export const ListConnectionsQuery = Type.Object({ ...PageQuery }, { additionalProperties: false })

export const CreateConnectionBody = Type.Object(
  {
    // Plain strings: an unknown type is pos_not_supported and a bad shape invalid_credentials, not schema errors.
    pos_type: Type.String({ description: 'toast, square, clover, lightspeed, simphony, spoton or revel (pos_not_supported otherwise)', examples: ['square'] }),
    name: Type.String({ minLength: 1, maxLength: 200, description: 'A name for the connection, 1 to 200 characters', examples: ['Square – Main Bar'] }),
    credentials: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'The vendor’s credential object, its fields depending on pos_type (Square: access_token, location_id; docs/pos.md lists each vendor’s); write only, never returned',
      examples: [{ access_token: 'EAAAl3xampleSquareAccessToken', location_id: 'L8Z6W0MAIN1BAR' }],
    }),
    sync_frequency: Type.Optional(StringEnum(SYNC_FREQUENCIES, { default: 'hourly', description: 'realtime, hourly (default) or daily' })),
    location: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: 'The location id sales are recorded at, default main_bar', examples: ['main_bar'] })),
    push_secret: Type.Optional(PushSecret),
    sales_reread_hours: Type.Optional(SalesRereadHours),
    initial_sync: Type.Optional(
      StringEnum(INITIAL_SYNC_TYPES, {
        description:
          'Queues a first sync run of this type with the connection, answered as first_sync_id: incremental (with no cursor yet it reads the last 30 days of sales, and the menu) or full. Absent: no run is queued; POST …/sync starts the first, and the scheduler’s first run is one sync_frequency after the create',
        examples: ['incremental'],
      }),
    ),
  },
  { additionalProperties: false },
)
export type CreateConnectionBody = Static<typeof CreateConnectionBody>

export const UpdateConnectionBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A name for the connection, 1 to 200 characters', examples: ['Square – Rooftop'] })),
    sync_frequency: Type.Optional(StringEnum(SYNC_FREQUENCIES, { description: 'realtime, hourly or daily' })),
    location: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: 'The location id sales are recorded at from now on', examples: ['main_bar'] })),
    status: Type.Optional(StringEnum(['active', 'inactive'], { description: 'inactive pauses scheduled syncs; active resumes them' })),
    push_secret: Type.Optional(PushSecret),
    sales_reread_hours: Type.Optional(Nullable(SalesRereadHours)),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateConnectionBody = Static<typeof UpdateConnectionBody>

export const TriggerSyncBody = Type.Object(
  {
    sync_type: Type.Optional(
      StringEnum(SYNC_TYPES, {
        default: 'incremental',
        description: 'incremental (default: sales since the last run, and the catalog), full (the whole history window again) or sales_only (no catalog)',
      }),
    ),
  },
  { additionalProperties: false },
)
export type TriggerSyncBody = Static<typeof TriggerSyncBody>

export const SyncResults = Type.Object(
  {
    sales_synced: Type.Integer({ description: 'New sale lines stored (lines seen before are not counted)', examples: [318] }),
    products_synced: Type.Integer({ description: 'POS items read from the vendor’s catalog (0 for sales_only)', examples: [126] }),
    variance_detected: Type.Integer({ description: 'Inventory items this run took below zero', examples: [2] }),
  },
  { description: 'What a completed run did' },
)

export const SyncRun = Type.Object({
  sync_id: Type.String({ description: 'The run’s id', examples: ['sync_01jd3e5f6g7h8j9k0m1n2p3q4r'] }),
  connection_id: Type.String({ description: 'Its connection', examples: ['pos_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  status: StringEnum(['processing', 'completed', 'failed'], { description: 'processing until it completes or fails', examples: ['completed'] }),
  sync_type: StringEnum(SYNC_TYPES, { description: 'full, incremental or sales_only', examples: ['incremental'] }),
  started_at: { ...Timestamp, description: 'When it started' },
  estimated_completion: { ...Timestamp, description: 'When it is expected to be done (a guess from the sync type)' },
  completed_at: Nullable(Timestamp, 'When it completed or failed; null while processing'),
  duration_seconds: Nullable(Type.Integer({ description: 'How long it took, in whole seconds; null while processing', examples: [14] })),
  results: Nullable(SyncResults, 'What it did; null unless completed'),
  error: Nullable(
    Type.Object(
      {
        code: Type.String({
          description: 'authentication_failed, connection_failed, rate_limited, invalid_response, connection_deleted, interrupted or internal_error',
          examples: ['authentication_failed'],
        }),
        message: Type.String({ description: 'What went wrong, for a person', examples: ['Square refused the access token (HTTP 401)'] }),
      },
      { description: 'Why it failed' },
    ),
    'Why it failed; null unless failed',
  ),
  interruptions: Type.Integer({
    minimum: 0,
    description:
      'Times a shutdown of the service stopped this run before it ended; each time it went back in the queue and ran again, under the same sync_id, from the start of its window, when the service started again (or at once on another instance). 0 for most runs',
    examples: [0],
  }),
})
export type SyncRun = Static<typeof SyncRun>

export const SyncParams = Type.Object({ sync_id: Type.String({ description: 'The run’s id', examples: ['sync_01jd3e5f6g7h8j9k0m1n2p3q4r'] }) })

export const ListSyncRunsQuery = Type.Object(
  {
    ...PageQuery,
    connection_id: Type.String({ minLength: 1, description: 'The connection whose runs to list (connection_not_found otherwise)', examples: ['pos_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  },
  { additionalProperties: false },
)
export type ListSyncRunsQuery = Static<typeof ListSyncRunsQuery>

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

export const ImportSalesBody = Type.Object(
  {
    connection_id: Type.String({ description: 'The connection the lines belong to (connection_not_found otherwise)', examples: ['pos_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
    sales: Type.Array(
      Type.Object(
        {
          location: Type.String({ minLength: 1, description: 'The location id the sale happened at (location_not_found otherwise)', examples: ['main_bar'] }),
          pos_item_id: Type.String({ minLength: 1, maxLength: 200, description: 'The POS’s id of the item sold, 1 to 200 characters', examples: ['SQ-ITEM-TITOS-SHOT'] }),
          name: Type.String({ minLength: 1, maxLength: 300, description: 'The POS item’s name, 1 to 300 characters', examples: ["Tito's Vodka Shot"] }),
          quantity: Type.Number({
            ...domainMinimum(0, true),
            maximum: NUMBER_LIMITS.quantity,
            description: 'Units sold, greater than 0 and at most 1,000,000,000, up to 3 decimals',
            examples: [2],
          }),
          unit_price: Type.Number({ minimum: 0, maximum: NUMBER_LIMITS.money, description: 'Price of one unit in the account currency, 0 to 1,000,000,000', examples: [9] }),
          sold_at: Type.String({ format: 'date-time', description: 'When it was sold (its business day follows the location’s cutoff)', examples: ['2026-11-22T23:41:00Z'] }),
          line_id: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 200,
              description: 'The POS’s id of the line; a line_id seen before on the connection is a duplicate, skipped',
              examples: ['chk-20261122-0193-1'],
            }),
          ),
          staff_id: Type.Optional(Type.String({ maxLength: 200, description: 'Who sold it, the POS’s staff id (staff reports)', examples: ['emp_042'] })),
          staff_name: Type.Optional(Type.String({ maxLength: 200, description: 'That person’s name', examples: ['Jordan Lee'] })),
          check_id: Type.Optional(Type.String({ maxLength: 200, description: 'The check (ticket) the line is on (average ticket in reports)', examples: ['chk-20261122-0193'] })),
          tip: Type.Optional(Type.Number({ minimum: 0, maximum: NUMBER_LIMITS.money, description: 'Tip on the line in the account currency, 0 to 1,000,000,000', examples: [3] })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_IMPORT_LINES, description: '1 to 10,000 sale lines' },
    ),
  },
  { additionalProperties: false },
)
export type ImportSalesBody = Static<typeof ImportSalesBody>
export type ImportedSale = ImportSalesBody['sales'][number]

export const ImportSalesResult = Type.Object({
  import_id: Type.String({ description: 'The import’s id, the ledger reference of the stock it took', examples: ['imp_01jd3f6g7h8j9k0m1n2p3q4r5s'] }),
  imported: Type.Integer({ description: 'Lines stored', examples: [1] }),
  duplicates: Type.Integer({ description: 'Lines skipped because their line_id was seen before', examples: [0] }),
  unmapped: Type.Integer({ description: 'Imported lines whose POS item has no mapping yet (they take stock once mapped)', examples: [0] }),
})
export type ImportSalesResult = Static<typeof ImportSalesResult>

export const PushParams = Type.Object({
  connection_id: Type.String({ description: 'The connection the push is for (its push_url)', examples: ['pos_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
})

export const PushReceipt = Type.Object({
  kind: StringEnum(['orders_changed', 'catalog_changed', 'other'], { description: 'What the push said changed', examples: ['orders_changed'] }),
  queued: Type.Boolean({ description: 'false when a run was already queued or running, or the push asks for nothing', examples: [true] }),
  sync_id: Nullable(Type.String({ description: 'The run queued by this push, or the one already queued or running', examples: ['sync_01jd3e5f6g7h8j9k0m1n2p3q4r'] })),
})
export type PushReceipt = Static<typeof PushReceipt>

export const AppPushParams = Type.Object({
  pos_type: Type.String({ description: 'The vendor whose app posts here: clover (one webhook URL per Clover app)', examples: ['clover'] }),
})

export const AppPushReceipt = Type.Object({
  kind: StringEnum(['orders_changed', 'catalog_changed', 'other'], { description: 'What the push said changed', examples: ['orders_changed'] }),
  verification_code_received: Type.Boolean({
    description:
      "true for Clover's one-time set-up request: its verificationCode is kept for the operator to read with GET /v1/pos/push/apps/clover and enter in Clover's dashboard",
    examples: [false],
  }),
  connections: Type.Array(
    Type.Object({
      connection_id: Type.String({ description: 'A connection of a merchant the push names, whose push_secret verified it', examples: ['pos_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
      kind: StringEnum(['orders_changed', 'catalog_changed', 'other'], { description: 'What the push said changed', examples: ['orders_changed'] }),
      queued: Type.Boolean({ description: 'false when a run was already queued or running, the push asks for nothing, or the connection is skipped', examples: [true] }),
      sync_id: Nullable(Type.String({ description: 'The run queued by this push, or the one already queued or running', examples: ['sync_01jd3e5f6g7h8j9k0m1n2p3q4r'] })),
      skipped: Nullable(
        StringEnum(['not_realtime', 'inactive'], { description: 'Why nothing was queued: the connection is not realtime, or paused; null otherwise', examples: [null] }),
      ),
    }),
    { description: 'One entry per connection the push reached (none when it names no connected merchant)' },
  ),
})
export type AppPushReceipt = Static<typeof AppPushReceipt>

export const AppPushSetup = Type.Object({
  pos_type: Type.String({ description: 'The vendor whose app posts to this URL', examples: ['clover'] }),
  push_url: Type.String({
    description: "The app's one webhook URL, relative to the service address: give it to the vendor in full (https://<service>/v1/pos/push/apps/clover)",
    examples: ['/v1/pos/push/apps/clover'],
  }),
  verification_code: Nullable(
    Type.String({
      description:
        "The last one-time code the vendor posted to push_url when the app's webhook URL was set up (Clover's verificationCode), to enter in the vendor's dashboard; null until one arrives. The URL takes it without a signature (the vendor sends none), so a code that Clover's dashboard refuses was not Clover's: have Clover send it again",
      examples: ['ce7643c1-83ea-4218-abe6-da876c9c7a0a'],
    }),
  ),
  verification_code_received_at: Nullable(
    Type.String({ format: 'date-time', description: 'When verification_code arrived; null until one arrives', examples: ['2026-11-26T13:05:00.000Z'] }),
  ),
})
export type AppPushSetup = Static<typeof AppPushSetup>
