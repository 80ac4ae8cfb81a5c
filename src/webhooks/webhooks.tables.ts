import type { Generated } from 'kysely'
import type { Environment, Timestamp } from '../platform/db/database.js'

export type WebhookStatus = 'active' | 'disabled'
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled'

export interface WebhookTable {
  id: string
  account_id: string
  environment: Environment
  url: string
  events: string[]
  secret: string
  status: WebhookStatus
  total_delivered: Generated<number>
  total_failed: Generated<number>
  last_delivery_at: Date | null
  failing_since: Date | null
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: Date | null
}

export interface WebhookDeliveryTable {
  sequence: Generated<string>
  id: Generated<string>
  account_id: string
  environment: Environment
  webhook_id: string
  event_id: string
  event_kind: string
  status: Generated<DeliveryStatus>
  attempts: Generated<number>
  next_attempt_at: Date | null
  lease_expires_at: Date | null
  retry_started_at: Timestamp
  completed_at: Date | null
  created_at: Timestamp
}

export interface WebhookDeliveryAttemptTable {
  delivery_id: string
  attempt: number
  account_id: string
  environment: Environment
  attempted_at: Date
  status_code: number | null
  duration_ms: number
  error: string | null
}

declare module '../platform/db/database.js' {
  interface Database {
    webhooks: WebhookTable
    webhook_deliveries: WebhookDeliveryTable
    webhook_delivery_attempts: WebhookDeliveryAttemptTable
  }
}
