import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { LRUCache } from 'lru-cache'
import { tenantOf } from '../auth/auth-plugin.js'
import { type ReadScope, readScope } from '../db/read-replica.js'
import { type ChangeHorizon, changedSince, reachOfChanges, SNAPSHOT_MAX_AGE_MS, takeSnapshot } from '../tenant-changes.js'
import { envelopeAround, serializedData } from './conventions.js'

/** A cached answer: its serialized `data` and the snapshot taken before its first read. */
interface CachedAnswer {
  /** The answer's `data` as the envelope's serializer wrote it (UTF-8). */
  data: Buffer
  /** pg_current_snapshot() before the answer's first read (tenant-changes.ts). */
  snapshot: string
  /** When that snapshot was taken (Date.now()). */
  takenAt: number
  /** How far forward the answer's data reaches (Computed.horizon); undefined: every change of the tenant reaches it. */
  horizon: ChangeHorizon | undefined
  /** The part of the answer that can be made again alone (Computed.part). */
  part: KeptPart | undefined
}

/** An AnswerPart as kept beside answers of any route. */
type KeptPart = AnswerPart<unknown>

/** The cached answers by key, least recently used first out once their bytes pass BARSTOCK_REPORT_CACHE_MB. */
type AnswerCache = LRUCache<string, CachedAnswer>

/** What an entry holds besides its data's bytes: key, snapshot, the cache's and the object's own. */
const ENTRY_OVERHEAD_BYTES = 200

/**
 * What an answer's part keeps in the heap (the report's making: every item's window, score and answered
 * object, the flagged items' history facts), per byte of the answer: a 1,000-item variance report to
 * today with 232 items flagged measured 2.48 MB of heap beside its 0.76 MB of bytes (3.3), rounded up.
 */
const PART_BYTES_PER_ANSWER_BYTE = 4

/** An answer larger than the whole cache is not kept (lru-cache skips it). */
function answerCache(maxBytes: number): AnswerCache {
  return new LRUCache<string, CachedAnswer>({
    maxSize: maxBytes,
    sizeCalculation: (answer, key) => answer.data.length * (answer.part ? 1 + PART_BYTES_PER_ANSWER_BYTE : 1) + 2 * (key.length + answer.snapshot.length) + ENTRY_OVERHEAD_BYTES,
  })
}

/** An answer being computed on a miss, kept when it is sent. */
interface PendingAnswer {
  key: string
  snapshot: string
  takenAt: number
  /** The request's read scope (with a replica): whether the snapshot, and then any read, ran on the replica. */
  scope: ReadScope | undefined
  snapshotOnReplica: boolean
  horizon: ChangeHorizon | undefined
  part: KeptPart | undefined
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The cached report answers (BARSTOCK_REPORT_CACHE_MB); undefined when it is 0. */
    reportCache: AnswerCache | undefined
    /** Counts a lookup of the report cache (ReportCacheOptions.onLookup). */
    reportCacheLookup: (outcome: ReportCacheOutcome) => void
  }
  interface FastifyRequest {
    pendingAnswer: PendingAnswer | undefined
  }
}

export type ReportCacheOutcome = 'hit' | 'refresh' | 'miss'

export interface ReportCacheOptions {
  /** BARSTOCK_REPORT_CACHE_MB in bytes; 0 caches nothing. */
  maxBytes: number
  /** Told of every lookup (the /metrics counter). */
  onLookup: (outcome: ReportCacheOutcome) => void
}

