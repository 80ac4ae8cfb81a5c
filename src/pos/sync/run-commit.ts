import { sql } from 'kysely'
import type { Tenant, Trx } from '../../platform/db/database.js'
import { enqueue } from '../../platform/outbox.js'
import { lockConnectionById, updateConnectionRow } from '../connections/connections.repository.js'
import { addSoldItems, mappingsOf, upsertProducts, upsertStaff } from '../mappings/mappings.repository.js'
import { type DepletionResult, depleteLines } from '../sales/depletion.js'
import { markSourceLines, resolveCorrections, setAsideCorrectionsOfArchivedLines } from '../sales/sales.repository.js'
import { SyncFailure } from './run-errors.js'
import type { StagedRun } from './run-staging.js'
import { finishRun, lockRun, saveSalesCheckpoint, type SyncRunRow, tenantOfRun } from './sync-runs.repository.js'

/**
 * A run's second half: ONE transaction applies what it staged (products, staff, depletion with one ledger
 * row per item), moves the cursor and records the outcome.
 */

/** How long a run has taken by `now`. */
export function durationMs(run: SyncRunRow, now: Date): number {
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
  /** Corrections of archived lines set aside (setAsideCorrectionsOfArchivedLines). */
  correctionsSetAside: number
}

/**
 * Applies what a run staged: products, staff, the corrections whose lines are stored now, and the
 * depletion of its lines (mappings made or removed while it fetched apply as they stand now).
 */
export async function applyStaged(
  trx: Trx,
  run: SyncRunRow,
  staged: StagedRun,
): Promise<{ salesSynced: number; productsSynced: number; correctionsSetAside: number; depletion: DepletionResult }> {
  const tenant = tenantOfRun(run)
  const connectionId = run.connection_id
  const key = { tenant, connectionId }
  const now = new Date()
  if (staged.products) await upsertProducts(trx, key, staged.products, now)
  await addSoldItems(trx, key, staged.soldItems, now)
  await upsertStaff(trx, key, staged.staff, now)
  const salesSynced = staged.salesSynced + (await resolveCorrections(trx, connectionId, run.id))
  const correctionsSetAside = await setAsideCorrectionsOfArchivedLines(trx, connectionId)
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
  return { salesSynced, productsSynced: staged.products?.length ?? 0, correctionsSetAside, depletion }
}

/** Applies a staged run in the caller's transaction; a run already failed elsewhere is not applied. */
export async function commitRun(trx: Trx, run: SyncRunRow, staged: StagedRun): Promise<RunResults> {
  const tenant = tenantOfRun(run)
  const connection = await lockConnectionById(trx, run.connection_id)
  if (connection.deleted_at) throw new SyncFailure('connection_deleted', 'The connection was deleted during the run')
  const current = await lockRun(trx, run.id)
  if (current?.status !== 'processing') throw new SyncFailure('interrupted', 'The run was failed while it was still working')
  const { salesSynced, productsSynced, correctionsSetAside, depletion } = await applyStaged(trx, run, staged)
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
  return { vendor: connection.pos_type, salesSynced, productsSynced, varianceDetected: depletion.itemsBelowZero, durationMs: duration, correctionsSetAside }
}
