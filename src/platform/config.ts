import { resolve } from 'node:path'
import { defaultBulkWriteSlots, DEFAULT_BULK_WRITE_WAIT_MS } from './bulk-writes.js'
import { DEFAULT_DATABASE_TIMEOUTS, DEFAULT_PGLITE_QUEUE_LIMIT, type DatabaseTimeouts, type ReplicaSettings } from './db/connect.js'

/**
 * This deployment's OAuth application at a POS vendor: the client that renews the vendor's OAuth access
 * tokens. Without a client id an expired token cannot be renewed (the bar must connect again).
 */
export interface PosOAuthApp {
  clientId: string | undefined
  /** Sent with the client id when set (Square's code flow; its PKCE flow and Clover have none). */
  clientSecret?: string | undefined
}

/** Everything the service reads from its environment, validated once at start. */
export interface Config {
  port: number
  host: string
  dataDir: string
  databaseUrl: string | undefined
  /**
   * A direct connection to DATABASE_URL's database, which then leads to a transaction-mode pooler:
   * what needs a session of its own (LISTEN) goes here, and the timeouts become the role's defaults.
   */
  directDatabaseUrl: string | undefined
  databasePoolSize: number
  /** Bulk writes (sales imports) one process runs at once, the others waiting their turn (BARSTOCK_BULK_WRITE_SLOTS). */
  bulkWriteSlots: number
  /** How long a bulk write waits for its turn on PostgreSQL before it answers 503 imports_busy (BARSTOCK_BULK_WRITE_WAIT_MS). */
  bulkWriteWaitMs: number
  databaseTimeouts: DatabaseTimeouts
  /**
   * A streaming standby of DATABASE_URL's server (BARSTOCK_REPLICA_URL) that the routes declaring
   * `readReplica` read from while it is at most maxLagMs behind (BARSTOCK_REPLICA_MAX_LAG_MS).
   */
  replica: ReplicaSettings | undefined
  /** On the embedded database: the most statements and transactions waiting for its one connection. */
  pgliteQueueLimit: number
  redisUrl: string | undefined
  rateLimits: { production: number; sandbox: number }
  webhookAllowPrivate: boolean
  /** 32-byte key for POS credentials; undefined means "generate one into the data dir". */
  secretKey: Buffer | undefined
  logLevel: string
  /** json: one JSON object a line (for log collectors); pretty: pino-pretty's lines, for a human. */
  logFormat: 'json' | 'pretty'
  trustProxy: boolean
  shutdownTimeoutMs: number
  /** smtp:// or smtps:// server that purchase orders are e-mailed through; undefined: not e-mailed. */
  smtpUrl: string | undefined
  /** The From address of purchase-order e-mails. */
  smtpFrom: string
  /** Per pos_type API roots that replace the vendor's production host (a proxy, a test double). */
  posBaseUrls: Record<string, string>
  /** The longest a sync run waits out a vendor's 429 Retry-After in one call before it fails with rate_limited. */
  posRetryWaitMs: number
  /** How long one request to a POS vendor may take before it fails with connection_failed. */
  posRequestTimeoutMs: number
  /**
   * How long a sync run may take with its throttling: a vendor's Retry-After whose wait would end past it
   * stops the run at once (rate_limited), keeping what it read for the next run to resume from.
   */
  posRunBudgetMs: number
  /** This deployment's OAuth applications by pos_type (square, clover): what renews OAuth connections' tokens. */
  posOAuthApps: Record<string, PosOAuthApp>
  /** The bearer token GET /metrics requires; undefined: /metrics is off (404). */
  metricsToken: string | undefined
  /**
   * The longest stored forecasts may lag a change of sales history: the refit that takes it in is due
   * this long after the first change not yet reflected (later changes of a burst wait for the same one).
   */
  forecastRefitDelayMs: number
  /** `barstock archive` detaches no month of sales younger than this many days (docs/operations.md, "Partitions and archive"). */
  archiveAfterDays: number
  /** BARSTOCK_REPORT_CACHE_MB in bytes: the report answers a process keeps (docs/decisions.md "Report cache"); 0 keeps none. */
  reportCacheBytes: number
}

/** A configuration value that cannot be used; the message names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable} ${problem}`)
    this.name = 'ConfigError'
  }
}

type Env = Record<string, string | undefined>

/** /readyz answers within the probe timeout: orchestrators give a readiness probe a few seconds at most. */
const MAX_PROBE_TIMEOUT_MS = 10_000

/** How far behind the primary a read replica may be and still serve reads (also the read-your-writes window, plus 1 s). */
const DEFAULT_REPLICA_MAX_LAG_MS = 2_000
/** A report a minute stale is as good as none; beyond, a key's reads would stay on the primary for minutes after it writes. */
const MAX_REPLICA_LAG_MS = 60_000

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']
const LOG_FORMATS = ['json', 'pretty'] as const

