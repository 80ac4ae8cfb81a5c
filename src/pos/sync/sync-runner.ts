import type { Wait } from '../../platform/background.js'
import { sql } from 'kysely'
import type { Db, Tenant, Trx } from '../../platform/db/database.js'
import { decimal, toDbNumeric } from '../../platform/decimal.js'
import type { FinishedSyncRun, MetricsReporter } from '../../platform/metrics/metrics-registry.js'
import { keepLease } from '../../platform/jobs.js'
import { enqueue } from '../../platform/outbox.js'
import { type PosAdapter, PosAdapterError, type PosCredentials, type PosProduct, type PosSaleLine, type PosStaffMember, type SalesWindow } from '../vendors/adapter.js'
import { type ConnectionRow, FREQUENCY_SECONDS, findConnectionById, saveCredentials, updateConnectionRow } from '../connections/connections.repository.js'
import { type DepletionResult, depleteLines } from '../sales/depletion.js'
import { addSoldItems, mappingsOf, upsertProducts, upsertStaff } from '../mappings/mappings.repository.js'
import type { PosGateway, RunContext } from '../connections/pos-gateway.js'
import {
  type CorrectionRow,
  deleteSourceLines,
  markSourceLines,
  resolveCorrections,
  type SaleLineRow,
  type SaleSource,
  stageCorrections,
  stageSaleLines,
} from '../sales/sales.repository.js'
import { findSalesCheckpoint, finishRun, lockRun, releaseRun, type SalesCheckpoint, saveSalesCheckpoint, SYNC_RUN_QUEUE, type SyncRunRow } from './sync-runs.repository.js'
import { findVendor } from '../vendors/vendor-registry.js'
import { DAY_MS } from '../../platform/zoned-time.js'

/**
 * One sync run, start to end. Sales are fetched page by page and staged in short transactions (so the
 * embedded database stays free for requests meanwhile), the next page fetched while the last batch is
 * stored; then ONE transaction applies the whole run:
 * products, staff, depletion (one ledger row per item), the cursor and the outcome. A failure deletes
 * the staged lines instead, so a failed run leaves no partial depletion and does not move the cursor;
 * except when the vendor failed part way through a listing that told where it got to: then the pages
 * read are applied and the position kept, and the next run lists from there (PartialRun).
 */

/** How far back a full sync (or a first incremental one) reads sales. */
export const FULL_SYNC_DAYS = 30
/** Incremental runs re-read a little before the cursor, for checks a vendor reports late; duplicates are skipped. */
export const CURSOR_OVERLAP_MS = 10 * 60_000
const STAGE_BATCH_LINES = 5_000
/** Batches stored at once while fetching goes on: 2 took a Clover sync on PostgreSQL from 33k to 42k lines/s, 3 gained nothing (docs/benchmarks.md). */
const STAGE_BATCHES_IN_FLIGHT = 2
/** How long a claimed run stays with its worker without a heartbeat (the worker extends it every 10 s). */
export const RUN_LEASE_MS = 60_000

/** A failure with the code the run records and pos.sync_failed carries. */
export class SyncFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message)
  }
}

const ADAPTER_FAILURE_CODES: Record<PosAdapterError['kind'], string> = {
  invalid_credentials: 'authentication_failed',
  connection_failed: 'connection_failed',
  rate_limited: 'rate_limited',
  invalid_response: 'invalid_response',
}

function asSyncFailure(error: unknown): SyncFailure {
  if (error instanceof SyncFailure) return error
  if (error instanceof PartialRun) return asSyncFailure(error.failure)
  if (error instanceof PosAdapterError) return new SyncFailure(ADAPTER_FAILURE_CODES[error.kind], error.message, error.retryAfterSeconds)
  // Anything else is our bug: the details go to the log, not to the API.
  return new SyncFailure('internal_error', 'The sync failed inside barstock; see the server log')
}

function tenantOfRun(run: SyncRunRow): Tenant {
  return { accountId: run.account_id, environment: run.environment }
}

