import type { BackgroundLoop, WorkerDependencies, WorkerStarter } from './platform/background.js'
import { startWebhookWorker } from './webhooks/dispatcher.js'
import { startPurchaseOrderWorker } from './ordering/purchase-order-worker.js'
import { startPosScheduler, startPosSyncWorker } from './pos/sync-worker.js'
import { startForecastWorker } from './analytics/forecast-refit.js'

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
