import { type Static, Type } from 'typebox'
import { Nullable } from '../../platform/http/schemas.js'
import { StringEnum } from '../../platform/http/types.js'
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
