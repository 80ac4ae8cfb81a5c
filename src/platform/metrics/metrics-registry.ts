import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { PoolUsage } from '../db/connect.js'
import type { ReplicaState } from '../db/read-replica.js'
import type { ReportCacheOutcome } from '../http/report-cache.js'

/** How a webhook delivery attempt ended: the delivery is done, retried later, or given up. */
export type WebhookAttemptOutcome = 'delivered' | 'retrying' | 'failed'
/** How a purchase-order e-mail attempt ended. */
export type PurchaseOrderDispatchOutcome = 'sent' | 'retrying' | 'failed'
/** How a tenant's forecast refit ended: every item fitted, some items failed, or the refit failed whole. */
export type ForecastRefitOutcome = 'succeeded' | 'partial' | 'failed'

/** A finished POS sync run: `outcome` is `completed` or the run's error code. */
export interface FinishedSyncRun {
  vendor: string
  outcome: string
  durationMs: number
}

/**
 * What the domains report about their background work. They are given this by the composition root
 * (src/service-metrics.ts) and never see the registry behind it.
 */
export interface MetricsReporter {
  webhookAttempt(outcome: WebhookAttemptOutcome): void
  syncRunFinished(run: FinishedSyncRun): void
  purchaseOrderDispatch(outcome: PurchaseOrderDispatchOutcome): void
  forecastRefit(outcome: ForecastRefitOutcome, durationMs: number): void
}

/** The most pending deliveries a scrape counts: past it the gauge stays at the cap, and the count stays cheap. */
export const BACKLOG_COUNT_CAP = 100_000

export interface MetricsSources {
  /** The pool's connections now (PGlite: its one session and the statements queued for it). */
  poolUsage(): PoolUsage
  /** Webhook deliveries not yet delivered (due or waiting for a retry), counted up to `cap`; one query. */
  countPendingDeliveries(cap: number): Promise<number>
  /** When the event of the oldest pending delivery was written, if any is pending; one query. */
  oldestPendingDeliveryAt(): Promise<Date | undefined>
  /** The read replica's last check (BARSTOCK_REPLICA_URL); undefined without one. */
  readReplica(): ReplicaState | undefined
}

const SECONDS_PER_MS = 1 / 1000
const SYNC_RUN_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600]
const REFIT_BUCKETS = [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600]

/** A scrape-time query that failed: its gauge is left out of that scrape. */
export interface CollectFailure {
  metric: string
  error: unknown
}

/** One scrape: the exposition text and the gauges it had to leave out. */
export interface Scrape {
  text: string
  failures: CollectFailure[]
}

/**
 * The service's Prometheus metrics (docs/observability.md lists them): request and rate-limit counts
 * from the HTTP layer, what the workers report, and gauges read when Prometheus scrapes.
 */
export class MetricsRegistry implements MetricsReporter {
  readonly registry = new Registry()
  private readonly requests: Counter<'method' | 'route' | 'status'>
  private readonly requestDurations: Histogram<'method' | 'route'>
  private readonly rateLimitRejections: Counter<'environment'>
  private readonly webhookAttempts: Counter<'outcome'>
  private readonly syncRuns: Counter<'vendor' | 'outcome'>
  private readonly syncRunDurations: Histogram<'vendor' | 'outcome'>
  private readonly purchaseOrderDispatches: Counter<'outcome'>
  private readonly forecastRefits: Counter<'outcome'>
  private readonly forecastRefitDurations: Histogram<'outcome'>
  private readonly reportCacheLookups: Counter<'outcome'>
  private readonly collectFailures: CollectFailure[] = []