interface StagedRun {
  connection: ConnectionRow
  /** Where the sales cursor moves when the run is applied: the end of the last window read whole. */
  cursor: Date | undefined
  products: PosProduct[] | undefined
  staff: PosStaffMember[]
  salesSynced: number
  soldItems: Map<string, string>
  mappedAtStart: Set<string>
}

export function salesWindowOf(run: Pick<SyncRunRow, 'sync_type'>, connection: Pick<ConnectionRow, 'sales_cursor'>, now: Date, rereadMs = CURSOR_OVERLAP_MS): SalesWindow {
  const fullStart = new Date(now.getTime() - FULL_SYNC_DAYS * DAY_MS)
  if (run.sync_type === 'full' || !connection.sales_cursor) return { start: fullStart, end: now }
  return { start: new Date(connection.sales_cursor.getTime() - Math.max(rereadMs, CURSOR_OVERLAP_MS)), end: now }
}

/** A window the run lists, and where in it to start when a failed run stopped there. */
interface ListingSegment {
  window: SalesWindow
  from?: string
}

/**
 * What a run lists: its sales window; or, after a run that failed part way, that run's window from where
 * it stopped, then from that window's end (less the re-read) to now. A full run reads its 30 days whole.
 */
export function listingSegments(
  run: Pick<SyncRunRow, 'sync_type'>,
  connection: Pick<ConnectionRow, 'sales_cursor'>,
  checkpoint: SalesCheckpoint | undefined,
  now: Date,
  rereadMs?: number,
): ListingSegment[] {
  if (!checkpoint || run.sync_type === 'full') return [{ window: salesWindowOf(run, connection, now, rereadMs) }]
  const rest = salesWindowOf(run, { sales_cursor: checkpoint.window.end }, now, rereadMs)
  return [{ window: checkpoint.window, from: checkpoint.position }, ...(rest.end > rest.start ? [{ window: rest }] : [])]
}

/**
 * The vendor failed part way through the sales: what was read before is staged in full, to be applied
 * by the failed run, and `checkpoint` says where the next run takes the listing up (undefined when the
 * failing window had reported no position: it is read again from its start).
 */
class PartialRun extends Error {
  constructor(
    readonly failure: PosAdapterError,
    readonly staged: StagedRun,
    readonly checkpoint: SalesCheckpoint | undefined,
  ) {
    super(failure.message)
  }
}

/** How far before the cursor the connection's incremental runs read again: its own setting, else its vendor's. */
function rereadMsOf(connection: ConnectionRow): number | undefined {
  return connection.sales_reread_hours !== null ? connection.sales_reread_hours * 3_600_000 : findVendor(connection.pos_type)?.incrementalRereadMs
}

async function openAdapter(db: Db, gateway: PosGateway, connection: ConnectionRow, run: RunContext): Promise<PosAdapter> {
  const vendor = findVendor(connection.pos_type)
  if (!vendor) throw new SyncFailure('pos_not_supported', `POS type ${connection.pos_type} is not available in this build`)
  const credentials = gateway.open(connection.id, connection.credentials)
  // A rotated refresh token is single-use: the old one is already spent, so the new one is saved at
  // once, outside the run's transaction, even if the run fails later.
  const saveRotated = (rotated: PosCredentials) => saveCredentials(db, connection.id, gateway.seal(connection.id, rotated))
  return gateway.adapterForRun(vendor, connection.environment, credentials, saveRotated, run)
}

function toSaleRow(line: PosSaleLine, locationId: string, mapped: Set<string>): SaleLineRow {
  return {
    lineId: line.lineId,
    locationId,
    posItemId: line.posItemId,
    name: line.name,
    quantity: toDbNumeric(decimal(line.quantity)),
    unitPrice: toDbNumeric(decimal(line.unitPrice)),
    soldAt: line.soldAt,
    staffId: line.staffId,
    staffName: line.staffName,
    checkId: line.checkId,
    tip: line.tip === null ? null : toDbNumeric(decimal(line.tip)),
    depleted: mapped.has(line.posItemId),
    parentLineId: line.parentLineId ?? null,
  }
}

