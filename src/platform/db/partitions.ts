import { sql } from 'kysely'
import type { BackgroundLoop, WorkerDependencies } from '../background.js'
import { startBackgroundLoop } from '../background.js'
import type { Executor, Trx } from './database.js'
import { ChangeLogPruner, logEveryTenantChanged } from '../tenant-changes.js'

/**
 * The monthly partitions of the tables that grow with sales (migrations/20261127160000_partition_sales_ledger.sql,
 * docs/operations.md "Partitions and archive"). The SQL functions there do the work: this module runs
 * them ahead of need and detaches old months. It knows no table by name: a partitioned table is one
 * with a DEFAULT partition `<table>_default`, its months `<table>_YYYY_MM` (UTC).
 */

/** Months made ahead of the current one; a line for a later month waits in the DEFAULT partition until its month is made. */
export const MONTHS_AHEAD = 3

/** How often the service makes partitions ahead and moves lines out of the DEFAULT partitions. */
const MAINTENANCE_INTERVAL_MS = 3_600_000

/**
 * Makes the partitions from last month to MONTHS_AHEAD months ahead, and one for every month that lines
 * in a DEFAULT partition belong to (moving them into it). Answers the partitions made.
 */
export async function maintainPartitions(db: Executor): Promise<string[]> {
  const result = await sql<{ made: string }>`SELECT maintain_month_partitions(${MONTHS_AHEAD}) AS made`.execute(db)
  return result.rows.map((row) => row.made)
}

/**
 * Partition maintenance as a background worker: at start, then hourly. It also prunes the tenant change
 * log (tenant-changes.ts), whose rows an hour and more old a report cache no longer needs.
 */
export async function startPartitionMaintenance(deps: WorkerDependencies): Promise<BackgroundLoop> {
  const changeLog = new ChangeLogPruner()
  return startBackgroundLoop({
    name: 'partitions',
    database: deps.database,
    logger: deps.logger,
    intervalMs: MAINTENANCE_INTERVAL_MS,
    tick: async () => {
      const made = await maintainPartitions(deps.database.db)
      if (made.length > 0) deps.logger.info({ partitions: made }, 'partitions made')
      await changeLog.prune(deps.database.db)
      return false
    },
  })
}

/** One month partition of a partitioned table. */
export interface MonthPartition {
  table: string
  partition: string
  /** YYYY-MM, a UTC month. */
  month: string
}

/** The month partitions attached now, by table then month. */
export async function monthPartitions(db: Executor): Promise<MonthPartition[]> {
  const result = await sql<{ table: string; partition: string }>`
    SELECT parent.relname AS table, child.relname AS partition
    FROM month_partitioned_tables() AS t (name)
    JOIN pg_class parent ON parent.relname = t.name AND parent.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
    JOIN pg_inherits i ON i.inhparent = parent.oid
    JOIN pg_class child ON child.oid = i.inhrelid
    WHERE child.relname ~ '_[0-9]{4}_[0-9]{2}$'
    ORDER BY 1, 2`.execute(db)
  return result.rows.map((row) => ({ ...row, month: row.partition.slice(-7).replace('_', '-') }))
}

/** What archiving did to one partition. */
export interface ArchivedPartition extends MonthPartition {
  /** The table the detached partition now is; undefined when it was dropped. */
  keptAs: string | undefined
}

/**
 * Detaches every month partition of a month before `before` (YYYY-MM), first moving lines waiting in the
 * DEFAULT partitions into their months, so none of an older month stays behind. A detached partition is
 * renamed `<partition>_archived_<stamp>` and kept as a table of its own (to dump, then drop), or dropped
 * with `drop`. Nothing is deleted row by row: the triggers that keep rollups and line keys do not fire.
 * The caller decides whether `before` is safe and holds the transaction.
 */
export async function archivePartitions(trx: Trx, before: string, options: { drop: boolean; stamp: string }): Promise<ArchivedPartition[]> {
  await maintainPartitions(trx)
  // Reports of the months detached change: no row trigger sees a detach.
  await logEveryTenantChanged(trx)
  const archived: ArchivedPartition[] = []
  for (const part of await monthPartitions(trx)) {
    if (part.month >= before) continue
    await sql`ALTER TABLE ${sql.table(part.table)} DETACH PARTITION ${sql.table(part.partition)}`.execute(trx)
    if (options.drop) {
      await sql`DROP TABLE ${sql.table(part.partition)}`.execute(trx)
      archived.push({ ...part, keptAs: undefined })
    } else {
      const keptAs = `${part.partition}_archived_${options.stamp}`
      await sql`ALTER TABLE ${sql.table(part.partition)} RENAME TO ${sql.table(keptAs)}`.execute(trx)
      archived.push({ ...part, keptAs })
    }
  }
  return archived
}
