import type { DatabaseHandle } from './platform/db/connect.js'
import { MetricsRegistry } from './platform/metrics/metrics-registry.js'
import { countPendingDeliveries, oldestPendingDeliveryAt } from './webhooks/index.js'

/**
 * The metrics registry of one process, wired to the domain queries its scrape-time gauges read. The
 * server gives it to the HTTP layer and to the workers, which report through its MetricsReporter side.
 */
export function createServiceMetrics(database: DatabaseHandle): MetricsRegistry {
  return new MetricsRegistry({
    poolUsage: () => database.poolUsage(),
    countPendingDeliveries: (cap) => countPendingDeliveries(database.db, cap),
    oldestPendingDeliveryAt: () => oldestPendingDeliveryAt(database.db),
    readReplica: () => database.replica?.state,
  })
}
