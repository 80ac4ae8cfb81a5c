import type { Tenant, Trx } from '../platform/db/database.js'
import { type Decimal, decimal, toDbNumeric, UNIT_COST_DECIMALS } from '../platform/decimal.js'
import type { ItemRow } from './inventory.repository.js'
import { lockItemRows } from './inventory.repository.js'
import { addsStock, insertOperationLines, markVoided, operationLines, type OperationLineRow } from './operations.repository.js'
import type { OperationLineKind } from './operations.tables.js'
import { type LedgerStep, writeMovements } from './stock-ledger.js'

/**
 * Transfers and waste move stock the way sales do, by their time: a line dated after its item's anchor
 * (the latest count or absolute quantity) takes current stock through the ledger; one dated at or before
 * it is history (the count already saw the shelf), kept for reports only. Both write every line to
 * stock_operation_lines, which analytics reads.
 */

/** One item's side of an operation line, in the item's unit. */
export interface OperationMove {
  item: ItemRow
  kind: OperationLineKind
  lineNo: number
  /** Positive, item units. */
  quantity: Decimal
  /** The item's cost per unit at the time (a transfer in: the source's cost in this item's unit). */
  unitCost: Decimal
  waste?: { reason: string; enteredQuantity: Decimal; enteredUnit: string; notes: string | null }
}

export interface Operation {
  id: string
  kind: 'transfer' | 'waste'
  occurredAt: Date
  actor: string
}

function signed(move: { kind: OperationLineKind; quantity: Decimal }): Decimal {
  return addsStock(move.kind) ? move.quantity : move.quantity.neg()
}

/** Whether a movement dated `at` takes the item's current stock: dated after its anchor, else it is history. */
export function takesStock(item: ItemRow, at: Date): boolean {
  return at > item.anchored_at
}

/** Writes the ledger steps of each locked item, in id order (one inventory.updated per item). */
async function writeSteps(trx: Trx, tenant: Tenant, operation: Operation, steps: Map<string, { item: ItemRow; steps: LedgerStep[] }>): Promise<void> {
  for (const itemId of [...steps.keys()].sort()) {
    const entry = steps.get(itemId) as { item: ItemRow; steps: LedgerStep[] }
    await writeMovements(trx, tenant, entry.item, entry.steps, { kind: operation.kind, actor: operation.actor, referenceId: operation.id })
  }
}

function addStep(steps: Map<string, { item: ItemRow; steps: LedgerStep[] }>, item: ItemRow, step: LedgerStep): void {
  const entry = steps.get(item.id) ?? { item, steps: [] }
  entry.steps.push(step)
  steps.set(item.id, entry)
}

/**
 * Records an operation's moves (items locked by the caller): every move as a line, and those dated after
 * their item's anchor through the ledger. The caller holds the transaction.
 */
export async function applyOperation(trx: Trx, tenant: Tenant, operation: Operation, moves: OperationMove[]): Promise<void> {
  const steps = new Map<string, { item: ItemRow; steps: LedgerStep[] }>()
  const lines = moves.map((move) => {
    const applied = takesStock(move.item, operation.occurredAt)
    if (applied) addStep(steps, move.item, { delta: signed(move), occurredAt: operation.occurredAt })
    return {
      account_id: tenant.accountId,
      environment: tenant.environment,
      operation_id: operation.id,
      line_no: move.lineNo,
      kind: move.kind,
      item_id: move.item.id,
      location_id: move.item.location_id,
      quantity: toDbNumeric(move.quantity),
      unit_cost: toDbNumeric(move.unitCost, UNIT_COST_DECIMALS),
      reason: move.waste?.reason ?? null,
      entered_quantity: move.waste ? toDbNumeric(move.waste.enteredQuantity) : null,
      entered_unit: move.waste?.enteredUnit ?? null,
      notes: move.waste?.notes ?? null,
      occurred_at: operation.occurredAt,
      applied,
    }
  })
  await insertOperationLines(trx, lines)
  await writeSteps(trx, tenant, operation, steps)
}

/**
 * Gives back to stock what an operation's applied lines took (or takes back what they gave), by
 * reversing ledger rows dated at the operation's time, for the items whose anchor is still before it. An
 * item counted since already holds what the shelf held: its stock stays. Deleted items are left alone.
 */
async function reverseOperation(trx: Trx, tenant: Tenant, operation: Operation, lines: OperationLineRow[]): Promise<void> {
  const applied = lines.filter((line) => line.applied)
  const items = await lockItemRows(
    trx,
    tenant,
    applied.map((line) => line.item_id),
  )
  const steps = new Map<string, { item: ItemRow; steps: LedgerStep[] }>()
  for (const line of applied) {
    const item = items.get(line.item_id)
    if (!item || !takesStock(item, operation.occurredAt)) continue
    addStep(steps, item, { delta: signed({ kind: line.kind, quantity: decimal(line.quantity) }).neg(), occurredAt: operation.occurredAt })
  }
  await writeSteps(trx, tenant, operation, steps)
}

/**
 * Voids a recorded operation (its header row locked by the caller): reverses it (reverseOperation) and
 * marks it and its lines voided, so reports leave it out. An operation voided before changes nothing.
 */
export async function voidOperation(trx: Trx, tenant: Tenant, operation: Operation & { table: 'inventory_transfers' | 'inventory_waste'; voidedAt: Date | null }): Promise<void> {
  if (operation.voidedAt !== null) return
  const lines = (await operationLines(trx, [operation.id])).get(operation.id) ?? []
  await reverseOperation(trx, tenant, operation, lines)
  await markVoided(trx, operation.table, operation.id, new Date())
}
