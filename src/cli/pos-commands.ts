import { SingleBar, Presets } from 'cli-progress'
import type { Command } from 'commander'
import Value from 'typebox/value'
import type { AdminSession } from '../platform/admin-channel.js'
import { type Config, loadConfig } from '../platform/config.js'
import type { Db } from '../platform/db/database.js'
import { allLocations } from '../locations/locations.service.js'
import { findConnectionById } from '../pos/connections/connections.repository.js'
import { ImportSalesBody, type ImportedSale, type ImportSalesResult } from '../pos/sales/sales.schemas.js'
import { DerivedLineIds, readSalesCsvHeader, readSalesCsvRecords, type SalesCsv, type SaleLineContext, toSaleLine } from '../pos/sales/sales-csv.js'
import { importSales } from '../pos/sales/sales.service.js'
import { startSimulatorServer } from '../pos/simulation/simulator-server.js'
import { findVendor, supportedPosTypes } from '../pos/vendors/vendor-registry.js'

/**
 * The POS commands of the barstock CLI: `simulate` serves a vendor simulator, `sales import` checks a
 * CSV of sales whole, then loads it through the same service as POST /v1/sales in batches.
 */

/** Lines per batch (one transaction each): under the API's 10,000, small enough for the bar to move. */
const IMPORT_BATCH_LINES = 2_000
/** Invalid lines listed in the error; the rest are counted. */
const LISTED_PROBLEMS = 10

async function liveConnection(db: Db, args: Record<string, unknown>) {
  const connection = typeof args.connection === 'string' ? await findConnectionById(db, args.connection) : undefined
  if (!connection || connection.deleted_at) {
    throw new Error(`no POS connection ${String(args.connection)}; --connection takes an id (pos_…) from GET /v1/pos/connections`)
  }
  return connection
}

/** The `sales.locations` admin command: the locations a connection's sales may name, with their time zones. */
export async function runSalesLocationsCommand(db: Db, args: Record<string, unknown>): Promise<{ id: string; timezone: string }[]> {
  const connection = await liveConnection(db, args)
  const locations = await allLocations(db, { accountId: connection.account_id, environment: connection.environment })
  return locations.map(({ id, timezone }) => ({ id, timezone }))
}

/** The `sales.import` admin command: one batch of lines into a connection, in one transaction. */
export async function runSalesImportCommand(db: Db, args: Record<string, unknown>): Promise<ImportSalesResult> {
  const connection = await liveConnection(db, args)
  const body = { connection_id: connection.id, sales: args.sales }
  const [problem] = Value.Errors(ImportSalesBody, body)
  if (problem) throw new Error(`sales${problem.instancePath.replace(/^\/sales/, '').replace(/\//g, '.')} ${problem.message}`)
  const tenant = { accountId: connection.account_id, environment: connection.environment }
  return db.transaction().execute((trx) => importSales(trx, tenant, body as ImportSalesBody, 'cli'))
}

interface ImportOptions {
  connection: string
  location?: string
  json?: boolean
}

interface BatchReport extends Omit<ImportSalesResult, 'import_id'> {
  first_line: number
  last_line: number
  import_id: string
}

/** What an import saved, batch by batch: enough to see what a failed run left and to run it again. */
interface ImportReport {
  file: string
  connection_id: string
  /** Sale lines in the file. */
  lines: number
  imported: number
  duplicates: number
  unmapped: number
  complete: boolean
  batches: BatchReport[]
}

/** Reads the whole file once, before anything is saved; throws listing the invalid lines. Returns the line count. */
async function validateFile(csv: SalesCsv, context: SaleLineContext): Promise<number> {
  const problems: string[] = []
  let lines = 0
  for await (const record of readSalesCsvRecords(csv)) {
    lines++
    const sale = toSaleLine(record, context)
    if (typeof sale === 'string') problems.push(`line ${record.line}: ${sale}`)
  }
  if (problems.length === 0) return lines
  const listed = problems.slice(0, LISTED_PROBLEMS).map((problem) => `\n  ${problem}`)
  const more = problems.length > LISTED_PROBLEMS ? `\n  and ${problems.length - LISTED_PROBLEMS} more` : ''
  const count = problems.length === 1 ? '1 line is' : `${problems.length} lines are`
  throw new Error(`${csv.file}: ${count} invalid; nothing was imported:${listed.join('')}${more}`)
}

/** The file's lines (checked already) in batches of IMPORT_BATCH_LINES, with their first and last line numbers. */
async function* batchesOf(csv: SalesCsv, context: SaleLineContext): AsyncGenerator<{ sales: ImportedSale[]; first: number; last: number }> {
  const ids = new DerivedLineIds()
  let batch: ImportedSale[] = []
  let first = 0
  let last = 0
  for await (const record of readSalesCsvRecords(csv)) {
    if (batch.length === 0) first = record.line
    last = record.line
    batch.push(ids.assign(toSaleLine(record, context) as ImportedSale))
    if (batch.length === IMPORT_BATCH_LINES) {
      yield { sales: batch, first, last }
      batch = []
    }
  }
  if (batch.length > 0) yield { sales: batch, first, last }
}

