import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Db, Tenant } from '../db/database.js'
import { platformErrors } from '../errors.js'
import type { RateLimiter, RateLimitResult } from '../rate-limit.js'
import { type AuthContext, findActiveKey } from './api-keys.js'
import type { Permission } from './permissions.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The permission a key needs for this route; absent on routes any valid key may call. */
    permission?: Permission
    /**
     * A route called without an API key (a POS vendor's push, authenticated by the vendor's signature):
     * no key is read and every call counts against its client address at the production limit.
     */
    public?: boolean
  }
  interface FastifyRequest {
    auth: AuthContext | undefined
    rateLimit: RateLimitResult | undefined
  }
}

const CACHE_TTL_MS = 30_000

const unexpired = (context: AuthContext, now: number) => (context.expiresAt && context.expiresAt.getTime() <= now ? undefined : context)

/**
 * Calls `next` with `value`: at once when it is one, once it resolves when it is a promise (`fail` with the
 * rejection). The auth hook's steps answer at once for most requests (a cached key, limits counted in
 * memory), and then cost no promise.
 */
function whenReady<T>(value: T | Promise<T>, next: (value: T) => void, fail: (error: unknown) => void): void {
  if (value instanceof Promise) value.then(next, fail)
  else next(value)
}

/**
 * Verified keys, cached for a short while so a request costs no key lookup. Revocations arrive by NOTIFY
 * and drop the cache; expiry is checked on every request.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, { context: AuthContext; cachedAt: number }>()

  constructor(private readonly db: Db) {}

  /**
   * The key's context when it is valid. A key verified in the last CACHE_TTL_MS answers at once, without a
   * promise (most requests); any other is looked up.
   */
  verify(key: string): AuthContext | undefined | Promise<AuthContext | undefined> {
    const cached = this.entries.get(key)
    const now = Date.now()
    if (cached && now - cached.cachedAt < CACHE_TTL_MS) return unexpired(cached.context, now)
    return this.lookUp(key, now)
  }

  private async lookUp(key: string, now: number): Promise<AuthContext | undefined> {
    const context = await findActiveKey(this.db, key)
    if (!context) {
      this.entries.delete(key)
      return undefined
    }
    this.entries.set(key, { context, cachedAt: now })
    return unexpired(context, now)
  }

  /** Forgets every cached key (a key was revoked somewhere). */
  clear(): void {
    this.entries.clear()
  }
}

export interface AuthOptions {
  keys: ApiKeyCache
  limiter: RateLimiter
  limits: { production: number; sandbox: number }
}

/**
 * Keeps a request's rate-limit outcome on it (the metrics count its 429s) and sets the rate-limit headers
 * every /v1 answer carries; throws rate_limit_exceeded (with Retry-After) when the bucket is over its limit.
 */
function applyLimit(result: RateLimitResult, request: FastifyRequest, reply: FastifyReply): void {
  request.rateLimit = result
  reply.header('X-RateLimit-Limit', result.limit)
  reply.header('X-RateLimit-Remaining', result.remaining)
  reply.header('X-RateLimit-Reset', result.resetAt)
  reply.header('X-RateLimit-Reset-After', result.resetAfter)
  if (result.exceeded) {
    reply.header('Retry-After', result.resetAfter)
    throw platformErrors.rateLimitExceeded([result.limit, result.resetAfter])
  }
}

/**
 * A /v1 request refused before routing (a malformed path, frameworkErrors), so before its key is read:
 * counted against its client address at the production limit, like a request without a valid key.
 */
export async function countUnroutedRequest(options: Pick<AuthOptions, 'limiter' | 'limits'>, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.url.startsWith('/v1/')) applyLimit(await options.limiter.hit(`ip:${request.ip}`, options.limits.production), request, reply)
}

/** What to fix when no key was sent: a key in `Authorization: Bearer` is not read. */
function keyHint(request: FastifyRequest): string {
  if (request.headers['x-api-key'] !== undefined) return ''
  const bearer = /^bearer\s/i.test(String(request.headers.authorization ?? ''))
  return bearer ? ': send the key in the X-API-Key header (Authorization: Bearer is not read)' : ': send the key in the X-API-Key header'
}

/** The tenant of an authenticated request (routes behind the auth hook always have one). */
export function tenantOf(request: FastifyRequest): Tenant {
  if (!request.auth) throw platformErrors.invalidApiKey('')
  return { accountId: request.auth.accountId, environment: request.auth.environment }
}

/** Who made an authenticated request, as the ledger and events name them: the API key's id. */
export function actorOf(request: FastifyRequest): string {
  return request.auth?.keyId ?? 'unknown'
}

/**
 * Authentication, rate limiting and permissions for every /v1 request, in that order: the rate limit
 * counts per key (or per client address without a valid key, and always on public routes), then a
 * missing key is 401 and a missing permission 403.
 */
async function auth(app: FastifyInstance, options: AuthOptions) {
  app.decorateRequest('auth', undefined)
  app.decorateRequest('rateLimit', undefined)
  // Callback form: a request with a cached key and limits counted in memory passes without a promise.
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.url.startsWith('/v1/')) return done()
    // Fastify builds routeOptions afresh on every read: read once.
    const { config } = request.routeOptions
    const isPublic = config.public === true
    const header = request.headers['x-api-key']
    const verified = !isPublic && typeof header === 'string' && header.length <= 200 ? options.keys.verify(header) : undefined
    const fail = (error: unknown) => done(error as Error)
    whenReady(
      verified,
      (context) => {
        request.auth = context
        const limit = context ? options.limits[context.environment] : options.limits.production
        const bucket = context ? `key:${context.keyId}` : `ip:${request.ip}`
        whenReady(
          options.limiter.hit(bucket, limit),
          (result) => {
            try {
              applyLimit(result, request, reply)
              // Unknown routes answer 404 whatever the key.
              if (!request.is404 && !isPublic) authorize(request, context, config.permission)
            } catch (error) {
              return fail(error)
            }
            done()
          },
          fail,
        )
      },
      fail,
    )
  })
}

/** Refuses a request without a valid key (401), or whose key lacks the route's permission (403). */
function authorize(request: FastifyRequest, context: AuthContext | undefined, required: Permission | undefined): void {
  if (!context) throw platformErrors.invalidApiKey(keyHint(request))
  if (required && !context.permissions.includes(required)) {
    throw platformErrors.insufficientPermissions(required, { required, provided: context.permissions })
  }
}

export const authPlugin = fp(auth, { name: 'barstock-auth', dependencies: ['barstock-conventions'] })