function toCorrectionRow(line: PosSaleLine & { correctsLineId: string }): CorrectionRow {
  return {
    lineId: line.lineId,
    correctsLineId: line.correctsLineId,
    quantity: toDbNumeric(decimal(line.quantity)),
    unitPrice: toDbNumeric(decimal(line.unitPrice)),
    correctedAt: line.soldAt,
  }
}

function isCorrection(line: PosSaleLine): line is PosSaleLine & { correctsLineId: string } {
  return typeof line.correctsLineId === 'string'
}

/**
 * Stores a run's batches while the caller fetches the next ones: up to STAGE_BATCHES_IN_FLIGHT at a
 * time (each on its own connection on PostgreSQL), so memory stays bounded whatever the vendor's pages.
 */
class StagingPipeline {
  private readonly inFlight: Promise<number>[] = []
  staged = 0

  constructor(
    private readonly db: Db,
    private readonly source: SaleSource,
  ) {}

  /** Starts storing a batch without waiting for it, once fewer than the limit are in flight. */
  async stage(batch: StagedBatch): Promise<void> {
    while (this.inFlight.length >= STAGE_BATCHES_IN_FLIGHT) await this.finishOldest()
    // Concurrent batches claim their (connection, line id) keys in one order, so a line a vendor sent
    // twice (an offset page that shifted) makes one batch wait for the other, never a deadlock.
    batch.sales.sort(byLineId)
    batch.corrections.sort(byLineId)
    const inserting = this.insert(batch)
    // Its failure is read when it is finished; until then it must not count as unhandled.
    inserting.catch(() => undefined)
    this.inFlight.push(inserting)
  }

  /** Stores a batch; answers its new sale lines (its corrections count once they join the sales, at commit). */
  private async insert(batch: StagedBatch): Promise<number> {
    const sales = await stageSaleLines(this.db, this.source, batch.sales)
    await stageCorrections(this.db, this.source, batch.corrections)
    return sales
  }

  /** Waits for every batch in flight and counts their lines; rethrows the first failure. */
  async drain(): Promise<void> {
    while (this.inFlight.length > 0) await this.finishOldest()
  }

  /** Waits for the batches in flight to end either way, so a failed run's clean-up sees every staged line. */
  async settle(): Promise<void> {
    await Promise.allSettled(this.inFlight.splice(0))
  }

  private async finishOldest(): Promise<void> {
    const oldest = this.inFlight[0] as Promise<number>
    this.staged += await oldest
    void this.inFlight.shift() // awaited above
  }
}

/** A batch of a run's lines to stage: sales (and modifiers) and the corrections that wait for their lines. */
interface StagedBatch {
  sales: SaleLineRow[]
  corrections: CorrectionRow[]
}

function byLineId(a: { lineId: string }, b: { lineId: string }): number {
  return a.lineId < b.lineId ? -1 : a.lineId > b.lineId ? 1 : 0
}

/**
 * Fetches products, staff and sales from the POS and stages the sale lines under the run's id. When the
 * vendor fails part way through the sales after the listing reported a position (or after a window read
 * whole), what was read is staged and a PartialRun thrown, so the failed run keeps those pages.
 */
