import type { FastifyBaseLogger } from 'fastify'
import type { Config } from './platform/config.js'
import type { DatabaseHandle } from './platform/db/connect.js'
import type { BackgroundLoop } from './platform/background.js'
import type { MetricsReporter } from './platform/metrics/metrics-registry.js'
import { startWebhookWorker } from './webhooks/dispatcher.js'
import { startPurchaseOrderWorker } from './ordering/purchase-order-worker.js'
import { startPosScheduler, startPosSyncWorker } from './pos/sync-worker.js'
import { startForecastWorker } from './analytics/forecast-refit.js'

export interface WorkerDependencies {
  config: Config
  database: DatabaseHandle
  logger: FastifyBaseLogger
  /** The workers' clock where time decides what they do (tests move it); the system clock otherwise. */
  clock?: () => Date
  /** Where the workers report their outcomes; none in `barstock worker`, which serves no /metrics. */
  metrics?: MetricsReporter
}

export type WorkerStarter = (deps: WorkerDependencies) => Promise<BackgroundLoop>

/**
 * The background work of every domain (webhook delivery, purchase-order e-mail, POS sync runs and
 * schedules, demand forecast refits). Each runs in the server process and in `barstock worker`; list new ones here.
 */
const WORKERS: WorkerStarter[] = [startPurchaseOrderWorker, startWebhookWorker, startPosSyncWorker, startPosScheduler, startForecastWorker]

export interface RunningWorkers {
  stop(): Promise<void>
}

export async function startWorkers(deps: WorkerDependencies): Promise<RunningWorkers> {
  const loops: BackgroundLoop[] = []
  for (const start of WORKERS) loops.push(await start(deps))
  return {
    async stop() {
      await Promise.all(loops.map((loop) => loop.stop()))
    },
  }
}
