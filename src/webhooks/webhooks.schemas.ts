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
const EventsOut = Type.Array(Type.String(), { description: 'The event kinds it receives, or ["*"] for all', examples: [['inventory.low_stock', 'order.shipped']] })
const Status = StringEnum(WEBHOOK_STATUSES, { description: 'active, or disabled (nothing is sent)', examples: ['active'] })
const Id = Type.String({ description: 'The webhook’s id', examples: ['wh_01jd2x3v4w5y6z7a8b9c0d1e2f'] })
const Url = Type.String({ description: 'Where deliveries are POSTed', examples: ['https://hooks.thecopperbar.example/barstock'] })

/** The create body, for the event kinds of the registry. */
export const createWebhookBody = (kinds: readonly string[]) =>
  Type.Object(
    {
      url: Type.String({
        minLength: 1,
        maxLength: 2048,
        description: 'An absolute http or https URL on a public address, 1 to 2,048 characters, without user:password@; cannot change later',
        examples: ['https://hooks.thecopperbar.example/barstock'],
      }),
      events: subscribedEvents(kinds),
      secret: Type.Optional(
        Type.String({
          minLength: 16,
          maxLength: 256,
          pattern: '^[\\x21-\\x7e]+$',
          description: 'Signing secret, 16 to 256 printable ASCII characters without spaces; generated (whsec_…) when omitted',
          examples: ['whsec_Zx8kq2VbN4mP7rT1yW3eH6jL9sD0fG5a'],
        }),
      ),
    },
    { additionalProperties: false },
  )
export type CreateWebhookBody = Static<ReturnType<typeof createWebhookBody>>

/** The update body, for the event kinds of the registry. */
export const updateWebhookBody = (kinds: readonly string[]) =>
  Type.Object({ events: Type.Optional(subscribedEvents(kinds)), status: Type.Optional(Status) }, { additionalProperties: false, minProperties: 1 })
export type UpdateWebhookBody = Static<ReturnType<typeof updateWebhookBody>>

export const WebhookSummary = Type.Object({ id: Id, url: Url, events: EventsOut, status: Status, created_at: { ...Timestamp, description: 'When it was created' } })
export type WebhookSummary = Static<typeof WebhookSummary>

export const CreatedWebhook = Type.Object({
  id: Id,
  url: Url,
  events: EventsOut,
  secret: Type.String({ description: 'The signing secret: shown here only, store it now', examples: ['whsec_Zx8kq2VbN4mP7rT1yW3eH6jL9sD0fG5a'] }),
  status: Status,
  created_at: Timestamp,
})
export type CreatedWebhook = Static<typeof CreatedWebhook>

export const DeliveryStats = Type.Object(
  {
    total_delivered: Type.Integer({ description: 'Attempts the receiver acknowledged with a 2xx', examples: [1284] }),
    total_failed: Type.Integer({ description: 'Attempts that failed (other status, timeout, connection error, refused address)', examples: [3] }),
    last_delivery: Type.Union([Timestamp, Type.Null()], { description: 'Time of the latest attempt, null before the first' }),
  },
  { description: 'Its delivery attempts so far' },
)

export const WebhookDetail = Type.Object({
  id: Id,
  url: Url,
  events: EventsOut,
  status: Status,
  delivery_stats: DeliveryStats,
  created_at: Timestamp,
})
export type WebhookDetail = Static<typeof WebhookDetail>

export const UpdatedWebhook = Type.Object({ id: Id, events: EventsOut, status: Status, updated_at: { ...Timestamp, description: 'When it changed' } })
export type UpdatedWebhook = Static<typeof UpdatedWebhook>

export const DeliveryAttempt = Type.Object({
  attempt: Type.Integer({ description: 'The attempt’s number, 1 for the first', examples: [1] }),
  attempted_at: { ...Timestamp, description: 'When it was made' },
  status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'The receiver’s HTTP status; null when no HTTP answer came', examples: [200] }),
  duration_ms: Type.Integer({ description: 'How long it took, in milliseconds (at most the 5,000 ms timeout)', examples: [182] }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the attempt failed; null when it succeeded', examples: [null] }),
})

export const Delivery = Type.Object({
  id: Type.String({ description: 'The delivery’s id', examples: ['whd_0f6c1f6e9a2b4c1d8e7f6a5b4c3d2e1f'] }),
  webhook_id: Id,
  event_id: Type.String({ description: 'The event’s id, also sent as X-Webhook-Id', examples: ['evt_01jd3k6m2q8v4r7t9w1y3z5b7c'] }),
  event: Type.String({ description: 'The event kind, or ping', examples: ['inventory.low_stock'] }),
  status: StringEnum(DELIVERY_STATUSES, {
    description: 'pending (an attempt is due), delivered, failed (retries over) or cancelled (the webhook was disabled)',
    examples: ['delivered'],
  }),
  next_attempt_at: Type.Union([Timestamp, Type.Null()], { description: 'When pending: when the next attempt is due; null otherwise', examples: [null] }),
  created_at: { ...Timestamp, description: 'When the delivery was queued' },
  completed_at: Type.Union([Timestamp, Type.Null()], { description: 'When it was delivered, failed or cancelled; null while pending' }),
  attempts: Type.Array(DeliveryAttempt, { description: 'Every attempt, oldest first' }),
})
export type Delivery = Static<typeof Delivery>

export const ListWebhooksQuery = Type.Object({ ...PageQuery }, { additionalProperties: false })

export const ListDeliveriesQuery = Type.Object(
  { ...PageQuery, status: Type.Optional(StringEnum(DELIVERY_STATUSES, { description: 'Only deliveries in this status' })) },
  { additionalProperties: false },
)
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuery>

const WebhookId = Type.String({ description: 'The webhook’s id', examples: ['wh_01jd2x3v4w5y6z7a8b9c0d1e2f'] })
export const WebhookParams = Type.Object({ id: WebhookId })
export const DeliveryParams = Type.Object({
  id: WebhookId,
  delivery_id: Type.String({ description: 'The delivery’s id', examples: ['whd_0f6c1f6e9a2b4c1d8e7f6a5b4c3d2e1f'] }),
})