export async function fetchAndStage(db: Db, gateway: PosGateway, run: SyncRunRow, now: Date, options: RunOptions = {}): Promise<StagedRun> {
  const { window, signal, wait } = options
  const connection = await findConnectionById(db, run.connection_id)
  if (!connection || connection.deleted_at) throw new SyncFailure('connection_deleted', 'The connection was deleted')
  const adapter = await openAdapter(db, gateway, connection, { clock: options.now ?? (() => new Date()), signal, wait })
  const withCatalog = run.sync_type !== 'sales_only'
  const products = withCatalog ? await adapter.listProducts() : undefined
  const staff = withCatalog ? await adapter.listStaff() : []
  const mappedAtStart = new Set((await mappingsOf(db, connection.id)).keys())
  const checkpoint = window ? undefined : await findSalesCheckpoint(db, connection.id)
  const segments = window ? [{ window }] : listingSegments(run, connection, checkpoint, now, rereadMsOf(connection))
  const source = { tenant: tenantOfRun(run), connectionId: connection.id, sourceId: run.id }
  const soldItems = new Map<string, string>()
  const pipeline = new StagingPipeline(db, source)
  const staged = (cursor: Date | undefined): StagedRun => ({ connection, cursor, products, staff, salesSynced: pipeline.staged, soldItems, mappedAtStart })
  let buffer: StagedBatch = { sales: [], corrections: [] }
  let current = 0
  let position: string | undefined
  try {
    for (; current < segments.length; current++) {
      const segment = segments[current] as ListingSegment
      position = segment.from
      const progress = { from: segment.from, reached: (reached: string) => void (position = reached) }
      for await (const page of adapter.listSales(segment.window, progress)) {
        signal?.throwIfAborted()
        for (const line of page) {
          if (isCorrection(line)) {
            buffer.corrections.push(toCorrectionRow(line))
            continue
          }
          buffer.sales.push(toSaleRow(line, connection.location_id, mappedAtStart))
          soldItems.set(line.posItemId, line.name)
        }
        if (buffer.sales.length + buffer.corrections.length < STAGE_BATCH_LINES) continue
        await pipeline.stage(buffer)
        buffer = { sales: [], corrections: [] }
      }
    }
    if (buffer.sales.length + buffer.corrections.length > 0) await pipeline.stage(buffer)
    await pipeline.drain()
  } catch (error) {
    const failing = segments[current]
    const readWhole = current > 0 ? segments[current - 1]?.window.end : undefined
    const resumable = error instanceof PosAdapterError && !signal?.aborted && failing !== undefined && (position !== undefined || readWhole !== undefined)
    if (!resumable) {
      await pipeline.settle()
      throw error
    }
    // Every page handed over before the failure is in the buffer or staged: store them all, then keep them.
    try {
      await pipeline.stage(buffer)
      await pipeline.drain()
    } catch {
      await pipeline.settle()
      throw error
    }
    throw new PartialRun(error, staged(readWhole), position === undefined ? undefined : { window: failing.window, position })
  }
  return staged(segments.at(-1)?.window.end)
}

function durationMs(run: SyncRunRow, now: Date): number {
  return Math.max(0, now.getTime() - run.started_at.getTime())
}

/**
 * Depletes a run's lines: its sales, then its corrections as movements of their own (dated to the
 * days their lines were sold), so a refund never hides inside a later day's sales.
 */
async function depleteRun(trx: Trx, tenant: Tenant, connectionId: string, runId: string): Promise<DepletionResult> {
  const movement = { actor: connectionId, referenceId: runId }
  const sales = await depleteLines(trx, tenant, connectionId, { where: sql<boolean>`s.source_id = ${runId} AND s.corrects_line_id IS NULL` }, movement)
  const corrections = await depleteLines(trx, tenant, connectionId, { where: sql<boolean>`s.source_id = ${runId} AND s.corrects_line_id IS NOT NULL` }, movement)
  return {
    depletedPosItems: new Set([...sales.depletedPosItems, ...corrections.depletedPosItems]),
    itemsBelowZero: sales.itemsBelowZero + corrections.itemsBelowZero,
  }
}

/** What a completed run did, for the worker's log and metrics. */
export interface RunResults {
  vendor: string
  salesSynced: number
  productsSynced: number
  varianceDetected: number
  durationMs: number
}

/**
 * Applies what a run staged: products, staff, the corrections whose lines are stored now, and the
 * depletion of its lines (mappings made or removed while it fetched apply as they stand now).
 */