function describeReport(report: ImportReport): string {
  const state = report.complete ? '' : ` (incomplete: ${report.imported + report.duplicates} of ${report.lines} lines saved)`
  const batches = report.batches.map((batch) => `\n  lines ${batch.first_line}-${batch.last_line}: ${batch.import_id}`)
  return (
    `${report.file} into ${report.connection_id}${state}: lines ${report.lines}, imported ${report.imported}, ` +
    `duplicates ${report.duplicates}, unmapped ${report.unmapped}${batches.join('')}`
  )
}

/** The error of a batch that failed, saying what is saved and how to finish. */
function batchFailure(report: ImportReport, batch: { first: number; last: number }, error: Error): Error {
  const saved = report.batches.length === 0 ? 'Nothing was saved' : `Lines ${report.batches[0]!.first_line}-${report.batches.at(-1)!.last_line} are saved`
  return new Error(
    `lines ${batch.first}-${batch.last} were not imported: ${error.message}. ${saved}; run the same command again ` +
      'to import the rest (lines saved already count as duplicates).',
  )
}

/** Imports the checked file batch by batch into `report`; a failed batch stops with what is saved. */
async function importBatches(session: AdminSession, csv: SalesCsv, context: SaleLineContext, report: ImportReport): Promise<void> {
  const bar = new SingleBar({ format: 'importing |{bar}| {percentage}% {value}/{total} lines' }, Presets.shades_classic)
  bar.start(report.lines, 0)
  try {
    for await (const batch of batchesOf(csv, context)) {
      const result = await session
        .run('sales.import', { connection: report.connection_id, sales: batch.sales })
        .catch((error: Error) => Promise.reject(batchFailure(report, batch, error)))
      const { import_id, imported, duplicates, unmapped } = result as ImportSalesResult
      report.batches.push({ first_line: batch.first, last_line: batch.last, import_id, imported, duplicates, unmapped })
      report.imported += imported
      report.duplicates += duplicates
      report.unmapped += unmapped
      bar.increment(batch.sales.length)
    }
    report.complete = true
  } finally {
    bar.stop()
  }
}

/**
 * `barstock sales import`: header checked, whole file validated, then batches imported, each in its own
 * transaction. A failed batch leaves the earlier ones saved: the report (printed either way) says which,
 * and since every line has a line_id (given or derived), running the same command again imports the rest.
 */
async function importCsv(file: string, options: ImportOptions, openSession: (config: Config) => Promise<AdminSession>): Promise<void> {
  const csv = await readSalesCsvHeader(file, options.location)
  if (csv.ignored.length > 0) process.stderr.write(`barstock: ignoring columns the import does not know: ${csv.ignored.join(', ')}\n`)
  const session = await openSession(loadConfig())
  try {
    const locations = (await session.run('sales.locations', { connection: options.connection })) as { id: string; timezone: string }[]
    const context = { defaultLocation: options.location, timeZones: new Map(locations.map((location) => [location.id, location.timezone])) }
    const lines = await validateFile(csv, context)
    const report: ImportReport = { file, connection_id: options.connection, lines, imported: 0, duplicates: 0, unmapped: 0, complete: false, batches: [] }
    try {
      await importBatches(session, csv, context, report)
    } finally {
      process.stdout.write(`${options.json ? JSON.stringify(report) : describeReport(report)}\n`)
    }
  } finally {
    await session.close()
  }
}

async function simulate(options: { pos: string; port: string; seed: string }): Promise<void> {
  const vendor = findVendor(options.pos)
  if (!vendor) throw new Error(`unknown --pos ${options.pos}; one of ${supportedPosTypes().join(', ')}`)
  const simulator = await startSimulatorServer(vendor.createSimulator({ seed: Number(options.seed) }), Number(options.port))
  process.stdout.write(`${vendor.posType} simulator on ${simulator.url}\nexample credentials: ${JSON.stringify(vendor.exampleCredentials)}\n`)
  const stop = () => void simulator.close().then(() => process.exit(0))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

/** The POS commands; `openSession` reaches the database wherever it is (see src/cli/runtime.ts). */
export function registerPosCommands(program: Command, openSession: (config: Config) => Promise<AdminSession>): void {
  program
    .command('simulate')
    .description("Serve a POS vendor's API simulator (the simulated bar) on loopback")
    .requiredOption('--pos <type>', `POS type: ${supportedPosTypes().join(', ')}`)
    .requiredOption('--port <n>', 'port to listen on (0: any free port)')
    .option('--seed <n>', 'same seed, same menu, staff and sales', '1')
    .action(simulate)

  program
    .command('sales')
    .description('POS sales')
    .command('import <file>')
    .description('Import a CSV of sales (columns as in POST /v1/sales; see docs/cli.md) into a POS connection')
    .requiredOption('--connection <id>', 'the POS connection (pos_…) the sales belong to')
    .option('--location <id>', 'location of lines without one (needed when the file has no location column)')
    .option('--json', 'print the report as JSON')
    .action((file: string, options: ImportOptions) => importCsv(file, options, openSession))
}