function positiveInteger(env: Env, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a positive integer, got "${raw}"`)
  const value = Number(raw)
  if (value < 1 || value > max) throw new ConfigError(name, `must be between 1 and ${max}, got ${value}`)
  return value
}

/**
 * A report's period is at most 366 days and its trend reads the period before it: a report of the last
 * year reads sale lines up to 732 days back (the staff report and period facts read lines, not rollups),
 * so younger months stay whatever the setting; it may only be longer.
 */
const MIN_ARCHIVE_AFTER_DAYS = 2 * 366

function archiveAfterDays(env: Env): number {
  const days = positiveInteger(env, 'BARSTOCK_ARCHIVE_AFTER_DAYS', 732)
  if (days < MIN_ARCHIVE_AFTER_DAYS) throw new ConfigError('BARSTOCK_ARCHIVE_AFTER_DAYS', `must be at least ${MIN_ARCHIVE_AFTER_DAYS} days, got ${days}`)
  return days
}

/**
 * The report cache's default size: a 1,000-item variance report is about 850 KB, so 64 MB keeps some
 * seventy such answers (a few bars' periods and locations, or many small bars), little beside the heap
 * a process of this service uses anyway.
 */
const DEFAULT_REPORT_CACHE_MB = 64
const BYTES_PER_MB = 1024 * 1024

/** BARSTOCK_REPORT_CACHE_MB in bytes: 0 (off) or a positive number of megabytes. */
function reportCacheBytes(env: Env): number {
  const name = 'BARSTOCK_REPORT_CACHE_MB'
  if (env[name]?.trim() === '0') return 0
  return positiveInteger(env, name, DEFAULT_REPORT_CACHE_MB, 65_536) * BYTES_PER_MB
}

function flag(env: Env, name: string): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false
  if (raw === '1' || raw === 'true') return true
  throw new ConfigError(name, `must be 1/true or 0/false, got "${raw}"`)
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(name, 'is not a valid URL')
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got ${parsed.protocol}`)
  }
  return raw
}

/** `square=https://proxy.example,toast=http://127.0.0.1:9000` → {square: …, toast: …}. */
function urlMap(env: Env, name: string): Record<string, string> {
  const raw = env[name]
  const map: Record<string, string> = {}
  if (raw === undefined || raw.trim() === '') return map
  for (const entry of raw.split(',')) {
    const [key, value] = entry.split(/=(.*)/s).map((part) => part?.trim())
    if (!key || !value) throw new ConfigError(name, `entries must look like type=url, got "${entry}"`)
    url({ [name]: value }, name, ['http:', 'https:'])
    map[key] = value
  }
  return map
}

function emailAddress(env: Env, name: string, fallback: string): string {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  // An address, optionally with a display name: "Bar <orders@bar.example>".
  if (!/^([^<>]*<)?[^\s@<>]+@[^\s@<>]+(>)?$/.test(raw.trim())) throw new ConfigError(name, `is not an e-mail address, got "${raw}"`)
  return raw.trim()
}

/** A free-form value, or undefined when unset or empty. */
function text(env: Env, name: string): string | undefined {
  return env[name] || undefined
}

const MIN_TOKEN_LENGTH = 16

/** A shared secret of at least 16 printable characters without spaces, or undefined when unset. */
function token(env: Env, name: string): string | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  if (!/^[\x21-\x7e]+$/.test(raw)) throw new ConfigError(name, 'must be printable ASCII without spaces')
  if (raw.length < MIN_TOKEN_LENGTH) throw new ConfigError(name, `must be at least ${MIN_TOKEN_LENGTH} characters, got ${raw.length}`)
  return raw
}