async function applyStaged(trx: Trx, run: SyncRunRow, staged: StagedRun): Promise<{ salesSynced: number; productsSynced: number; depletion: DepletionResult }> {
  const tenant = tenantOfRun(run)
  const connectionId = run.connection_id
  const key = { tenant, connectionId }
  const now = new Date()
  if (staged.products) await upsertProducts(trx, key, staged.products, now)
  await addSoldItems(trx, key, staged.soldItems, now)
  await upsertStaff(trx, key, staged.staff, now)
  const salesSynced = staged.salesSynced + (await resolveCorrections(trx, connectionId, run.id))
  const mappedNow = new Set((await mappingsOf(trx, connectionId)).keys())
  await markSourceLines(
    trx,
    run.id,
    [...mappedNow].filter((id) => !staged.mappedAtStart.has(id)),
    true,
  )
  await markSourceLines(
    trx,
    run.id,
    [...staged.mappedAtStart].filter((id) => !mappedNow.has(id)),
    false,
  )
  const depletion = await depleteRun(trx, tenant, connectionId, run.id)
  // Lines mapped to an item deleted since stay undepleted, so a new mapping can still take them.
  await markSourceLines(
    trx,
    run.id,
    [...mappedNow].filter((id) => !depletion.depletedPosItems.has(id)),
    false,
  )
  return { salesSynced, productsSynced: staged.products?.length ?? 0, depletion }
}

/** Applies a staged run in the caller's transaction; a run already failed elsewhere is not applied. */
export async function commitRun(trx: Trx, run: SyncRunRow, staged: StagedRun): Promise<RunResults> {
  const tenant = tenantOfRun(run)
  const connection = await trx.selectFrom('pos_connections').selectAll().where('id', '=', run.connection_id).forUpdate().executeTakeFirstOrThrow()
  if (connection.deleted_at) throw new SyncFailure('connection_deleted', 'The connection was deleted during the run')
  const current = await lockRun(trx, run.id)
  if (current?.status !== 'processing') throw new SyncFailure('interrupted', 'The run was failed while it was still working')
  const { salesSynced, productsSynced, depletion } = await applyStaged(trx, run, staged)
  const now = new Date()
  const duration = durationMs(run, now)
  const finished = await finishRun(trx, run, {
    status: 'completed',
    completed_at: now,
    duration_ms: duration,
    sales_synced: salesSynced,
    products_synced: productsSynced,
    variance_detected: depletion.itemsBelowZero,
  })
  if (!finished) throw new SyncFailure('interrupted', 'The run was taken over by another worker while it was still working')
  await updateConnectionRow(trx, connection.id, {
    ...(staged.cursor && { sales_cursor: staged.cursor }),
    last_sync: now,
    ...(connection.status === 'error' && { status: 'active' as const }),
  })
  // The listing was read to its end: a failed run's checkpoint is used up.
  await saveSalesCheckpoint(trx, connection.id, run.id, undefined)
  await enqueue(trx, tenant, 'pos.sync_completed', {
    connection_id: connection.id,
    pos_type: connection.pos_type,
    sync_id: run.id,
    sync_type: run.sync_type,
    duration_seconds: Math.round(duration / 1000),
    sales_synced: salesSynced,
    products_synced: productsSynced,
    variance_detected: depletion.itemsBelowZero,
    status: 'success',
  })
  return { vendor: connection.pos_type, salesSynced, productsSynced, varianceDetected: depletion.itemsBelowZero, durationMs: duration }
}

/**
 * Fails a running run: its staged lines go, the connection notes an authentication failure, pos.sync_failed
 * is queued. A PartialRun instead keeps what it read: its lines are applied, the cursor moves past the
 * windows it read whole and its checkpoint is stored for the next run. Returns the finished run, or
 * undefined when it was no longer running.
 */
