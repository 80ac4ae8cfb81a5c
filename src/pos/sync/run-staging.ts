import type { Wait } from '../../platform/background.js'
import type { Db } from '../../platform/db/database.js'
import { decimal, toDbNumeric } from '../../platform/decimal.js'
import { type PosAdapter, PosAdapterError, type PosCredentials, type PosProduct, type PosSaleLine, type PosStaffMember, type SalesWindow } from '../vendors/adapter.js'
import { type ConnectionRow, findConnectionById, saveCredentials } from '../connections/connections.repository.js'
import type { PosGateway, RunContext } from '../connections/pos-gateway.js'
import { mappingsOf } from '../mappings/mappings.repository.js'
import { type CorrectionRow, type SaleLineRow, type SaleSource, stageCorrections, stageSaleLines } from '../sales/sales.repository.js'
import { findVendor } from '../vendors/vendor-registry.js'
import { SyncFailure } from './run-errors.js'
import { type ListingSegment, listingSegments, rereadMsOf } from './sales-window.js'
import { findSalesCheckpoint, type SalesCheckpoint, type SyncRunRow, tenantOfRun } from './sync-runs.repository.js'

/**
 * A run's first half, outside any transaction: products, staff and sales are fetched from the vendor page
 * by page and the sale lines staged under the run's id in short transactions (so the embedded database
 * stays free for requests meanwhile), the next page fetched while the last batch is stored.
 */

const STAGE_BATCH_LINES = 5_000
/** Batches stored at once while fetching goes on: 2 took a Clover sync on PostgreSQL from 33k to 42k lines/s, 3 gained nothing (docs/benchmarks.md). */
const STAGE_BATCHES_IN_FLIGHT = 2

/** What a run fetched and staged, for its commit (or, when the vendor failed part way, for its failure to keep). */
export interface StagedRun {
  connection: ConnectionRow
  /** Where the sales cursor moves when the run is applied: the end of the last window read whole. */
  cursor: Date | undefined
  products: PosProduct[] | undefined
  staff: PosStaffMember[]
  salesSynced: number
  soldItems: Map<string, string>
  mappedAtStart: Set<string>
}

/** The vendor failed part way through the sales: what was read before is staged in full, for the failed run to keep. */
export interface PartialFetch {
  status: 'partial'
  failure: PosAdapterError
  staged: StagedRun
  /** Where the next run takes the listing up; undefined when the failing window had reported no position (it is read again from its start). */
  checkpoint: SalesCheckpoint | undefined
}

/** What fetching a run left staged: the whole listing, or the pages read before the vendor failed. */
export type FetchResult = { status: 'complete'; staged: StagedRun } | PartialFetch

/** What the fetch takes of the run's options. */
export interface FetchOptions {
  /** Overrides the sales window (benchmarks). */
  window?: SalesWindow
  /** The run's clock: where the sales window ends (tests move it). */
  now?: () => Date
  /** Aborted when the worker stops: the run is put back in the queue instead of failed. */
  signal?: AbortSignal
  /** How the vendor's Retry-After and retry back-offs are waited out (tests answer at once). */
  wait?: Wait
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
  private filling: StagedBatch = { sales: [], corrections: [] }
  staged = 0

  constructor(
    private readonly db: Db,
    private readonly source: SaleSource,
  ) {}

  /** Adds a page's rows to the batch being filled, and starts storing it once it holds STAGE_BATCH_LINES. */
  async add(page: StagedBatch): Promise<void> {
    this.filling.sales.push(...page.sales)
    this.filling.corrections.push(...page.corrections)
    if (this.filling.sales.length + this.filling.corrections.length < STAGE_BATCH_LINES) return
    await this.stage(this.filling)
    this.filling = { sales: [], corrections: [] }
  }

  /** Stores what was added and waits for every batch; rethrows the first failure. */
  async finish(): Promise<void> {
    if (this.filling.sales.length + this.filling.corrections.length > 0) await this.stage(this.filling)
    this.filling = { sales: [], corrections: [] }
    while (this.inFlight.length > 0) await this.finishOldest()
  }

