import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cpus } from 'node:os'
import { performance } from 'node:perf_hooks'
import Fastify from 'fastify'
import { type DatabaseHandle, openPglite } from '../src/platform/db/connect.js'
import type { Tenant } from '../src/platform/db/database.js'
import { migrate } from '../src/platform/db/migrate.js'
import { enqueue } from '../src/platform/outbox.js'
import { startWebhookDispatcher } from '../src/webhooks/dispatcher.js'
import { DEFAULT_WEBHOOK_SETTINGS } from '../src/webhooks/webhook-settings.js'
import { createWebhook } from '../src/webhooks/webhooks.service.js'
import '../src/inventory/inventory.events.js'
import { openTestDatabase } from '../test/helpers/context.js'

/**
 * Webhook delivery benchmark, loopback only and bounded in time:
 * - throughput: a backlog of events is written first, then one dispatcher delivers it to a local
 *   receiver that answers 200 at once; deliveries per second = backlog / time to the last receipt;
 * - latency: with the dispatcher idle, events are committed one by one at a steady rate; latency is from
 *   the commit returning to the receiver getting the request (same process, same clock).
 * The receiver runs in the dispatcher's process, so it competes with it for CPU: a conservative setup.
 * Run: node dist/bench/webhooks.js (PGlite), and with DATABASE_URL set for PostgreSQL as well.
 */

const BACKLOG = Number(process.env.BENCH_WEBHOOK_BACKLOG ?? 5000)
const LATENCY_EVENTS = Number(process.env.BENCH_WEBHOOK_LATENCY_EVENTS ?? 300)
const LATENCY_INTERVAL_MS = 20
const TIME_LIMIT_MS = 60_000
const TENANT: Tenant = { accountId: 'acct_default', environment: 'production' }

interface Receiver {
  url: string
  /** performance.now() of each receipt, by event id. */
  received: Map<string, number>
  waitFor(count: number): Promise<void>
  close(): Promise<void>
}

async function startReceiver(): Promise<Receiver> {
  const received = new Map<string, number>()
  let waiting: { count: number; resolve: () => void } | undefined
  const server = createServer((request, response) => {
    received.set(String(request.headers['x-webhook-id']), performance.now())
    request.resume()
    request.on('end', () => response.writeHead(200).end())
    if (waiting && received.size >= waiting.count) waiting.resolve()
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    waitFor: (count) =>
      new Promise<void>((resolve, reject) => {
        if (received.size >= count) return resolve()
        waiting = { count, resolve }
        setTimeout(() => reject(new Error(`only ${received.size} of ${count} deliveries within ${TIME_LIMIT_MS} ms`)), TIME_LIMIT_MS).unref()
      }),
    close: async () => {
      server.closeAllConnections()
      server.close()
    },
  }
}

function eventData(index: number) {
  return {
    item_id: `item_bench_${index}`,
    name: 'Bench Vodka 750ml',
    previous_quantity: 10,
    new_quantity: 9,
    change: -1,
    location: 'main_bar',
    updated_by: 'bench',
  }
}

async function writeBacklog(database: DatabaseHandle, count: number): Promise<void> {
  for (let start = 0; start < count; start += 500) {
    await database.db.transaction().execute(async (trx) => {
      for (let index = start; index < Math.min(count, start + 500); index++) await enqueue(trx, TENANT, 'inventory.updated', eventData(index))
    })
  }
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!
}

interface Result {
  database: string
  deliveriesPerSecond: number
  p50: number
  p99: number
  max: number
}

async function run(name: string, database: DatabaseHandle): Promise<Result> {
  const receiver = await startReceiver()
  const logger = Fastify({ logger: { level: 'warn' } }).log
  try {
    await database.db.transaction().execute((trx) => createWebhook(trx, TENANT, { url: receiver.url, events: ['*'] }))

    await writeBacklog(database, BACKLOG)
    const started = performance.now()
    const dispatcher = await startWebhookDispatcher({ database, logger, allowPrivate: true, settings: DEFAULT_WEBHOOK_SETTINGS })
    try {
      await receiver.waitFor(BACKLOG)
      const deliveriesPerSecond = BACKLOG / ((performance.now() - started) / 1000)
      // Let the dispatcher record the backlog's results before timing single events.
      await new Promise((resolve) => setTimeout(resolve, 1000))

      const committed = new Map<string, number>()
      for (let index = 0; index < LATENCY_EVENTS; index++) {
        const id = await database.db.transaction().execute((trx) => enqueue(trx, TENANT, 'inventory.updated', eventData(index)))
        committed.set(id, performance.now())
        await new Promise((resolve) => setTimeout(resolve, LATENCY_INTERVAL_MS))
      }
      await receiver.waitFor(BACKLOG + LATENCY_EVENTS)
      const latencies = [...committed].map(([id, at]) => Math.max(0, receiver.received.get(id)! - at)).sort((a, b) => a - b)
      return { database: name, deliveriesPerSecond, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), max: latencies.at(-1)! }
    } finally {
      await dispatcher.stop()
    }
  } finally {
    await receiver.close()
  }
}

async function main() {
  const results: Result[] = []
  const pglite = await openPglite(undefined)
  await migrate(pglite)
  try {
    results.push(await run('PGlite (embedded)', pglite))
  } finally {
    await pglite.close()
  }
  if (process.env.DATABASE_URL) {
    const postgres = await openTestDatabase()
    try {
      results.push(await run('PostgreSQL', postgres))
    } finally {
      await postgres.close()
    }
  }
  const cpu = cpus()
  process.stdout.write(
    `\nWebhook delivery: backlog ${BACKLOG} events, then ${LATENCY_EVENTS} events one every ${LATENCY_INTERVAL_MS} ms; ` +
      `concurrency ${DEFAULT_WEBHOOK_SETTINGS.concurrency}; ${cpu.length} × ${cpu[0]?.model ?? 'CPU'}, Node ${process.version}\n\n` +
      '| database | deliveries/s | commit→delivery p50 | p99 | max |\n|---|---|---|---|---|\n' +
      results.map((r) => `| ${r.database} | ${Math.round(r.deliveriesPerSecond)} | ${r.p50.toFixed(1)} ms | ${r.p99.toFixed(1)} ms | ${r.max.toFixed(1)} ms |`).join('\n') +
      '\n',
  )
}

await main()
