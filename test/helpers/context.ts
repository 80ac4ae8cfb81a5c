import { randomBytes } from 'node:crypto'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import pg from 'pg'
import { buildApp } from '../../src/app.js'
import { loadConfig, type Config } from '../../src/platform/config.js'
import { type DatabaseHandle, DEFAULT_PGLITE_QUEUE_LIMIT, openPglite, openPostgres } from '../../src/platform/db/connect.js'
import type { Environment, Tenant } from '../../src/platform/db/database.js'
import { migrate } from '../../src/platform/db/migrate.js'
import { recordErrorCodes } from './error-codes-seen.js'
import { migratedPgliteImage } from './pglite-image.js'
import { openSharedPglite } from './shared-pglite.js'
import { createApiKey } from '../../src/platform/auth/api-keys.js'
import { PERMISSIONS, type Permission } from '../../src/platform/auth/permissions.js'
import type { Resolver } from '../../src/platform/network-guard.js'
import { MemoryRateLimitStore, RateLimiter, type RateLimitStore } from '../../src/platform/rate-limit.js'
import { adminCommands } from '../../src/cli/commands.js'
import type { MetricsRegistry } from '../../src/platform/metrics/metrics-registry.js'
import { createServiceMetrics } from '../../src/service-metrics.js'

/** An empty database of its own on the PostgreSQL server at `url`, dropped by `drop`. */
export async function scratchPostgres(url: string, prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const target = new URL(url)
  target.pathname = `/${name}`
  return {
    url: target.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: url })
      await dropper.connect()
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await dropper.end()
    },
  }
}

/**
 * A migrated database of its own on the PostgreSQL server at `url`: created here, dropped on close, so
 * runs never collide or leave data behind.
 */
export async function openScratchPostgres(url: string, prefix = 'barstock_test'): Promise<DatabaseHandle> {
  const scratch = await scratchPostgres(url, prefix)
  const handle = await openPostgres(scratch.url, 10)
  await migrate(handle)
  return {
    ...handle,
    async close() {
      await handle.close()
      await scratch.drop()
    },
  }
}

/**
 * A database for one test file: a scratch one on DATABASE_URL when it is set, else the process's in-memory
 * PGlite emptied to its migrated state (shared-pglite.ts), or one of its own when the file asks for a
 * different limit of waiting statements.
 */
export async function openTestDatabase(pgliteQueueLimit = DEFAULT_PGLITE_QUEUE_LIMIT): Promise<DatabaseHandle> {
  const url = process.env.DATABASE_URL
  if (url) return openScratchPostgres(url)
  if (pgliteQueueLimit !== DEFAULT_PGLITE_QUEUE_LIMIT) return openPglite(undefined, pgliteQueueLimit, await migratedPgliteImage())
  return openSharedPglite()
}

export interface Caller {
  key: string
  keyId: string
  tenant: Tenant
}

export interface RequestOptions {
  key?: string | null
  body?: unknown
  headers?: Record<string, string>
  query?: Record<string, string>
}

export interface TestContext {
  app: FastifyInstance
  database: DatabaseHandle
  config: Config
  /** The app's metrics registry: give it to the workers a test starts so their reports reach /metrics. */
  metrics: MetricsRegistry
  /** A fresh account with a key: each test gets data no other test sees (tenancy isolates it). */
  newCaller(options?: { permissions?: Permission[]; environment?: Environment }): Promise<Caller>
  /** Another key on an existing caller's account, in its environment unless another is named. */
  keyFor(caller: Caller, permissions: Permission[], environment?: Environment): Promise<string>
  request(method: InjectOptions['method'], url: string, options?: RequestOptions): Promise<LightMyRequestResponse>
  close(): Promise<void>
}

export interface ContextOptions {
  env?: Record<string, string>
  rateLimitStore?: RateLimitStore
  /** Resolves webhook hosts instead of the system's DNS. */
  resolver?: Resolver
  /** Adds test-only routes before the app is ready. */
  configure?: (app: FastifyInstance) => void
}

export async function createTestContext(options: ContextOptions = {}): Promise<TestContext> {
  // The POS simulators answer from this process, whose event loop the embedded database holds while a
  // statement runs: on a busy machine an answer can wait longer than a real vendor's 10 s allowance.
  const defaults = { BARSTOCK_LOG_LEVEL: 'silent', BARSTOCK_DATA_DIR: '/nonexistent', BARSTOCK_POS_REQUEST_TIMEOUT_SECONDS: '120' }
  const config = loadConfig({ ...defaults, ...options.env })
  const database = await openTestDatabase(config.pgliteQueueLimit)
  const rateLimiter = new RateLimiter(options.rateLimitStore ?? new MemoryRateLimitStore())
  const metrics = createServiceMetrics(database)
  const app = await buildApp({ config, database, rateLimiter, metrics, logger: false, resolver: options.resolver })
  options.configure?.(app)
  await app.ready()
  recordAnswersOf(app)
  const commands = adminCommands(database)
  let defaultKey: string | undefined

  const context: TestContext = {
    app,
    database,
    config,
    metrics,
    async newCaller({ permissions = [...PERMISSIONS], environment = 'production' } = {}) {
      const account = (await commands['accounts.create']!({ name: `test ${randomBytes(3).toString('hex')}` })) as { id: string }
      const created = await createApiKey(database.db, { accountId: account.id, environment, name: 'test', permissions })
      return { key: created.key, keyId: created.id, tenant: { accountId: account.id, environment } }
    },
    async keyFor(caller, permissions, environment = caller.tenant.environment) {
      const created = await createApiKey(database.db, { ...caller.tenant, environment, name: 'extra', permissions })
      return created.key
    },
    async request(method, url, { key, body, headers = {}, query } = {}) {
      if (key === undefined) defaultKey ??= (await context.newCaller()).key
      const apiKey = key === undefined ? defaultKey : key
      return app.inject({
        method,
        url,
        query,
        headers: { ...(apiKey ? { 'x-api-key': apiKey } : {}), ...headers },
        ...(body === undefined ? {} : { payload: body as object }),
      })
    },
    async close() {
      await app.close()
      await rateLimiter.close()
      await database.close()
    },
  }
  return context
}

/** Every answer the app gives to `inject` (ctx.request uses it too) reports its error codes (error-codes-seen.ts). */
function recordAnswersOf(app: FastifyInstance): void {
  const inject = app.inject.bind(app) as (options: InjectOptions | string) => Promise<LightMyRequestResponse>
  const recordingInject = async (options: InjectOptions | string) => {
    const response = await inject(options)
    recordErrorCodes(response)
    return response
  }
  app.inject = recordingInject as FastifyInstance['inject']
}

/** The parsed JSON body of a response. */
export function json<T = any>(response: LightMyRequestResponse): T {
  return JSON.parse(response.body) as T
}