  /** Waits for the batches in flight to end either way, so a failed run's clean-up sees every staged line. */
  async settle(): Promise<void> {
    await Promise.allSettled(this.inFlight.splice(0))
  }

  /** Starts storing a batch without waiting for it, once fewer than the limit are in flight. */
  private async stage(batch: StagedBatch): Promise<void> {
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

/** Where the sales listing has got to: the segment being read, and the last position its vendor reported in it. */
interface ListingReach {
  segment: number
  position: string | undefined
}

/** Lists each segment's sales page by page, handing every page on and keeping `reach` up to date. */
async function listSales(
  adapter: PosAdapter,
  segments: ListingSegment[],
  reach: ListingReach,
  signal: AbortSignal | undefined,
  onPage: (page: PosSaleLine[]) => Promise<void>,
): Promise<void> {
  for (reach.segment = 0; reach.segment < segments.length; reach.segment++) {
    const segment = segments[reach.segment] as ListingSegment
    reach.position = segment.from
    const progress = { from: segment.from, reached: (reached: string) => void (reach.position = reached) }
    for await (const page of adapter.listSales(segment.window, progress)) {
      signal?.throwIfAborted()
      await onPage(page)
    }
  }
}

/** Rows to stage for a page of sales, noting each POS item sold (with its name) in `soldItems`. */
function rowsOfPage(page: PosSaleLine[], locationId: string, mapped: Set<string>, soldItems: Map<string, string>): StagedBatch {
  const rows: StagedBatch = { sales: [], corrections: [] }
  for (const line of page) {
    if (isCorrection(line)) {
      rows.corrections.push(toCorrectionRow(line))
      continue
    }
    rows.sales.push(toSaleRow(line, locationId, mapped))
    soldItems.set(line.posItemId, line.name)
  }
  return rows
}

/**
 * Where a listing that failed can be taken up, or undefined when it cannot: only a vendor's failure (not
 * the shutdown's) part way through a segment that reported a position, or after a segment read whole.
 */
function resumableStop(error: unknown, segments: ListingSegment[], reach: ListingReach, signal: AbortSignal | undefined) {
  const failing = segments[reach.segment]
  const readWhole = reach.segment > 0 ? segments[reach.segment - 1]?.window.end : undefined
  if (!(error instanceof PosAdapterError) || signal?.aborted || failing === undefined || (reach.position === undefined && readWhole === undefined)) return undefined
  const checkpoint = reach.position === undefined ? undefined : { window: failing.window, position: reach.position }
  return { failure: error, readWhole, checkpoint }
}

/**
 * Fetches products, staff and sales from the POS and stages the sale lines under the run's id. When the
 * vendor fails part way through the sales after the listing reported a position (or after a window read
 * whole), what was read is staged and answered as a PartialFetch, so the failed run keeps those pages.
 */
export async function fetchAndStage(db: Db, gateway: PosGateway, run: SyncRunRow, now: Date, options: FetchOptions = {}): Promise<FetchResult> {
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
  const soldItems = new Map<string, string>()
  const pipeline = new StagingPipeline(db, { tenant: tenantOfRun(run), connectionId: connection.id, sourceId: run.id })
  const staged = (cursor: Date | undefined): StagedRun => ({ connection, cursor, products, staff, salesSynced: pipeline.staged, soldItems, mappedAtStart })
  const reach: ListingReach = { segment: 0, position: undefined }
  try {
    await listSales(adapter, segments, reach, signal, (page) => pipeline.add(rowsOfPage(page, connection.location_id, mappedAtStart, soldItems)))
    await pipeline.finish()
  } catch (error) {
    const stop = resumableStop(error, segments, reach, signal)
    // Every page handed over before the failure is added or staged: store them all, then keep them.
    const kept =
      stop &&
      (await pipeline.finish().then(
        () => true,
        () => false,
      ))
    if (!stop || !kept) {
      await pipeline.settle()
      throw error
    }
    return { status: 'partial', failure: stop.failure, staged: staged(stop.readWhole), checkpoint: stop.checkpoint }
  }
  return { status: 'complete', staged: staged(segments.at(-1)?.window.end) }
}
