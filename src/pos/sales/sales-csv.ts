import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import { CsvError, parse } from 'csv-parse'
import { parse as parseLine } from 'csv-parse/sync'
import Value from 'typebox/value'
import { wallTimeAsUtc, zonedWallTimeToDate } from '../../platform/zoned-time.js'
import { ImportSalesBody, type ImportedSale } from './sales.schemas.js'
import { saleLineProblem } from './sales.service.js'

/**
 * Reading a CSV of sales for `barstock sales import`: the delimiter sniffed from the header, the header
 * checked, each line turned into an import line or a problem that names the file's line number, and
 * lines without line_id given an id derived from their content, so a re-run never counts a sale twice.
 */

const REQUIRED_COLUMNS = ['pos_item_id', 'name', 'quantity', 'unit_price', 'sold_at'] as const
const OPTIONAL_COLUMNS = ['location', 'line_id', 'staff_id', 'staff_name', 'check_id', 'tip'] as const
const OPTIONAL_TEXT = ['line_id', 'staff_id', 'staff_name', 'check_id'] as const
const DELIMITERS = [',', ';', '\t'] as const
/** The header must fit in the first 64 KiB. */
const HEADER_BYTES = 64 * 1024
const SALE_LINE = ImportSalesBody.properties.sales.items
const DELIMITER_NAMES: Record<string, string> = { ',': 'commas', ';': 'semicolons', '\t': 'tabs' }

export interface SalesCsv {
  file: string
  delimiter: string
  /** The column of each field position, lower-cased. */
  columns: string[]
  /** Columns the import does not know, skipped. */
  ignored: string[]
}

/** Where a file's lines go: --location for lines without one, and each location's time zone. */
export interface SaleLineContext {
  defaultLocation: string | undefined
  timeZones: ReadonlyMap<string, string>
}

export interface CsvRecord {
  /** The file's line number where the record starts (the header is line 1). */
  line: number
  fields: Record<string, string>
  /** What is wrong with the record as a whole (its field count), if anything. */
  problem?: string
}

async function readFirstLine(file: string): Promise<string> {
  const handle = await open(file).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`cannot read ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`)
  })
  try {
    const buffer = Buffer.alloc(HEADER_BYTES)
    const { bytesRead } = await handle.read(buffer, 0, HEADER_BYTES, 0)
    return (
      buffer
        .subarray(0, bytesRead)
        .toString('utf8')
        .replace(/^\uFEFF/, '')
        .split(/\r?\n/, 1)[0] ?? ''
    )
  } finally {
    await handle.close()
  }
}

/** The delimiter the header uses most outside quotes: comma, semicolon or tab (comma on a tie). */
function sniffDelimiter(header: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((delimiter) => [delimiter, 0]))
  let quoted = false
  for (const char of header) {
    if (char === '"') quoted = !quoted
    else if (!quoted && counts.has(char)) counts.set(char, counts.get(char)! + 1)
  }
  return DELIMITERS.reduce((best, delimiter) => (counts.get(delimiter)! > counts.get(best)! ? delimiter : best))
}

function list(names: readonly string[]): string {
  return names.join(', ')
}

/**
 * Reads and checks the header before anything is saved: every required column present (location too
 * unless --location gives one), none twice. The error names what is missing and what was found.
 */
export async function readSalesCsvHeader(file: string, defaultLocation: string | undefined): Promise<SalesCsv> {
  const header = await readFirstLine(file)
  const expected = `The columns are ${list(REQUIRED_COLUMNS)}, and optionally ${list(OPTIONAL_COLUMNS)}`
  if (header.trim() === '') throw new Error(`${file} is empty: its first line must name the columns. ${expected}.`)
  const delimiter = sniffDelimiter(header)
  const columns = (parseLine(header, { delimiter, relax_quotes: true })[0] as string[]).map((name) => name.trim().toLowerCase())
  const twice = columns.filter((name, index) => columns.indexOf(name) !== index)
  if (twice.length > 0) throw new Error(`${file}: the header names ${list([...new Set(twice)])} more than once`)
  const needed: string[] = defaultLocation === undefined ? [...REQUIRED_COLUMNS, 'location'] : [...REQUIRED_COLUMNS]
  const missing = needed.filter((name) => !columns.includes(name))
  if (missing.length > 0) {
    const locationHint = missing.includes('location') ? ' (or give --location)' : ''
    throw new Error(
      `${file}: missing column${missing.length > 1 ? 's' : ''} ${list(missing)}${locationHint}; ` +
        `found ${list(columns)} (separated by ${DELIMITER_NAMES[delimiter]}). ${expected}.`,
    )
  }
  const known = new Set<string>([...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS])
  return { file, delimiter, columns, ignored: columns.filter((name) => !known.has(name)) }
}

function recordProblem(record: string[], columns: string[]): string | undefined {
  if (record.length !== columns.length) return `${record.length} fields where the header has ${columns.length}`
  const withNul = record.findIndex((field) => field.includes('\u0000'))
  // PostgreSQL text cannot hold NUL: refused here rather than failing the batch that carries it.
  return withNul === -1 ? undefined : `${columns[withNul]} contains a NUL character`
}

