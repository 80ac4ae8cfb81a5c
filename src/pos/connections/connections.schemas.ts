import { type Static, Type } from 'typebox'
import { Nullable, PageQuery, Timestamp } from '../../platform/http/schemas.js'
import { StringEnum } from '../../platform/http/types.js'
export const SYNC_FREQUENCIES = ['realtime', 'hourly', 'daily'] as const
/** The runs a create may queue as its first: sales_only would leave the connection without its menu. */
export const INITIAL_SYNC_TYPES = ['incremental', 'full'] as const

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
