import { type Static, Type } from 'typebox'
import { Nullable, PageQuery, Timestamp } from '../../platform/http/schemas.js'
import { StringEnum } from '../../platform/http/types.js'
export const SYNC_TYPES = ['full', 'incremental', 'sales_only'] as const

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
