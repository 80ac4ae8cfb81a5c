import type { TSchema } from 'typebox'
import type { EventKind } from './platform/outbox.js'
import { analyticsEvents } from './analytics/index.js'
import { inventoryEvents } from './inventory/index.js'
import { orderingEvents } from './ordering/index.js'
import { posEvents } from './pos/index.js'

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
