import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { SingleBar, Presets } from 'cli-progress'
import type { Command } from 'commander'
import { parse } from 'csv-parse'
import Value from 'typebox/value'
import { loadConfig } from '../platform/config.js'
import type { Db } from '../platform/db/database.js'
import { findConnectionById } from './connections.repository.js'
import { ImportSalesBody, type ImportedSale, type ImportSalesResult } from './pos.schemas.js'
import { importSales } from './sales.service.js'
import { startSimulatorServer } from './simulation/simulator-server.js'
import { findVendor, supportedPosTypes } from './vendor-registry.js'

/**
 * The POS commands of the barstock CLI: `simulate` serves a vendor simulator, `sales import` loads a
 * CSV of sales through the same service as POST /v1/sales, in chunks, with a progress bar.
 */

/** Lines per admin command: under the API's 10,000, small enough for the bar to move. */
const IMPORT_CHUNK_LINES = 2_000
const OPTIONAL_TEXT = ['line_id', 'staff_id', 'staff_name', 'check_id'] as const

/** The `sales.import` admin command: one chunk of lines into a connection, in one transaction. */
export async function runSalesImportCommand(db: Db, args: Record<string, unknown>): Promise<ImportSalesResult> {
  const connection = typeof args.connection === 'string' ? await findConnectionById(db, args.connection) : undefined
  if (!connection || connection.deleted_at) throw new Error(`no POS connection ${String(args.connection)}`)
  const body = { connection_id: connection.id, sales: args.sales }
  const [problem] = Value.Errors(ImportSalesBody, body)
  if (problem) throw new Error(`sales${problem.instancePath.replace(/^\/sales/, '').replace(/\//g, '.')} ${problem.message}`)
  const tenant = { accountId: connection.account_id, environment: connection.environment }
  return db.transaction().execute((trx) => importSales(trx, tenant, body as ImportSalesBody, 'cli'))
}

/** A CSV row (header names as in POST /v1/sales) as an import line; --location fills a missing location. */
function toSale(row: Record<string, string>, location: string): ImportedSale {
  const sale: ImportedSale = {
    location: row.location || location,
    pos_item_id: row.pos_item_id ?? '',
    name: row.name ?? '',
    quantity: Number(row.quantity),
    unit_price: Number(row.unit_price),
    sold_at: row.sold_at ?? '',
  }
  for (const field of OPTIONAL_TEXT) if (row[field]) sale[field] = row[field]
  if (row.tip) sale.tip = Number(row.tip)
  return sale
}

async function importCsv(file: string, options: { location: string; connection: string }): Promise<void> {
  const config = loadConfig()
  const { runAdminCommand } = await import('../cli/runtime.js')
  const bar = new SingleBar({ format: 'importing |{bar}| {percentage}% {value}/{total} bytes | {lines} lines' }, Presets.shades_classic)
  bar.start((await stat(file)).size, 0, { lines: 0 })
  const totals = { imported: 0, duplicates: 0, unmapped: 0 }
  let chunk: ImportedSale[] = []
  let lines = 0
  const input = createReadStream(file)
  const flush = async () => {
    if (chunk.length === 0) return
    const result = (await runAdminCommand(config, 'sales.import', { connection: options.connection, sales: chunk })) as ImportSalesResult
    totals.imported += result.imported
    totals.duplicates += result.duplicates
    totals.unmapped += result.unmapped
    lines += chunk.length
    chunk = []
    bar.update(input.bytesRead, { lines })
  }
  try {
    for await (const row of input.pipe(parse({ columns: true, skip_empty_lines: true, trim: true }))) {
      chunk.push(toSale(row as Record<string, string>, options.location))
      if (chunk.length >= IMPORT_CHUNK_LINES) await flush()
    }
    await flush()
  } finally {
    bar.stop()
  }
  process.stdout.write(`${JSON.stringify(totals)}\n`)
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

export function registerPosCommands(program: Command): void {
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
    .description('Import a CSV of sales (columns as in POST /v1/sales) into a POS connection')
    .requiredOption('--location <id>', 'location of lines without a location column')
    .requiredOption('--connection <id>', 'the POS connection (pos_…) the sales belong to')
    .action(importCsv)
}
