import { Redis } from 'ioredis'

/** Counts hits per bucket in fixed windows. */
export interface RateLimitStore {
  /**
   * Adds one hit to `bucket` in the window starting at windowStart and returns the window's count: at once
   * when counted in this process, as a promise when counted elsewhere.
   */
  increment(bucket: string, windowStart: number, windowMs: number): number | Promise<number>
  close(): Promise<void>
}

export interface RateLimitResult {
  limit: number
  remaining: number
  /** Unix seconds when the window resets. */
  resetAt: number
  /** Seconds until then. */
  resetAfter: number
  exceeded: boolean
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counts = new Map<string, number>()
  private currentWindow = 0

  increment(bucket: string, windowStart: number): number {
    // Only the current window is kept: older counts can never matter again.
    if (windowStart !== this.currentWindow) {
      this.counts.clear()
      this.currentWindow = windowStart
    }
    const count = (this.counts.get(bucket) ?? 0) + 1
    this.counts.set(bucket, count)
    return count
  }

  async close(): Promise<void> {}
}

// INCR and PEXPIRE in one atomic step, so every instance sees one count and keys never outlive the window.
const INCREMENT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`

/**
 * Counts in Redis, shared by every instance. When Redis cannot answer, the instance counts in memory
 * until it can again: a Redis outage loosens the limit to per-instance, it never fails requests.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis
  private readonly fallback = new MemoryRateLimitStore()

  constructor(
    url: string,
    private readonly onError: (error: Error) => void = () => undefined,
  ) {
    // Commands wait for the connection, but never longer than commandTimeout: then the fallback counts.
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 500, connectTimeout: 2000 })
    this.redis.on('error', onError)
  }

  async increment(bucket: string, windowStart: number, windowMs: number): Promise<number> {
    const key = `barstock:rl:${bucket}:${windowStart}`
    try {
      return (await this.redis.eval(INCREMENT_SCRIPT, 1, key, String(windowMs + 1000))) as number
    } catch (error) {
      this.onError(error as Error)
      return this.fallback.increment(bucket, windowStart)
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect())
  }
}

function outcome(limit: number, count: number, resetMs: number, now: number): RateLimitResult {
  return {
    limit,
    remaining: Math.max(0, limit - count),
    resetAt: Math.ceil(resetMs / 1000),
    resetAfter: Math.max(1, Math.ceil((resetMs - now) / 1000)),
    exceeded: count > limit,
  }
}

/** Fixed one-minute windows per bucket (an API key, or a client address without a valid key). */
export class RateLimiter {
  constructor(
    private readonly store: RateLimitStore,
    private readonly windowMs = 60_000,
    private readonly now = () => Date.now(),
  ) {}

  /** Counts one hit; answers at once when the store counts in memory, as a promise when it counts in Redis. */
  hit(bucket: string, limit: number): RateLimitResult | Promise<RateLimitResult> {
    const now = this.now()
    const windowStart = now - (now % this.windowMs)
    const count = this.store.increment(bucket, windowStart, this.windowMs)
    const result = (counted: number) => outcome(limit, counted, windowStart + this.windowMs, now)
    return typeof count === 'number' ? result(count) : count.then(result)
  }

  close(): Promise<void> {
    return this.store.close()
  }
}
