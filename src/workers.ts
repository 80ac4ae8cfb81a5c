import type { BackgroundLoop, WorkerDependencies, WorkerStarter } from './platform/background.js'
import { loadWebhookSettings, startWebhookWorker } from './webhooks/index.js'
import { startPurchaseOrderWorker } from './ordering/index.js'
import { startPosScheduler, startPosSyncWorker } from './pos/index.js'
import { startForecastWorker } from './analytics/index.js'
import { startPartitionMaintenance } from './platform/db/partitions.js'

/**
 * The background work of every domain (webhook delivery, purchase-order e-mail, POS sync runs and
 * schedules, demand forecast refits, monthly partitions made ahead). Each runs in the server process and in `barstock worker`; list new ones here.
 */
const WORKERS: WorkerStarter[] = [startPurchaseOrderWorker, startWebhookWorker, startPosSyncWorker, startPosScheduler, startForecastWorker, startPartitionMaintenance]

/** The workers' own settings read from the environment (each throws ConfigError on a value it cannot use). */
const WORKER_SETTINGS: (() => unknown)[] = [loadWebhookSettings]

/**
 * Reads every worker's settings now, so a bad value stops the server before its port opens: the workers
 * themselves start after it (the sandbox POS simulators they call are served by the app).
 */
export function checkWorkerSettings(): void {
  for (const load of WORKER_SETTINGS) load()
}

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