/** Accepts 32 bytes written as 64 hex digits or as base64. */
export function parseSecretKey(raw: string, name = 'BARSTOCK_SECRET_KEY'): Buffer {
  const text = raw.trim()
  const bytes = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64')
  if (bytes.length !== 32) throw new ConfigError(name, `must be 32 bytes as 64 hex digits or base64, got ${bytes.length} bytes`)
  return bytes
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = env.BARSTOCK_LOG_LEVEL || 'info'
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('BARSTOCK_LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`)
  const logFormat = env.BARSTOCK_LOG_FORMAT || 'json'
  if (!LOG_FORMATS.includes(logFormat as never)) throw new ConfigError('BARSTOCK_LOG_FORMAT', `must be one of ${LOG_FORMATS.join(', ')}, got "${logFormat}"`)
  const secret = env.BARSTOCK_SECRET_KEY
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:'])
  const directDatabaseUrl = url(env, 'BARSTOCK_DIRECT_DATABASE_URL', ['postgres:', 'postgresql:'])
  if (directDatabaseUrl && !databaseUrl) throw new ConfigError('BARSTOCK_DIRECT_DATABASE_URL', 'needs DATABASE_URL (the pooler it bypasses)')
  const replicaUrl = url(env, 'BARSTOCK_REPLICA_URL', ['postgres:', 'postgresql:'])
  if (replicaUrl && !databaseUrl) throw new ConfigError('BARSTOCK_REPLICA_URL', 'needs DATABASE_URL (the primary it is a standby of); the embedded database has no replicas')
  const databasePoolSize = positiveInteger(env, 'BARSTOCK_DB_POOL_SIZE', 10, 200)
  return {
    port: env.PORT === '0' ? 0 : positiveInteger(env, 'PORT', 3000, 65535),
    host: env.HOST || '0.0.0.0',
    dataDir: resolve(env.BARSTOCK_DATA_DIR || './data'),
    databaseUrl,
    directDatabaseUrl,
    databasePoolSize,
    bulkWriteSlots: positiveInteger(env, 'BARSTOCK_BULK_WRITE_SLOTS', defaultBulkWriteSlots(databasePoolSize), databasePoolSize),
    bulkWriteWaitMs: positiveInteger(env, 'BARSTOCK_BULK_WRITE_WAIT_MS', DEFAULT_BULK_WRITE_WAIT_MS),
    databaseTimeouts: {
      connectMs: positiveInteger(env, 'BARSTOCK_DB_CONNECT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.connectMs),
      statementMs: positiveInteger(env, 'BARSTOCK_DB_STATEMENT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.statementMs),
      idleInTransactionMs: positiveInteger(env, 'BARSTOCK_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.idleInTransactionMs),
      probeMs: positiveInteger(env, 'BARSTOCK_DB_PROBE_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.probeMs, MAX_PROBE_TIMEOUT_MS),
      stallCheckMs: positiveInteger(env, 'BARSTOCK_DB_STALL_CHECK_MS', DEFAULT_DATABASE_TIMEOUTS.stallCheckMs),
    },
    replica: replicaUrl ? { url: replicaUrl, maxLagMs: positiveInteger(env, 'BARSTOCK_REPLICA_MAX_LAG_MS', DEFAULT_REPLICA_MAX_LAG_MS, MAX_REPLICA_LAG_MS) } : undefined,
    pgliteQueueLimit: positiveInteger(env, 'BARSTOCK_PGLITE_QUEUE_LIMIT', DEFAULT_PGLITE_QUEUE_LIMIT),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    rateLimits: {
      production: positiveInteger(env, 'BARSTOCK_RATE_LIMIT_PRODUCTION', 1000),
      sandbox: positiveInteger(env, 'BARSTOCK_RATE_LIMIT_SANDBOX', 100),
    },
    webhookAllowPrivate: flag(env, 'BARSTOCK_WEBHOOK_ALLOW_PRIVATE'),
    secretKey: secret ? parseSecretKey(secret) : undefined,
    logLevel,
    logFormat: logFormat as Config['logFormat'],
    trustProxy: flag(env, 'BARSTOCK_TRUST_PROXY'),
    shutdownTimeoutMs: positiveInteger(env, 'BARSTOCK_SHUTDOWN_TIMEOUT_MS', 10_000),
    smtpUrl: url(env, 'BARSTOCK_SMTP_URL', ['smtp:', 'smtps:']),
    smtpFrom: emailAddress(env, 'BARSTOCK_SMTP_FROM', 'barstock@localhost'),
    posBaseUrls: urlMap(env, 'BARSTOCK_POS_BASE_URLS'),
    posRetryWaitMs: positiveInteger(env, 'BARSTOCK_POS_RETRY_WAIT_SECONDS', 300, 3600) * 1000,
    posRequestTimeoutMs: positiveInteger(env, 'BARSTOCK_POS_REQUEST_TIMEOUT_SECONDS', 10, 600) * 1000,
    posRunBudgetMs: positiveInteger(env, 'BARSTOCK_POS_RUN_BUDGET_SECONDS', 1800, 86_400) * 1000,
    posOAuthApps: {
      square: { clientId: text(env, 'SQUARE_APPLICATION_ID'), clientSecret: text(env, 'SQUARE_APPLICATION_SECRET') },
      clover: { clientId: text(env, 'CLOVER_APP_ID') },
    },
    metricsToken: token(env, 'BARSTOCK_METRICS_TOKEN'),
    forecastRefitDelayMs: positiveInteger(env, 'BARSTOCK_FORECAST_REFIT_DELAY_SECONDS', 60, 3600) * 1000,
    archiveAfterDays: archiveAfterDays(env),
    reportCacheBytes: reportCacheBytes(env),
  }
}
