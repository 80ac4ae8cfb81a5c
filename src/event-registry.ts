import type { TSchema } from 'typebox'
import type { EventKind } from './platform/outbox.js'
import { analyticsEvents } from './analytics/analytics.events.js'
import { inventoryEvents } from './inventory/inventory.events.js'
import { orderingEvents } from './ordering/ordering.events.js'
import { posEvents } from './pos/sync/sync.events.js'

/**
 * Every event of the spec's Events table, in its order, with the schema of its `data`: the one list of
 * event kinds. Each domain defines its own in its `*.events.ts`; this composition root assembles them for
 * the webhooks domain (what a webhook may subscribe to) and the OpenAPI document (`webhooks`).
 */
export const EVENT_SCHEMAS = {
  ...inventoryEvents,
  ...analyticsEvents,
  ...orderingEvents,
  ...posEvents,
} satisfies Record<EventKind, TSchema>

export const EVENT_KINDS = Object.keys(EVENT_SCHEMAS) as EventKind[]
