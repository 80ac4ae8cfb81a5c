import type { FastifyBaseLogger } from 'fastify'
import type { BackgroundLoop } from '../platform/background.js'
import type { DatabaseHandle } from '../platform/db/connect.js'
import type { Db } from '../platform/db/database.js'
import type { MetricsReporter, WebhookAttemptOutcome } from '../platform/metrics/metrics-registry.js'
import { startJobLoop } from '../platform/jobs.js'
import type { WorkerDependencies } from '../platform/background.js'
import { type AttemptOutcome, DELIVERY_TIMEOUT_MS, DeliverySender } from './delivery-sender.js'
import { type AttemptResult, type ClaimedDelivery, claimDueDeliveries, DELIVERY_QUEUE, recordAttempts } from './dispatcher.repository.js'
import type { Resolver } from '../platform/network-guard.js'
import { PING_EVENT } from './webhook-events.js'
import { DEFAULT_WEBHOOK_SETTINGS, loadWebhookSettings, nextAttemptAt, type RetrySchedule, type WebhookSettings } from './webhook-settings.js'
import { cancelPendingDeliveries } from './webhooks.repository.js'

/** How long a claimed delivery stays with its dispatcher: well past the 5 s timeout of its attempt. */
const LEASE_MS = 3 * DELIVERY_TIMEOUT_MS
/** Attempt results recorded in one transaction at most. */
const MAX_RECORD_BATCH = 500
/** How long results gather before they are written. */
const RECORD_GATHER_MS = 10

export interface DispatcherOptions {
  database: DatabaseHandle
  logger: FastifyBaseLogger
  /** BARSTOCK_WEBHOOK_ALLOW_PRIVATE: deliver to loopback and private addresses too. */
  allowPrivate: boolean
  settings?: WebhookSettings
  /** DNS resolution (tests replace it to play DNS rebinding). */
  resolver?: Resolver
  /** Where each recorded attempt's outcome is counted. */
  metrics?: MetricsReporter
}

const ATTEMPT_OUTCOMES: Record<AttemptResult['status'], WebhookAttemptOutcome> = { delivered: 'delivered', pending: 'retrying', failed: 'failed' }

/** The envelope of the spec, `{id, event, timestamp, data}`, as the exact text signed and sent. */
export function deliveryBody(delivery: ClaimedDelivery): string {
  const data = delivery.event_kind === PING_EVENT ? { webhook_id: delivery.webhook_id } : (delivery.event_data ?? {})
  const timestamp = (delivery.event_created_at ?? delivery.created_at).toISOString()
  return JSON.stringify({ id: delivery.event_id, event: delivery.event_kind, timestamp, data })
}

/** Settles an attempt: delivered, retried later, or failed when its retry window is over. */
function resultOf(delivery: ClaimedDelivery, outcome: AttemptOutcome, schedule: RetrySchedule): AttemptResult {
  const retryAt = outcome.delivered ? undefined : nextAttemptAt(schedule, delivery.retry_started_at, new Date())
  return {
    deliveryId: delivery.id,
    webhookId: delivery.webhook_id,
    accountId: delivery.account_id,
    environment: delivery.environment,
    attempt: delivery.attempts,
    ...outcome,
    status: outcome.delivered ? 'delivered' : retryAt ? 'pending' : 'failed',
    nextAttemptAt: retryAt ?? null,
  }
}

/** A failed attempt, with its reason and what happens next; the URL stays out (it may carry a token). */
function logFailedAttempt(logger: FastifyBaseLogger, delivery: ClaimedDelivery, result: AttemptResult): void {
  const fields = {
    webhook_id: delivery.webhook_id,
    delivery_id: delivery.id,
    event: delivery.event_kind,
    attempt: delivery.attempts,
    status_code: result.statusCode,
    reason: result.error,
    next_attempt_at: result.nextAttemptAt?.toISOString() ?? null,
  }
  if (result.status === 'failed') logger.warn(fields, 'webhook delivery failed for good: its retry window is over')
  else logger.info(fields, 'webhook delivery attempt failed; retried later')
}

/**
 * Collects attempt results and writes them in batches, one transaction each, 10 ms after the first of a
 * batch arrives (one transaction per result cut PGlite's throughput fivefold). A batch that cannot be
 * written is logged; its deliveries are tried again when their leases run out (at-least-once delivery).
 */
