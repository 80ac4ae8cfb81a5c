import { type Selectable, sql } from 'kysely'
import type { Db, Environment, Trx } from '../platform/db/database.js'
import { claimDueStatement, defineJobQueue } from '../platform/jobs.js'
import { OUTBOX_CHANNEL } from '../platform/outbox.js'
import { PING_EVENT } from './webhook-events.js'
import type { DeliveryStatus, WebhookDeliveryTable } from './webhooks.tables.js'

/** A delivery a dispatcher has claimed, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string
  account_id: string
  environment: Environment
  webhook_id: string
  event_id: string
  event_kind: string
  attempts: number
  retry_started_at: Date
  created_at: Date
  url: string
  secret: string
  /** The outbox event's data and time; null for a ping. */
  event_data: Record<string, unknown> | null
  event_created_at: Date | null
}

/**
 * Deliveries as a job queue: a pending delivery of an active webhook is work. Its lease keeps other
 * dispatchers off while its attempt is in flight; a crashed dispatcher's claim runs out. The fan-out
 * trigger wakes the dispatchers on the outbox's channel when a committed event made deliveries.
 */
export const DELIVERY_QUEUE = defineJobQueue<Selectable<WebhookDeliveryTable>>({
  name: 'webhook-dispatcher',
  table: 'webhook_deliveries',
  key: ['id'],
  channel: OUTBOX_CHANNEL,
  ready: sql`job.status = 'pending' AND EXISTS (
    SELECT 1 FROM webhooks webhook WHERE webhook.id = job.webhook_id AND webhook.status = 'active' AND webhook.deleted_at IS NULL)`,
})

/** Claims up to `limit` due deliveries for `leaseMs`, each with its attempt number and what sending it takes. */
export async function claimDueDeliveries(db: Db, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const result = await sql<ClaimedDelivery>`
    WITH claimed AS (${claimDueStatement(DELIVERY_QUEUE, { limit, leaseMs })})
    SELECT claimed.id, claimed.account_id, claimed.environment, claimed.webhook_id, claimed.event_id,
           claimed.event_kind, claimed.attempts, claimed.retry_started_at, claimed.created_at,
           webhook.url, webhook.secret, event.data AS event_data, event.created_at AS event_created_at
    FROM claimed
    JOIN webhooks webhook ON webhook.id = claimed.webhook_id
    LEFT JOIN outbox_events event ON event.id = claimed.event_id AND claimed.event_kind <> ${PING_EVENT}`.execute(db)
  return result.rows
}

/** The result of one attempt and what it means for its delivery. */
export interface AttemptResult {
  deliveryId: string
  webhookId: string
  accountId: string
  environment: Environment
  attempt: number
  attemptedAt: Date
  statusCode: number | null
  durationMs: number
  error: string | null
  delivered: boolean
  /** pending (retry at nextAttemptAt), delivered or failed (retries are over). */
  status: Extract<DeliveryStatus, 'pending' | 'delivered' | 'failed'>
  nextAttemptAt: Date | null
}

/** Per webhook, the counters a batch of attempts adds and where its run of failures stands. */
interface WebhookTally {
  webhook_id: string
  delivered: number
  failed: number
  last_attempt_at: string
  /** True when an attempt in the batch succeeded: then failing_since is exactly `failing_since`. */
  succeeded: boolean
  /** Start of the failures after the batch's last success (or of all its failures); null if none. */
  failing_since: string | null
}

function tally(results: AttemptResult[]): WebhookTally[] {
  const byWebhook = new Map<string, WebhookTally>()
  for (const result of [...results].sort((a, b) => a.attemptedAt.getTime() - b.attemptedAt.getTime())) {
    const at = result.attemptedAt.toISOString()
    const entry = byWebhook.get(result.webhookId) ?? {
      webhook_id: result.webhookId,
      delivered: 0,
      failed: 0,
      last_attempt_at: at,
      succeeded: false,
      failing_since: null,
    }
    entry.last_attempt_at = at
    if (result.delivered) {
      entry.delivered++
      entry.succeeded = true
      entry.failing_since = null
    } else {
      entry.failed++
      entry.failing_since ??= at
    }
    byWebhook.set(result.webhookId, entry)
  }
  return [...byWebhook.values()]
}

