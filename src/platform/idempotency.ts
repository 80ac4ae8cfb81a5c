import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { sql } from 'kysely'
import type { Db, Executor, Trx } from './db/database.js'
import { AppError, invalidParameter, platformErrors } from './errors.js'

export const IDEMPOTENCY_HEADER = 'x-idempotency-key'
export const IDEMPOTENCY_TTL_HOURS = 24
const MAX_KEY_LENGTH = 255

/** What a write handler answers: stored verbatim as the idempotent response. */
export interface StoredResponse {
  statusCode: number
  body: object
}

/** Canonical JSON (sorted keys), so a reordered body is the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

function fingerprint(request: FastifyRequest): string {
  const path = request.url.split('?')[0]
  return createHash('sha256')
    .update(`${request.method} ${path}\n${canonical(request.body ?? null)}`)
    .digest('hex')
}

interface IdempotencyScope {
  apiKeyId: string
  key: string
  fingerprint: string
}

function scopeOf(request: FastifyRequest): IdempotencyScope | undefined {
  const header = request.headers[IDEMPOTENCY_HEADER]
  if (request.method !== 'POST' || header === undefined || !request.auth) return undefined
  const key = Array.isArray(header) ? (header[0] ?? '') : header
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw invalidParameter('X-Idempotency-Key', key, `X-Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`)
  }
  return { apiKeyId: request.auth.keyId, key, fingerprint: fingerprint(request) }
}

/**
 * Takes the key for this transaction without waiting: a second request with the same key while the
 * first still runs is 409 idempotency_in_progress. The lock ends with the transaction, after its
 * record is committed.
 */
async function lockKey(trx: Trx, scope: IdempotencyScope): Promise<void> {
  const result = await sql<{ locked: boolean }>`
    SELECT pg_try_advisory_xact_lock(hashtext(${scope.apiKeyId}), hashtext(${scope.key})) AS locked`.execute(trx)
  if (!result.rows[0]?.locked) throw platformErrors.idempotencyInProgress()
}

/** The stored response for this key, if one is younger than 24 hours; 400 when the request differs. */
async function findStored(db: Executor, scope: IdempotencyScope): Promise<StoredResponse | undefined> {
  const row = await db
    .selectFrom('idempotency_records')
    .select(['fingerprint', 'status_code', 'response_body'])
    .where('api_key_id', '=', scope.apiKeyId)
    .where('idempotency_key', '=', scope.key)
    .where('created_at', '>', sql<Date>`now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`)
    .executeTakeFirst()
  if (!row) return undefined
  if (row.fingerprint !== scope.fingerprint) throw platformErrors.idempotencyKeyReused()
  return { statusCode: row.status_code, body: row.response_body as object }
}

async function store(trx: Trx, scope: IdempotencyScope, response: StoredResponse): Promise<void> {
  // An expired record under the same key is replaced.
  await trx
    .insertInto('idempotency_records')
    .values({
      api_key_id: scope.apiKeyId,
      idempotency_key: scope.key,
      fingerprint: scope.fingerprint,
      status_code: response.statusCode,
      response_body: JSON.stringify(response.body),
    })
    .onConflict((conflict) =>
      conflict.columns(['api_key_id', 'idempotency_key']).doUpdateSet((excluded) => ({
        fingerprint: excluded.ref('excluded.fingerprint'),
        status_code: excluded.ref('excluded.status_code'),
        response_body: excluded.ref('excluded.response_body'),
        created_at: sql`now()`,
      })),
    )
    .execute()
}

function errorBody(error: AppError): object {
  return { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } }
}

/**
 * Runs one write in one transaction and answers with its result. With an X-Idempotency-Key on a POST,
 * the response is stored in that same transaction (so no change exists without its stored response) and
 * a repeat within 24 hours gets it back with `Idempotent-Replayed: true`. Domain errors (4xx) are stored
 * too, in a transaction of their own since the change rolled back; 5xx are not, so they may be retried.
 */
export async function runWrite<T extends object>(db: Db, request: FastifyRequest, reply: FastifyReply, statusCode: number, work: (trx: Trx) => Promise<T>): Promise<{ data: T }> {
  const scope = scopeOf(request)
  if (!scope) {
    const data = await db.transaction().execute(work)
    reply.code(statusCode)
    return { data }
  }
  let response: StoredResponse
  let replayed: boolean
  try {
    ;({ response, replayed } = await db.transaction().execute(async (trx) => {
      await lockKey(trx, scope)
      const stored = await findStored(trx, scope)
      if (stored) return { response: stored, replayed: true }
      const fresh = { statusCode, body: { data: await work(trx) } }
      await store(trx, scope, fresh)
      return { response: fresh, replayed: false }
    }))
  } catch (error) {
    if (!(error instanceof AppError) || error.statusCode >= 500 || error.code.startsWith('idempotency_')) throw error
    // When a duplicate holds the key right now, it records its own outcome: nothing to store here.
    await storeRejection(db, scope, error).catch(() => undefined)
    throw error
  }
  return answer(reply, response, replayed)
}

/**
 * runWrite for a write that must first wait on the network outside any transaction (a vendor login, a
 * DNS check): a repeat is answered from the stored response before `prepare` runs, so a vendor or DNS
 * failing since cannot turn a stored 201 into a 502 or a 400. Like a schema rejection, a failed
 * `prepare` changed nothing and is not stored: the key stays free for a retry. Two first requests racing
 * may both prepare; the key's lock still lets only one of them write.
 */
export async function runWriteAfter<P, T extends object>(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  statusCode: number,
  prepare: () => Promise<P>,
  work: (trx: Trx, prepared: P) => Promise<T>,
): Promise<{ data: T }> {
  const scope = scopeOf(request)
  const stored = scope && (await findStored(db, scope))
  if (stored) return answer(reply, stored, true)
  const prepared = await prepare()
  return runWrite(db, request, reply, statusCode, (trx) => work(trx, prepared))
}

function answer<T>(reply: FastifyReply, response: StoredResponse, replayed: boolean): { data: T } {
  if (replayed) reply.header('Idempotent-Replayed', 'true')
  reply.code(response.statusCode)
  // A replay may be a stored error; the serializer picks the schema by status code, so either fits.
  return response.body as { data: T }
}

async function storeRejection(db: Db, scope: IdempotencyScope, error: AppError): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockKey(trx, scope)
    if (await findStored(trx, scope)) return
    await store(trx, scope, { statusCode: error.statusCode, body: errorBody(error) })
  })
}

/** Deletes stored responses older than the 24-hour window; returns how many went. */
export async function purgeExpiredIdempotencyRecords(db: Db): Promise<number> {
  const result = await db.deleteFrom('idempotency_records').where('created_at', '<=', sql<Date>`now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`).executeTakeFirst()
  return Number(result.numDeletedRows)
}
