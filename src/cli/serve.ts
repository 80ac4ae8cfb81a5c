import type { FastifyInstance } from 'fastify'
import { buildApp } from '../app.js'
import type { AdminChannel } from '../platform/admin-channel.js'
import type { Config } from '../platform/config.js'
import { describeDatabase } from '../platform/db/connect.js'
import { purgeExpiredIdempotencyRecords } from '../platform/idempotency.js'
import { serviceVersion } from '../platform/version.js'
import { MemoryRateLimitStore, RateLimiter, RedisRateLimitStore } from '../platform/rate-limit.js'
import { resolveSecretKey } from '../platform/secret-key.js'
import { openDatabase, serveAdminChannel } from './runtime.js'
import { checkWorkerSettings, startWorkers } from '../workers.js'
import { createServiceMetrics } from '../service-metrics.js'

const HOUR_MS = 3_600_000

export interface RunningServer {
  app: FastifyInstance
  /** Stops taking requests, lets in-flight ones finish, then closes everything. */
  stop(): Promise<void>
}

/** The one line that says what started: version, address, API docs, database and data dir. */
function logStartup(app: FastifyInstance, config: Config, address: string): void {
  const version = serviceVersion()
  const database = describeDatabase(config)
  const docs = `${address}/docs`
  app.log.info(
    { version, url: address, docs, database, data_dir: config.dataDir },
    `barstock ${version} serving ${address} (API docs ${docs}); database: ${database}; data dir ${config.dataDir}`,
  )
}

/** Starts the service: database (migrated), admin channel, HTTP server, housekeeping. */
export async function startServer(config: Config): Promise<RunningServer> {
  checkWorkerSettings()
  const database = await openDatabase(config)
  resolveSecretKey(config.secretKey, config.dataDir)
  let channel: AdminChannel | undefined
  let app: FastifyInstance | undefined
  let address: string
  const reportRedisError = (error: Error) => app?.log.warn({ err: error }, 'Redis unavailable: counting rate limits in memory')
  const limiter = new RateLimiter(config.redisUrl ? new RedisRateLimitStore(config.redisUrl, reportRedisError) : new MemoryRateLimitStore())
  const metrics = createServiceMetrics(database.handle)
  app = await buildApp({ config, database: database.handle, rateLimiter: limiter, metrics })
  try {
    channel = await serveAdminChannel(config, database)
    address = await app.listen({ port: config.port, host: config.host })
  } catch (error) {
    await app.close()
    await channel?.close()
    await limiter.close()
    await database.close()
    throw error
  }
  const workers = await startWorkers({ config, database: database.handle, logger: app.log, metrics })
  logStartup(app, config, address)
  const purge = setInterval(() => {
    purgeExpiredIdempotencyRecords(database.handle.db).catch((error) => app.log.warn({ err: error }, 'idempotency purge failed'))
  }, HOUR_MS)
  purge.unref()
  return {
    app,
    async stop() {
      clearInterval(purge)
      // Workers first, at once: a sync run in progress goes back in the queue before the sandbox
      // simulators (closed with the app) go away under it.
      await Promise.all([workers.stop(), app.close()])
      await channel?.close()
      await limiter.close()
      await database.close()
    },
  }
}

/** `barstock serve`: runs until SIGTERM or SIGINT, then shuts down gracefully. */
export async function serve(config: Config): Promise<void> {
  // Listening for signals before starting: the port opens before the workers have started, and a signal
  // in between would otherwise end the process at once (exit by signal) instead of shutting it down.
  const starting = startServer(config)
  let stopping = false
  const shutdown = (signal: string) => {
    if (stopping) return
    stopping = true
    starting.then(
      (server) => stopGracefully(server, signal, config.shutdownTimeoutMs),
      () => undefined,
    )
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
  await starting
}

function stopGracefully(server: RunningServer, signal: string, timeoutMs: number): void {
  server.app.log.info({ signal }, 'shutting down: finishing in-flight requests')
  const force = setTimeout(() => {
    server.app.log.error('shutdown timed out; exiting')
    process.exit(1)
  }, timeoutMs)
  force.unref()
  server
    .stop()
    .then(() => process.exit(0))
    .catch((error) => {
      server.app.log.error({ err: error }, 'shutdown failed')
      process.exit(1)
    })
}