async function insertAttempts(trx: Trx, results: AttemptResult[]): Promise<void> {
  await trx
    .insertInto('webhook_delivery_attempts')
    .values(
      results.map((result) => ({
        delivery_id: result.deliveryId,
        attempt: result.attempt,
        account_id: result.accountId,
        environment: result.environment,
        attempted_at: result.attemptedAt,
        status_code: result.statusCode,
        duration_ms: result.durationMs,
        error: result.error,
      })),
    )
    .onConflict((conflict) => conflict.columns(['delivery_id', 'attempt']).doNothing())
    .execute()
}

/**
 * Applies each attempt to its delivery, unless a later attempt (after a lost lease) took it over: the
 * settling of src/platform/jobs.ts (lease freed, fenced by the attempt number) for a whole batch at once.
 */
async function settleDeliveries(trx: Trx, results: AttemptResult[]): Promise<void> {
  const rows = results.map((result) => ({
    id: result.deliveryId,
    attempt: result.attempt,
    status: result.status,
    next_attempt_at: result.nextAttemptAt?.toISOString() ?? null,
    completed_at: result.status === 'pending' ? null : result.attemptedAt.toISOString(),
  }))
  await sql`
    UPDATE webhook_deliveries delivery
    SET status = settled.status,
        next_attempt_at = settled.next_attempt_at,
        completed_at = settled.completed_at,
        lease_expires_at = NULL
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS settled (id text, attempt integer, status text, next_attempt_at timestamptz, completed_at timestamptz)
    WHERE delivery.id = settled.id AND delivery.attempts = settled.attempt`.execute(trx)
}

async function updateWebhookStats(trx: Trx, results: AttemptResult[]): Promise<void> {
  await sql`
    UPDATE webhooks webhook
    SET total_delivered = webhook.total_delivered + tally.delivered,
        total_failed = webhook.total_failed + tally.failed,
        last_delivery_at = greatest(webhook.last_delivery_at, tally.last_attempt_at),
        failing_since = CASE WHEN tally.succeeded THEN tally.failing_since
                             ELSE coalesce(webhook.failing_since, tally.failing_since) END
    FROM jsonb_to_recordset(${JSON.stringify(tally(results))}::jsonb)
      AS tally (webhook_id text, delivered integer, failed integer, last_attempt_at timestamptz, succeeded boolean,
                failing_since timestamptz)
    WHERE webhook.id = tally.webhook_id`.execute(trx)
}

/** Disables the webhooks among `webhookIds` whose attempts have all failed for `disableAfterMs`. */
async function disableFailingWebhooks(trx: Trx, webhookIds: string[], disableAfterMs: number): Promise<string[]> {
  const rows = await trx
    .updateTable('webhooks')
    .set({ status: 'disabled', updated_at: new Date() })
    .where('id', 'in', webhookIds)
    .where('status', '=', 'active')
    .where('failing_since', '<=', new Date(Date.now() - disableAfterMs))
    .returning('id')
    .execute()
  return rows.map((row) => row.id)
}

/**
 * Records a batch of attempts in one transaction: the attempts, their deliveries, the webhooks'
 * statistics, and the disabling of webhooks failing for too long. Returns the ids of webhooks disabled.
 */
export async function recordAttempts(trx: Trx, results: AttemptResult[], disableAfterMs: number): Promise<string[]> {
  if (results.length === 0) return []
  // Webhooks first and in id order, as the API locks them before their deliveries: two dispatchers
  // recording for the same webhooks never deadlock. NO KEY UPDATE leaves event fan-out unblocked.
  await trx
    .selectFrom('webhooks')
    .select('id')
    .where('id', 'in', [...new Set(results.map((result) => result.webhookId))])
    .orderBy('id')
    .forNoKeyUpdate()
    .execute()
  await insertAttempts(trx, results)
  await settleDeliveries(trx, results)
  await updateWebhookStats(trx, results)
  const failing = [...new Set(results.filter((result) => !result.delivered).map((result) => result.webhookId))]
  return failing.length > 0 ? disableFailingWebhooks(trx, failing, disableAfterMs) : []
}
