import type { TArray, TObject } from 'typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { LRUCache } from 'lru-cache'
import { tenantOf } from '../auth/auth-plugin.js'
import { type ReadScope, readScope } from '../db/read-replica.js'
import { type ChangeHorizon, changedSince, reachOfChanges, SNAPSHOT_MAX_AGE_MS, takeSnapshot } from '../tenant-changes.js'
import { envelopeAround } from './conventions.js'

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
 * What an answer's part keeps (the report's making: every item's window, score and answered object, the
 * flagged items' history facts; and each answered item's bytes, answerBytes), per byte of the answer: a
 * 1,000-item variance report to today with 282 items flagged measured 2.96 MB of heap and 1.11 MB of item
 * bytes beside its 0.79 MB of bytes (5.2), rounded up.
 */
const PART_BYTES_PER_ANSWER_BYTE = 6

/** An answer larger than the whole cache is not kept (lru-cache skips it). */
function answerCache(maxBytes: number): AnswerCache {
  return new LRUCache<string, CachedAnswer>({
    maxSize: maxBytes,
    sizeCalculation: (answer, key) => answer.data.length * (answer.part ? 1 + PART_BYTES_PER_ANSWER_BYTE : 1) + 2 * (key.length + answer.snapshot.length) + ENTRY_OVERHEAD_BYTES,
  })
}

