import { type Static, Type } from 'typebox'
import { PageQuery, Timestamp } from '../platform/http/schemas.js'
import { StringEnum } from '../platform/http/types.js'
import { ALL_EVENTS } from './webhook-events.js'

export const WEBHOOK_STATUSES = ['active', 'disabled'] as const
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const

/**
 * The `events` a client may subscribe to: `kinds` (the event registry, given by the composition root,
 * since webhooks know no other domain) or `"*"`.
 */
function subscribedEvents(kinds: readonly string[]) {
  return Type.Array(StringEnum([...kinds, ALL_EVENTS]), {
    minItems: 1,
    maxItems: kinds.length,
    uniqueItems: true,
    description: `Event kinds to receive, each at most once (${kinds.join(', ')}), or ["*"] alone for every kind, including kinds added later`,
    examples: [['inventory.low_stock', 'order.shipped']],
  })
}
const EventsOut = Type.Array(Type.String(), { examples: [['inventory.low_stock', 'order.shipped']] })
const Status = StringEnum(WEBHOOK_STATUSES, { description: 'active, or disabled (nothing is sent)' })
const Id = Type.String({ examples: ['wh_01jd2x3v4w5y6z7a8b9c0d1e2f'] })
const Url = Type.String({ description: 'Where deliveries are POSTed' })

/** The create body, for the event kinds of the registry. */
export const createWebhookBody = (kinds: readonly string[]) =>
  Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'An absolute http or https URL on a public address (see docs/webhooks.md)',
    }),
    events: subscribedEvents(kinds),
    secret: Type.Optional(
      Type.String({
        minLength: 16,
        maxLength: 256,
        pattern: '^[\\x21-\\x7e]+$',
        description: 'Signing secret, 16 to 256 printable characters without spaces; generated when omitted',
      }),
    ),
  },
  { additionalProperties: false },
)
export type CreateWebhookBody = Static<ReturnType<typeof createWebhookBody>>

/** The update body, for the event kinds of the registry. */
export const updateWebhookBody = (kinds: readonly string[]) =>
  Type.Object(
  { events: Type.Optional(subscribedEvents(kinds)), status: Type.Optional(Status) },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateWebhookBody = Static<ReturnType<typeof updateWebhookBody>>

export const WebhookSummary = Type.Object({ id: Id, url: Url, events: EventsOut, status: Status, created_at: Timestamp })
export type WebhookSummary = Static<typeof WebhookSummary>

export const CreatedWebhook = Type.Object({
  id: Id,
  url: Url,
  events: EventsOut,
  secret: Type.String({ description: 'The signing secret: shown here only, store it now' }),
  status: Status,
  created_at: Timestamp,
})
export type CreatedWebhook = Static<typeof CreatedWebhook>

export const DeliveryStats = Type.Object({
  total_delivered: Type.Integer({ description: 'Attempts the receiver acknowledged with a 2xx' }),
  total_failed: Type.Integer({ description: 'Attempts that failed (other status, timeout, connection error, refused address)' }),
  last_delivery: Type.Union([Timestamp, Type.Null()], { description: 'Time of the latest attempt, null before the first' }),
})

export const WebhookDetail = Type.Object({
  id: Id,
  url: Url,
  events: EventsOut,
  status: Status,
  delivery_stats: DeliveryStats,
  created_at: Timestamp,
})
export type WebhookDetail = Static<typeof WebhookDetail>

export const UpdatedWebhook = Type.Object({ id: Id, events: EventsOut, status: Status, updated_at: Timestamp })
export type UpdatedWebhook = Static<typeof UpdatedWebhook>

export const DeliveryAttempt = Type.Object({
  attempt: Type.Integer({ description: '1 for the first attempt' }),
  attempted_at: Timestamp,
  status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'null when no HTTP answer came' }),
  duration_ms: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the attempt failed; null when it succeeded' }),
})

export const Delivery = Type.Object({
  id: Type.String({ examples: ['whd_0f6c1f6e9a2b4c1d8e7f6a5b4c3d2e1f'] }),
  webhook_id: Id,
  event_id: Type.String({ description: 'Also sent as X-Webhook-Id' }),
  event: Type.String({ description: 'The event kind, or ping' }),
  status: StringEnum(DELIVERY_STATUSES),
  next_attempt_at: Type.Union([Timestamp, Type.Null()], { description: 'When pending: when the next attempt is due' }),
  created_at: Timestamp,
  completed_at: Type.Union([Timestamp, Type.Null()], { description: 'When it was delivered, failed or cancelled' }),
  attempts: Type.Array(DeliveryAttempt, { description: 'Every attempt, oldest first' }),
})
export type Delivery = Static<typeof Delivery>

export const ListWebhooksQuery = Type.Object({ ...PageQuery }, { additionalProperties: false })

export const ListDeliveriesQuery = Type.Object(
  { ...PageQuery, status: Type.Optional(StringEnum(DELIVERY_STATUSES)) },
  { additionalProperties: false },
)
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuery>

export const WebhookParams = Type.Object({ id: Type.String() })
export const DeliveryParams = Type.Object({ id: Type.String(), delivery_id: Type.String() })