export async function failRun(trx: Trx, claim: SyncRunRow, error: unknown): Promise<FinishedSyncRun | undefined> {
  const run = await lockRun(trx, claim.id)
  // Not running any more, or taken over by another worker since this one claimed it (the outcome is the
  // other worker's to record). The row is locked now, so the finish below cannot be fenced off.
  if (run?.status !== 'processing' || run.attempts !== claim.attempts) return undefined
  const partial = error instanceof PartialRun ? error : undefined
  const failure = asSyncFailure(error)
  const connection = await trx.selectFrom('pos_connections').selectAll().where('id', '=', run.connection_id).forUpdate().executeTakeFirstOrThrow()
  const now = new Date()
  const duration = durationMs(run, now)
  // The vendor's Retry-After for a rate limit, else the time until the scheduler tries again.
  const retryAfter = failure.code === 'rate_limited' && failure.retryAfterSeconds !== undefined ? failure.retryAfterSeconds : FREQUENCY_SECONDS[connection.sync_frequency]
  let message = failure.message
  if (partial && !connection.deleted_at) {
    const { salesSynced } = await applyStaged(trx, run, partial.staged)
    if (partial.staged.cursor) await updateConnectionRow(trx, connection.id, { sales_cursor: partial.staged.cursor })
    await saveSalesCheckpoint(trx, connection.id, run.id, partial.checkpoint)
    message += `; the ${salesSynced} new lines read before were kept, and the next run ${partial.checkpoint ? 'resumes where this one stopped' : 'reads on from them'}`
  } else {
    await deleteSourceLines(trx, run.id)
  }
  await finishRun(trx, claim, {
    status: 'failed',
    completed_at: now,
    duration_ms: duration,
    error_code: failure.code,
    error_message: message,
    retry_after: retryAfter,
  })
  if (failure.code === 'authentication_failed' && connection.status === 'active') {
    await updateConnectionRow(trx, connection.id, { status: 'error' })
  }
  await enqueue(trx, tenantOfRun(run), 'pos.sync_failed', {
    connection_id: connection.id,
    pos_type: connection.pos_type,
    sync_id: run.id,
    error_code: failure.code,
    error_message: message,
    retry_after: retryAfter,
  })
  return { vendor: connection.pos_type, outcome: failure.code, durationMs: duration }
}

/**
 * Puts a run stopped by a shutdown back in the queue: its staged lines go (it reads its window again),
 * its claim is released and its interruptions counted, so the next worker to start (this instance
 * restarted, or another one now) runs it under the same sync_id. Nothing is depleted and no event is
 * sent: the run has not ended.
 */
async function requeueInterruptedRun(trx: Trx, claim: SyncRunRow): Promise<void> {
  const run = await lockRun(trx, claim.id)
  if (run?.status !== 'processing') return
  await deleteSourceLines(trx, run.id)
  await releaseRun(trx, claim)
}

export interface RunOptions {
  /** Overrides the sales window (benchmarks). */
  window?: SalesWindow
  /** The run's clock: where the sales window ends (tests move it). */
  now?: () => Date
  /** Where the finished run is counted. */
  metrics?: MetricsReporter
  /** Aborted when the worker stops: the run is put back in the queue instead of failed. */
  signal?: AbortSignal
  /** How the vendor's Retry-After and retry back-offs are waited out (tests answer at once). */
  wait?: Wait
}

/** How a run ended: for the caller's log. */
export type RunOutcome = ({ status: 'completed' } & RunResults) | { status: 'failed'; error: unknown; code: string } | { status: 'interrupted' }

/**
 * Runs a claimed run to its end: completed, or failed with its error, or (stopped by a shutdown)
 * back in the queue for the next start. Whatever fails once the signal is aborted (the request it
 * cut, or the simulator that closed under it) counts as the interruption, not as the run's failure.
 */
export async function executeSyncRun(db: Db, gateway: PosGateway, run: SyncRunRow, options: RunOptions = {}): Promise<RunOutcome> {
  const stopHeartbeat = keepLease(db, SYNC_RUN_QUEUE, run, RUN_LEASE_MS)
  try {
    const staged = await fetchAndStage(db, gateway, run, options.now?.() ?? new Date(), options)
    const results = await db.transaction().execute((trx) => commitRun(trx, run, staged))
    options.metrics?.syncRunFinished({ vendor: results.vendor, outcome: 'completed', durationMs: results.durationMs })
    return { status: 'completed', ...results }
  } catch (error) {
    if (options.signal?.aborted) {
      await db.transaction().execute((trx) => requeueInterruptedRun(trx, run))
      return { status: 'interrupted' }
    }
    const finished = await db.transaction().execute((trx) => failRun(trx, run, error))
    if (finished) options.metrics?.syncRunFinished(finished)
    return { status: 'failed', error, code: asSyncFailure(error).code }
  } finally {
    stopHeartbeat()
  }
}
