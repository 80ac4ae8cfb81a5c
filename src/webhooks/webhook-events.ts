/** The event kinds of the spec's Events table: what a webhook may subscribe to. */
export const WEBHOOK_EVENT_KINDS = [
  'inventory.updated',
  'inventory.low_stock',
  'inventory.count_completed',
  'variance.detected',
  'variance.threshold_exceeded',
  'order.created',
  'order.submitted',
  'order.shipped',
  'order.delivered',
  'pos.sync_completed',
  'pos.sync_failed',
] as const

export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number]

/** Subscribes to every kind, including kinds added later; it stands alone in `events`. */
export const ALL_EVENTS = '*'

/** The kind of the test delivery `POST /v1/webhooks/:id/test` sends; it is not an outbox event. */
export const PING_EVENT = 'ping'
