import type { DatabaseHandle } from '../platform/db/connect.js'
import type { Trx } from '../platform/db/database.js'
import { type ArchivedPartition, archivePartitions } from '../platform/db/partitions.js'
import { oldestHistoryInUse } from '../inventory/index.js'
import { PREVIOUS_WINDOWS } from '../analytics/index.js'
import { syncLinesInFlightBefore } from '../pos/index.js'
import { DAY_MS } from '../platform/zoned-time.js'

/**
 * `barstock archive --before YYYY-MM [--drop]`: detaches (or drops) the month partitions of sales, sale
 * usage and the stock ledger before that month, when nothing still needs them (docs/operations.md,
 * "Partitions and archive").
 */

/** The counts per item whose windows must stay whole: the open window's (the latest count), the latest closed one's, and the earlier ones its cause rules read. */
const COUNTS_KEPT = PREVIOUS_WINDOWS + 2

export interface ArchiveResult {
  before: string
  dropped: boolean
  partitions: { table: string; month: string; kept_as: string | null }[]
}

/** The first moment of a YYYY-MM month, UTC; throws on anything else. */
function monthStart(month: unknown): Date {
  const match = typeof month === 'string' ? /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month) : null
  if (!match) throw new Error(`--before takes a month as YYYY-MM, got ${JSON.stringify(month)}`)
  return new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1))
}

/** The month (YYYY-MM) a moment falls in, UTC: the latest --before that keeps it. */
function monthOf(at: Date): string {
  return at.toISOString().slice(0, 7)
}

/**
 * Throws when archiving before `boundary` would take lines younger than the configured age, history an
 * item still needs, or lines a sync run is still storing (sales are then locked against writes until the
 * transaction ends).
 */
async function checkBoundary(trx: Trx, before: string, boundary: Date, archiveAfterDays: number, now: Date): Promise<void> {
  const youngest = new Date(now.getTime() - archiveAfterDays * DAY_MS)
  if (boundary > youngest) {
    throw new Error(
      `--before ${before} would archive sales younger than ${archiveAfterDays} days (BARSTOCK_ARCHIVE_AFTER_DAYS); the latest month allowed today is ${monthOf(youngest)}`,
    )
  }
  const inUse = await oldestHistoryInUse(trx, COUNTS_KEPT)
  if (inUse && boundary > inUse.neededFrom) {
    throw new Error(
      `--before ${before} would archive stock history that item ${inUse.itemId} (${inUse.itemName}, account ${inUse.accountId}, ${inUse.environment}) still needs ` +
        `from ${inUse.neededFrom.toISOString()}: its open count window, its current stock or the count windows its variance report reads start there ` +
        `(count the item, or delete it if it is gone); the latest month allowed now is ${monthOf(inUse.neededFrom)}`,
    )
  }
  const inFlight = await syncLinesInFlightBefore(trx, boundary)
  if (inFlight) {
    throw new Error(
      `--before ${before} would archive sale lines that sync run ${inFlight.syncId} (connection ${inFlight.connectionId}) is still storing, sold from ` +
        `${inFlight.soldFrom.toISOString()}: archive again once it has completed or failed (GET /v1/pos/syncs/${inFlight.syncId})`,
    )
  }
}

/** The `archive` admin command. `args`: before (YYYY-MM), drop (boolean), archiveAfterDays (the configured age). */
export async function runArchiveCommand(database: DatabaseHandle, args: Record<string, unknown>, now = new Date()): Promise<ArchiveResult> {
  const before = String(args.before)
  const boundary = monthStart(args.before)
  const archiveAfterDays = Number(args.archiveAfterDays)
  if (!Number.isInteger(archiveAfterDays) || archiveAfterDays < 1) throw new Error('archiveAfterDays must be a positive integer')
  const drop = args.drop === true
  const stamp = now.toISOString().replace(/\D/g, '').slice(0, 14)
  const archived: ArchivedPartition[] = await database.db.transaction().execute(async (trx) => {
    await checkBoundary(trx, before, boundary, archiveAfterDays, now)
    return archivePartitions(trx, before, { drop, stamp })
  })
  return { before, dropped: drop, partitions: archived.map((part) => ({ table: part.table, month: part.month, kept_as: part.keptAs ?? null })) }
}