const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * How an answer made of one part per item, and what is read beside them, is made again in part: a change
 * that reaches the answer but not `horizon` changes only what is read beside the items, and one inside it
 * that names its items (tenant_changes.item_ids) only those items' parts; one of the context only
 * (tenant_changes.reaches_history false: a setting, an item's name, a mapping) what the answer reads of
 * its context. `again` makes the answer again from the one it was made with, reading only that, instead of
 * computing it whole.
 */
export interface AnswerPart<T> {
  horizon: ChangeHorizon
  /**
   * The answer made again with the parts of `items` read again (none: only what is read beside them),
   * and with `context` its context read again (ChangesReach.context): undefined when the context changed
   * so that the answer must be computed whole.
   */
  again: (items: ReadonlySet<string>, context: boolean) => Promise<Computed<T> | undefined>
}

/** A computed answer, how far forward its data reaches, and the part of it that can be made again alone. */
export interface Computed<T> {
  data: T
  /**
   * For an answer about a period: a change after it leaves the answer cached (tenant-changes.ts). Without
   * it every change of the tenant makes the answer compute again.
   */
  horizon?: ChangeHorizon
  part?: AnswerPart<T>
}

/** A report route's cache key and how it computes its answer. */
export interface CachedReport<T> {
  /** Everything besides the tenant's data that shapes the answer (the parsed query, with "today" resolved). */
  key: readonly unknown[]
  /** The answer, on a miss. */
  compute: () => Promise<Computed<T>>
}

/**
 * The answer of a report route, from the cache while nothing of the tenant that can reach it changed since
 * it was computed (docs/decisions.md "Report cache"). A hit sends the cached `data` in a new envelope (its
 * own meta) and answers the reply. A refresh (the changes reached only what its part makes again: some
 * items, its context, what is read beside them) and a miss answer `{data}` for the route's serializer, and the
 * serialized answer is kept if it is a 200. The snapshot is taken before anything is read, on the pool the
 * report reads (with a replica, an answer whose snapshot was taken on the primary but which then read the
 * replica is not kept: it may be older than its snapshot).
 */
export async function cachedReport<T>(request: FastifyRequest, reply: FastifyReply, report: CachedReport<T>): Promise<{ data: T } | FastifyReply> {
  const cache = request.server.reportCache
  if (!cache) return { data: (await report.compute()).data }
  const tenant = tenantOf(request)
  const { db } = request.server
  const cacheKey = JSON.stringify([tenant.accountId, tenant.environment, request.routeOptions.url, ...report.key])
  const kept = cache.get(cacheKey)
  const cached = kept && Date.now() - kept.takenAt < SNAPSHOT_MAX_AGE_MS ? kept : undefined
  if (cached && !(await changedSince(db, tenant, cached.snapshot, cached.horizon))) {
    request.server.reportCacheLookup('hit')
    return reply.header('content-type', JSON_TYPE).send(envelopeAround(request, cached.data))
  }
  const answer = await beginAnswer(request, cacheKey)
  // Read after the new snapshot: every change that snapshot sees is among those read.
  const reach = cached?.part && (await reachOfChanges(db, tenant, cached.snapshot, cached.horizon, cached.part.horizon))
  const again = reach && !reach.whole && cached.part ? ((await cached.part.again(new Set(reach.items), reach.context)) as Computed<T> | undefined) : undefined
  if (again) request.server.reportCacheLookup('refresh')
  const made = again ?? (await computeWhole(request, report))
  request.pendingAnswer = { ...answer, horizon: made.horizon, part: made.part }
  return { data: made.data }
}

async function computeWhole<T>(request: FastifyRequest, report: CachedReport<T>): Promise<Computed<T>> {
  request.server.reportCacheLookup('miss')
  return report.compute()
}

/** The snapshot an answer computed now is kept with, taken before it reads anything. */
async function beginAnswer(request: FastifyRequest, key: string): Promise<Omit<PendingAnswer, 'horizon' | 'part'>> {
  const scope = readScope.getStore()
  if (scope) scope.readReplica = false
  const takenAt = Date.now()
  const snapshot = await takeSnapshot(request.server.db)
  return { key, snapshot, takenAt, scope, snapshotOnReplica: scope?.readReplica === true }
}

function keepAnswer(cache: AnswerCache, pending: PendingAnswer, body: string): void {
  const data = serializedData(body)
  const olderThanSnapshot = !pending.snapshotOnReplica && pending.scope?.readReplica === true
  if (data === undefined || olderThanSnapshot) return
  cache.set(pending.key, { data: Buffer.from(data), snapshot: pending.snapshot, takenAt: pending.takenAt, horizon: pending.horizon, part: pending.part })
}

async function reportCache(app: FastifyInstance, options: ReportCacheOptions) {
  const cache = options.maxBytes > 0 ? answerCache(options.maxBytes) : undefined
  app.decorate('reportCache', cache)
  app.decorate('reportCacheLookup', options.onLookup)
  app.decorateRequest('pendingAnswer', undefined)
  if (!cache) return
  app.addHook('onSend', (request, reply, payload, done) => {
    const pending = request.pendingAnswer
    if (pending && reply.statusCode === 200 && typeof payload === 'string') keepAnswer(cache, pending, payload)
    done(null, payload)
  })
}

export const reportCachePlugin = fp(reportCache, { name: 'barstock-report-cache', dependencies: ['barstock-conventions'] })