/** An answer being computed on a miss or a refresh, kept when it is made. */
interface PendingAnswer {
  key: string
  snapshot: string
  takenAt: number
  /** The request's read scope (with a replica): whether the snapshot, and then any read, ran on the replica. */
  scope: ReadScope | undefined
  snapshotOnReplica: boolean
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The cached report answers (BARSTOCK_REPORT_CACHE_MB); undefined when it is 0. */
    reportCache: AnswerCache | undefined
    /** Counts a lookup of the report cache (ReportCacheOptions.onLookup). */
    reportCacheLookup: (outcome: ReportCacheOutcome) => void
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
  /** Undefined: every change reaches inside the parts (an answer of the present, as the forecast's stock). */
  horizon?: ChangeHorizon
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

/** A report route's cache key, how it computes its answer, and the answer's schema and list. */
export interface CachedReport<T> {
  /** Everything besides the tenant's data that shapes the answer (the parsed query, with "today" resolved). */
  key: readonly unknown[]
  /** The answer, on a miss. */
  compute: () => Promise<Computed<T>>
  /** The schema of the answer's `data` (the route's 200 answer is its envelope). */
  schema: TObject
  /**
   * The field of `data` that lists the answer's items (an array of objects, none changed once answered):
   * serialized one item at a time, each item's bytes kept while the item is (answerBytes).
   */
  list: keyof T & string
}

/**
 * The answer of a report route, from the cache while nothing of the tenant that can reach it changed since
 * it was computed (docs/decisions.md "Report cache"). A hit sends the cached `data` in a new envelope (its
 * own meta). A refresh (the changes reached only what its part makes again: some items, its context, what
 * is read beside them) and a miss are serialized here (answerBytes), kept and sent. The snapshot is taken
 * before anything is read, on the pool the report reads (with a replica, an answer whose snapshot was taken
 * on the primary but which then read the replica is not kept: it may be older than its snapshot). Without
 * a cache the answer is `{data}` for the route's serializer.
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
  const part = cached?.part
  const begun = beginAnswer(cacheKey)
  // With a part, the statement that reads what the changes reach takes the new snapshot: every change that snapshot sees is among those read.
  const reach = part && (await reachOfChanges(db, tenant, cached.snapshot, cached.horizon, part.horizon))
  const answer = snapshotTaken(begun, reach ? reach.snapshot : await takeSnapshot(db))
  const again = part && reach && !reach.whole ? ((await part.again(new Set(reach.items), reach.context)) as Computed<T> | undefined) : undefined
  if (again) request.server.reportCacheLookup('refresh')
  const made = again ?? (await computeWhole(request, report))
  const data = answerBytes(reply, report, made.data)
  keepAnswer(cache, answer, made, data)
  return reply.header('content-type', JSON_TYPE).send(envelopeAround(request, data))
}

/** Each list item's bytes by the serializer that wrote them, while the item lives (a kept answer holds its items). */
const itemBytes = new WeakMap<ItemSerializer, WeakMap<object, Buffer>>()

type JsonObject = { [key: string]: unknown }
type ItemSerializer = (item: JsonObject) => string

const LIST_SEPARATOR = Buffer.from(',')

/**
 * An answer's `data` as the route's serializer writes it inside its envelope (both compiled by Fastify's
 * serializer compiler from the same schemas; test/analytics/report-cache.test.ts compares the bytes with
 * an answer the route serialized whole), with the items of its list written one at a time and each item's
 * bytes kept: a refresh answers mostly the items it answered before, and writing a thousand items' fields
 * again was most of what a refresh spent on its answer. Kept as bytes, not text: the serializer's text is
 * a string built of many pieces, which joining copies piece by piece each time. The list's place is found
 * as an empty list in the answer written without its items: a key's text, quotes included, cannot appear
 * inside a string, where quotes are escaped, so only another empty list of that name could share it (then
 * the answer is written whole).
 */
function answerBytes<T>(reply: FastifyReply, report: CachedReport<T>, data: T): Buffer {
  const serialize = reply.compileSerializationSchema(report.schema as unknown as JsonObject)
  const shell = serialize({ ...data, [report.list]: [] })
  const marker = `"${report.list}":[]`
  const at = shell.indexOf(marker)
  if (at < 0 || at !== shell.lastIndexOf(marker)) return Buffer.from(serialize(data as JsonObject))
  const itemSchema = (report.schema.properties[report.list] as TArray).items
  const serializeItem = reply.compileSerializationSchema(itemSchema as unknown as JsonObject)
  let kept = itemBytes.get(serializeItem)
  if (!kept) itemBytes.set(serializeItem, (kept = new WeakMap()))
  const open = at + marker.length - 1
  const parts: Buffer[] = [Buffer.from(shell.slice(0, open))]
  for (const item of data[report.list] as object[]) {
    let bytes = kept.get(item)
    if (bytes === undefined) kept.set(item, (bytes = Buffer.from(serializeItem(item as JsonObject))))
    if (parts.length > 1) parts.push(LIST_SEPARATOR)
    parts.push(bytes)
  }
  parts.push(Buffer.from(shell.slice(open)))
  return Buffer.concat(parts)
}

async function computeWhole<T>(request: FastifyRequest, report: CachedReport<T>): Promise<Computed<T>> {
  request.server.reportCacheLookup('miss')
  return report.compute()
}

/** An answer computed now, before its snapshot is taken: the snapshot is kept with it, taken before it reads anything. */
type BegunAnswer = Omit<PendingAnswer, 'snapshot' | 'snapshotOnReplica'>

/** Begins an answer (with a replica, the read scope then tells where its snapshot was read). */
function beginAnswer(key: string): BegunAnswer {
  const scope = readScope.getStore()
  if (scope) scope.readReplica = false
  return { key, takenAt: Date.now(), scope }
}

function snapshotTaken(begun: BegunAnswer, snapshot: string): PendingAnswer {
  return { ...begun, snapshot, snapshotOnReplica: begun.scope?.readReplica === true }
}

function keepAnswer(cache: AnswerCache, pending: PendingAnswer, made: Computed<unknown>, data: Buffer): void {
  const olderThanSnapshot = !pending.snapshotOnReplica && pending.scope?.readReplica === true
  if (olderThanSnapshot) return
  cache.set(pending.key, { data, snapshot: pending.snapshot, takenAt: pending.takenAt, horizon: made.horizon, part: made.part })
}

async function reportCache(app: FastifyInstance, options: ReportCacheOptions) {
  app.decorate('reportCache', options.maxBytes > 0 ? answerCache(options.maxBytes) : undefined)
  app.decorate('reportCacheLookup', options.onLookup)
}

export const reportCachePlugin = fp(reportCache, { name: 'barstock-report-cache', dependencies: ['barstock-conventions'] })