  constructor(sources: MetricsSources) {
    const registers = [this.registry]
    collectDefaultMetrics({ register: this.registry })
    // Counts by status in a counter, durations by route in a histogram: a status label on the histogram
    // would multiply its bucket series for little gain.
    this.requests = new Counter({
      name: 'barstock_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    })
    this.requestDurations = new Histogram({
      name: 'barstock_http_request_duration_seconds',
      help: 'How long HTTP requests took to answer, by method and route pattern',
      labelNames: ['method', 'route'],
      registers,
    })
    this.rateLimitRejections = new Counter({
      name: 'barstock_rate_limit_rejections_total',
      help: 'Requests refused with 429 rate_limit_exceeded, by the environment of their key (unauthenticated: counted per client address)',
      labelNames: ['environment'],
      registers,
    })
    this.webhookAttempts = new Counter({
      name: 'barstock_webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts by outcome: delivered, retrying (failed, another attempt is scheduled), failed (given up)',
      labelNames: ['outcome'],
      registers,
    })
    this.syncRuns = new Counter({
      name: 'barstock_pos_sync_runs_total',
      help: 'Finished POS sync runs by vendor and outcome (completed or the error code)',
      labelNames: ['vendor', 'outcome'],
      registers,
    })
    this.syncRunDurations = new Histogram({
      name: 'barstock_pos_sync_run_duration_seconds',
      help: 'How long finished POS sync runs took, from claim to completion, by vendor and outcome',
      labelNames: ['vendor', 'outcome'],
      buckets: SYNC_RUN_BUCKETS,
      registers,
    })
    this.purchaseOrderDispatches = new Counter({
      name: 'barstock_purchase_order_dispatches_total',
      help: 'Purchase-order e-mail attempts by outcome: sent, retrying (failed, retried later), failed (given up)',
      labelNames: ['outcome'],
      registers,
    })
    this.forecastRefits = new Counter({
      name: 'barstock_forecast_refits_total',
      help: "Demand forecast refits of one tenant's items, by outcome: succeeded, partial (some items failed), failed",
      labelNames: ['outcome'],
      registers,
    })
    this.forecastRefitDurations = new Histogram({
      name: 'barstock_forecast_refit_duration_seconds',
      help: 'How long forecast refits took, by outcome',
      labelNames: ['outcome'],
      buckets: REFIT_BUCKETS,
      registers,
    })
    this.reportCacheLookups = new Counter({
      name: 'barstock_report_cache_lookups_total',
      help: 'Report answers asked of the report cache, by outcome: hit (answered from it), refresh (a part of it made again), miss (computed)',
      labelNames: ['outcome'],
      registers,
    })
    const onFailure: FailureSink = (failure) => this.collectFailures.push(failure)
    registerPoolGauges(registers, () => sources.poolUsage(), onFailure)
    registerBacklogGauges(registers, sources, onFailure)
    registerReplicaGauges(registers, () => sources.readReplica(), onFailure)
  }

  /** `route` is the route's pattern (/v1/inventory/items/:id), never the URL, so series stay few. */
  observeRequest(method: string, route: string, status: number, durationMs: number): void {
    this.requests.inc({ method, route, status: String(status) })
    this.requestDurations.observe({ method, route }, durationMs * SECONDS_PER_MS)
  }

  rateLimitRejected(environment: string): void {
    this.rateLimitRejections.inc({ environment })
  }

  webhookAttempt(outcome: WebhookAttemptOutcome): void {
    this.webhookAttempts.inc({ outcome })
  }

  syncRunFinished(run: FinishedSyncRun): void {
    const labels = { vendor: run.vendor, outcome: run.outcome }
    this.syncRuns.inc(labels)
    this.syncRunDurations.observe(labels, run.durationMs * SECONDS_PER_MS)
  }

  purchaseOrderDispatch(outcome: PurchaseOrderDispatchOutcome): void {
    this.purchaseOrderDispatches.inc({ outcome })
  }

  forecastRefit(outcome: ForecastRefitOutcome, durationMs: number): void {
    this.forecastRefits.inc({ outcome })
    this.forecastRefitDurations.observe({ outcome }, durationMs * SECONDS_PER_MS)
  }

  reportCacheLookup(outcome: ReportCacheOutcome): void {
    this.reportCacheLookups.inc({ outcome })
  }

  /** The exposition in Prometheus text format, and what it left out. */
  async scrape(): Promise<Scrape> {
    const text = await this.registry.metrics()
    return { text, failures: this.collectFailures.splice(0) }
  }
}

type FailureSink = (failure: CollectFailure) => void

/**
 * A gauge read when Prometheus scrapes. Undefined leaves it out of the scrape rather than reporting a
 * made-up 0; so does a failed read, which goes to `onFailure`.
 */
function collectedGauge(registers: Registry[], name: string, help: string, read: () => number | undefined | Promise<number | undefined>, onFailure: FailureSink): void {
  new Gauge({
    name,
    help,
    registers,
    async collect() {
      // remove() drops the sample itself: reset() would still expose a 0.
      try {
        const value = await read()
        if (value === undefined) this.remove()
        else this.set(value)
      } catch (error) {
        this.remove()
        onFailure({ metric: name, error })
      }
    },
  })
}

/** The database pool's connections; on PGlite, its one session and the queue in front of it. */
function registerPoolGauges(registers: Registry[], poolUsage: () => PoolUsage, onFailure: FailureSink): void {
  const gauge = (name: string, help: string, pick: (usage: PoolUsage) => number) => collectedGauge(registers, name, help, () => pick(poolUsage()), onFailure)
  gauge('barstock_db_pool_max_connections', 'Connections the database pool may open (BARSTOCK_DB_POOL_SIZE; 1 on PGlite)', (usage) => usage.max)
  gauge('barstock_db_pool_connections', 'Connections the database pool holds open, busy or idle', (usage) => usage.total)
  gauge('barstock_db_pool_idle_connections', 'Open database connections that no query is using', (usage) => usage.idle)
  gauge('barstock_db_pool_waiting_requests', 'Statements and transactions waiting for a database connection because all are busy', (usage) => usage.waiting)
}

/** Whether reads go to the read replica and how far behind it is; both left out without a replica. */
function registerReplicaGauges(registers: Registry[], replica: () => ReplicaState | undefined, onFailure: FailureSink): void {
  collectedGauge(
    registers,
    'barstock_read_replica_in_use',
    'Whether the read replica serves the reads routes allow (1), or is skipped and they go to the primary (0)',
    () => {
      const state = replica()
      return state === undefined ? undefined : Number(state.usable)
    },
    onFailure,
  )
  collectedGauge(
    registers,
    'barstock_read_replica_lag_seconds',
    'How far behind the primary the read replica was at its last check; left out while it is skipped (the reason is on stderr)',
    () => {
      const state = replica()
      return state?.usable ? state.lagMs * SECONDS_PER_MS : undefined
    },
    onFailure,
  )
}

/** The webhook delivery backlog, one bounded query per gauge and scrape. */
function registerBacklogGauges(registers: Registry[], sources: MetricsSources, onFailure: FailureSink): void {
  collectedGauge(
    registers,
    'barstock_outbox_backlog',
    `Webhook deliveries not yet delivered (due now or waiting for a retry), counted up to ${BACKLOG_COUNT_CAP}`,
    () => sources.countPendingDeliveries(BACKLOG_COUNT_CAP),
    onFailure,
  )
  collectedGauge(
    registers,
    'barstock_outbox_oldest_pending_age_seconds',
    'Age of the event of the oldest undelivered webhook delivery; 0 when nothing is pending',
    async () => {
      const oldest = await sources.oldestPendingDeliveryAt()
      return oldest ? Math.max(0, (Date.now() - oldest.getTime()) * SECONDS_PER_MS) : 0
    },
    onFailure,
  )
}