class AttemptRecorder {
  private readonly queue: AttemptResult[] = []
  private flushing: Promise<void> | undefined

  constructor(
    private readonly db: Db,
    private readonly disableAfterMs: number,
    private readonly logger: FastifyBaseLogger,
    private readonly metrics: MetricsReporter | undefined,
  ) {}

  add(result: AttemptResult): void {
    this.queue.push(result)
    // A short wait gathers the results that arrive together into one transaction.
    this.flushing ??= new Promise((resolve) => setTimeout(resolve, RECORD_GATHER_MS)).then(() => this.flush())
  }

  /** Resolves once every result added so far is written. */
  async idle(): Promise<void> {
    await this.flushing
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.write(this.queue.splice(0, MAX_RECORD_BATCH))
    } finally {
      this.flushing = undefined
    }
  }

  private async write(batch: AttemptResult[]): Promise<void> {
    try {
      const disabled = await this.db.transaction().execute(async (trx) => {
        const ids = await recordAttempts(trx, batch, this.disableAfterMs)
        await cancelPendingDeliveries(trx, ids)
        return ids
      })
      // Counted once written: a batch that fails to be written is attempted again, and counted then.
      for (const result of batch) this.metrics?.webhookAttempt(ATTEMPT_OUTCOMES[result.status])
      if (disabled.length > 0) this.logger.warn({ webhooks: disabled }, 'webhooks disabled: every delivery attempt failed for too long')
    } catch (error) {
      this.logger.error({ err: error, attempts: batch.length }, 'recording webhook attempts failed; they are retried when their leases expire')
    }
  }
}

/**
 * Starts the loop that delivers webhooks: woken by NOTIFY when events commit and polling for due
 * retries, it claims due deliveries (SKIP LOCKED, so any number of instances share the work), sends
 * up to `concurrency` at once outside any transaction, and records the outcomes.
 */
export async function startWebhookDispatcher(options: DispatcherOptions): Promise<BackgroundLoop> {
  const settings = options.settings ?? DEFAULT_WEBHOOK_SETTINGS
  const { db } = options.database
  const sender = new DeliverySender({ allowPrivate: options.allowPrivate, resolver: options.resolver })
  const recorder = new AttemptRecorder(db, settings.disableAfterMs, options.logger, options.metrics)
  const inFlight = new Set<Promise<void>>()

  const deliver = async (delivery: ClaimedDelivery) => {
    const outcome = await sender.send({
      url: delivery.url,
      secret: delivery.secret,
      eventId: delivery.event_id,
      eventKind: delivery.event_kind,
      body: deliveryBody(delivery),
    })
    const result = resultOf(delivery, outcome, settings.retry)
    if (!outcome.delivered) logFailedAttempt(options.logger, delivery, result)
    recorder.add(result)
  }

  // Claims go in batches: refilling a slot at a time would cost a claim query per delivery.
  const refillBelow = Math.max(1, Math.floor(settings.concurrency / 2))
  const tick = async (): Promise<boolean> => {
    while (inFlight.size >= refillBelow) await Promise.race(inFlight)
    const limit = settings.concurrency - inFlight.size
    const claimed = await claimDueDeliveries(db, limit, LEASE_MS)
    for (const delivery of claimed) {
      const running: Promise<void> = deliver(delivery)
        .catch((error: unknown) => options.logger.error({ err: error, delivery: delivery.id }, 'webhook delivery failed'))
        .finally(() => inFlight.delete(running))
      inFlight.add(running)
    }
    return claimed.length === limit
  }

  const loop = await startJobLoop({ queue: DELIVERY_QUEUE, database: options.database, logger: options.logger, tick, intervalMs: settings.pollIntervalMs })
  return {
    wake: loop.wake,
    async stop() {
      await loop.stop()
      await Promise.all(inFlight)
      await recorder.idle()
      await sender.close()
    },
  }
}

/** The dispatcher as a worker of the server and of `barstock worker`, configured from the environment. */
export function startWebhookWorker({ config, database, logger, metrics }: WorkerDependencies): Promise<BackgroundLoop> {
  return startWebhookDispatcher({ database, logger, allowPrivate: config.webhookAllowPrivate, settings: loadWebhookSettings(), metrics })
}
