import { type Static, Type } from 'typebox'
import type { EventDataOf } from '../../platform/outbox.js'
import { StringEnum } from '../../platform/http/types.js'

/** The POS events of the spec's Events table: their exact `data` fields, as schemas (webhooks, OpenAPI). */
const ConnectionId = Type.String({ description: 'The POS connection (GET /v1/pos/connections/{id})', examples: ['pos_01jd2z7k8m9n0p1q2r3s4t5v6w'] })
const PosType = Type.String({ description: 'The vendor: toast, square, clover, lightspeed, simphony, spoton or revel', examples: ['square'] })
const SyncId = Type.String({ description: 'The sync run (GET /v1/pos/syncs/{sync_id})', examples: ['sync_01jd3e5f6g7h8j9k0m1n2p3q4r'] })

export const PosSyncCompletedData = Type.Object(
  {
    connection_id: ConnectionId,
    pos_type: PosType,
    sync_id: SyncId,
    sync_type: Type.String({ description: 'full, incremental or sales_only', examples: ['incremental'] }),
    duration_seconds: Type.Integer({ description: 'How long the run took, in whole seconds', minimum: 0, examples: [14] }),
    sales_synced: Type.Integer({ description: 'Sale lines imported by the run', minimum: 0, examples: [318] }),
    products_synced: Type.Integer({ description: 'POS items read from the vendor’s catalog (0 for sales_only)', minimum: 0, examples: [126] }),
    variance_detected: Type.Integer({ description: 'Inventory items the run’s sales took below zero', minimum: 0, examples: [2] }),
    status: StringEnum(['success'] as const, { description: 'Always `success`', examples: ['success'] }),
  },
  { description: 'A POS sync run finished and its sales were applied to stock' },
)
export type PosSyncCompletedData = Static<typeof PosSyncCompletedData>

export const PosSyncFailedData = Type.Object(
  {
    connection_id: ConnectionId,
    pos_type: PosType,
    sync_id: SyncId,
    error_code: Type.String({
      description:
        'authentication_failed (the connection goes to status error), connection_failed, rate_limited, invalid_response, pos_not_supported, connection_deleted, interrupted or internal_error',
      examples: ['authentication_failed'],
    }),
    error_message: Type.String({ description: 'What went wrong, for a person', examples: ['Square refused the access token (HTTP 401)'] }),
    retry_after: Type.Integer({
      description: 'Seconds until the scheduler tries again (the connection’s sync_frequency), or the vendor’s Retry-After for rate_limited',
      minimum: 0,
      examples: [3600],
    }),
  },
  { description: 'A POS sync run failed; nothing of it was applied' },
)
export type PosSyncFailedData = Static<typeof PosSyncFailedData>

/** The POS events by kind, in the spec's order: the composition root assembles every domain's. */
export const posEvents = {
  'pos.sync_completed': PosSyncCompletedData,
  'pos.sync_failed': PosSyncFailedData,
}

declare module '../../platform/outbox.js' {
  interface EventCatalog extends EventDataOf<typeof posEvents> {}
}