/** The records after the header, each with the line it starts on; empty lines are skipped. */
export async function* readSalesCsvRecords(csv: SalesCsv): AsyncGenerator<CsvRecord> {
  const parser = createReadStream(csv.file).pipe(
    parse({ delimiter: csv.delimiter, bom: true, from_line: 2, info: true, relax_column_count: true, skip_empty_lines: true, trim: true }),
  )
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      // info.lines is where the record ends; a quoted field may span lines.
      const line = info.lines - record.reduce((newlines, field) => newlines + (field.match(/\n/g)?.length ?? 0), 0)
      const fields = Object.fromEntries(csv.columns.map((name, index) => [name, record[index] ?? '']))
      yield { line, fields, problem: recordProblem(record, csv.columns) }
    }
  } catch (error) {
    if (error instanceof CsvError) throw new Error(`${csv.file} is not readable as CSV: ${error.message}`, { cause: error })
    throw error
  }
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/

function parseDecimal(field: string, value: string): number | string {
  if (value === '') return `${field} is empty`
  return DECIMAL.test(value) ? Number(value) : `${field} must be a number like 2 or 0.5, found "${value}"`
}

const SOLD_AT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?: ?(Z|[+-]\d{2}:?\d{2}))?$/i
export const SOLD_AT_FORMS = '2026-03-01T18:30:00Z, 2026-03-01T18:30:00+01:00, or without a zone (2026-03-01T18:30:00, 2026-03-01 18:30) in the location’s time zone'

/** A sale time in one of the accepted forms, as an ISO instant; without a zone, in the location's. */
function parseSoldAt(value: string, timeZone: string): string | { problem: string } {
  const match = SOLD_AT.exec(value)
  const refuse = { problem: `sold_at "${value}" is not a date and time; write ${SOLD_AT_FORMS}` }
  if (!match) return refuse
  const [, year, month, day, hour, minute, second, fraction, zone] = match
  const wall = wallTimeAsUtc({
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second ?? 0),
    millisecond: Number((fraction ?? '').padEnd(3, '0').slice(0, 3)),
  })
  if (wall === undefined) return { problem: `sold_at "${value}" is not a date that exists` }
  if (zone === undefined) return zonedWallTimeToDate(wall, timeZone).toISOString()
  if (zone.toUpperCase() === 'Z') return new Date(wall).toISOString()
  const [, sign, hours, minutes] = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!
  const offsetMs = (Number(hours) * 60 + Number(minutes)) * 60_000 * (sign === '-' ? -1 : 1)
  return new Date(wall - offsetMs).toISOString()
}

/** The first thing wrong with a line by the API's rules (its schema, then the service's checks). */
function ruleProblem(sale: ImportedSale, fields: Record<string, string>): string | undefined {
  const [error] = Value.Errors(SALE_LINE, sale)
  if (error) {
    const field = error.instancePath.replace(/^\//, '') || 'the line'
    return `${field} ${error.message}${field in fields ? `, found "${fields[field]}"` : ''}`
  }
  const problem = saleLineProblem(sale)
  return problem && `${problem.field} ${problem.message}, found "${fields[problem.field]}"`
}

/** A record as an import line (without a derived line_id yet), or what is wrong with it. */
export function toSaleLine(record: CsvRecord, context: SaleLineContext): ImportedSale | string {
  if (record.problem) return record.problem
  const { fields } = record
  const location = fields.location || context.defaultLocation
  if (!location) return 'location is empty and no --location was given'
  const timeZone = context.timeZones.get(location)
  if (timeZone === undefined) return `location ${location} does not exist; the locations are ${list([...context.timeZones.keys()])}`
  const quantity = parseDecimal('quantity', fields.quantity!)
  const unitPrice = parseDecimal('unit_price', fields.unit_price!)
  const tip = fields.tip ? parseDecimal('tip', fields.tip) : undefined
  const soldAt = parseSoldAt(fields.sold_at!, timeZone)
  const problem = [quantity, unitPrice, tip].find((value) => typeof value === 'string') ?? (typeof soldAt === 'object' ? soldAt.problem : undefined)
  if (problem !== undefined) return String(problem)
  const sale: ImportedSale = {
    location,
    pos_item_id: fields.pos_item_id!,
    name: fields.name!,
    quantity: quantity as number,
    unit_price: unitPrice as number,
    sold_at: soldAt as string,
  }
  for (const field of OPTIONAL_TEXT) if (fields[field]) sale[field] = fields[field]
  if (tip !== undefined) sale.tip = tip as number
  return ruleProblem(sale, fields) ?? sale
}

/**
 * Gives lines without line_id an id derived from what identifies the sale (location, POS item,
 * quantity, price, time, staff, check, tip; not the display names, which a POS may change), numbered
 * among identical lines of the file: the same file, or a later export that repeats its lines, gets
 * the same ids, so the connection counts each sale once.
 */
export class DerivedLineIds {
  private readonly seen = new Map<string, number>()

  assign(sale: ImportedSale): ImportedSale {
    if (sale.line_id !== undefined) return sale
    const identity = [sale.location, sale.pos_item_id, sale.quantity, sale.unit_price, sale.sold_at, sale.staff_id, sale.check_id, sale.tip]
    const digest = createHash('sha256').update(JSON.stringify(identity)).digest('base64url').slice(0, 32)
    const occurrence = (this.seen.get(digest) ?? 0) + 1
    this.seen.set(digest, occurrence)
    return { ...sale, line_id: `csv:${digest}:${occurrence}` }
  }
}
