import { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'
import { type Static, type TObject, type TSchema, Type } from 'typebox'
import { StringEnum } from './types.js'

/**
 * CSV exports of lists (RFC 4180): a header row of the JSON field names, one record per row, CRLF line
 * ends, a field quoted when it holds a comma, a double quote or a line break. Every row matching the
 * filters, read in keyset batches and written to the reply as they come, never the whole list in memory.
 */

export type CsvValue = string | number | boolean | null | undefined | readonly (string | number)[]

/** The `format` query parameter of the routes that export CSV. */
export const FormatQuery = {
  format: Type.Optional(
    StringEnum(['json', 'csv'], {
      description: 'csv: every row matching the filters as text/csv (page and per_page do not apply); json by default. Wins over the Accept header.',
    }),
  ),
}

/** The CSV columns of rows of `schema`: its fields, in the JSON's order. */
export function columnsOf<T extends TObject>(schema: T): (keyof Static<T> & string)[] {
  return Object.keys(schema.properties)
}

/**
 * Text a spreadsheet would read as a formula (OWASP, CSV injection): such a cell is prefixed with a
 * single quote, so it is shown as typed and never run. Numbers are written as they are: −2 is no formula.
 */
const FORMULA_START = /^[=+\-@\t\r]/

/** One field, quoted per RFC 4180 when it must be; null is an empty field, a list its values separated by spaces. */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return ''
  if (Array.isArray(value)) return csvField(value.join(' '))
  if (typeof value !== 'string') return String(value)
  const text = FORMULA_START.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** One record with its CRLF line end. */
export function csvRecord(values: readonly CsvValue[]): string {
  return `${values.map(csvField).join(',')}\r\n`
}

/** The weight each media range of an Accept header gives (q, 1 when absent). */
function acceptWeights(accept: string): Map<string, number> {
  const weights = new Map<string, number>()
  for (const range of accept.split(',')) {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase())
    const q = parameters.find((parameter) => parameter.startsWith('q='))
    weights.set(type, q === undefined ? 1 : Number(q.slice(2)) || 0)
  }
  return weights
}

/**
 * Whether the client asked for CSV: `?format=csv`, or, without `format`, an Accept header naming
 * text/csv with a weight above 0 and no higher weight for application/json. Wildcards name neither.
 */
export function wantsCsv(request: { query: { format?: 'json' | 'csv' }; headers: { accept?: string } }): boolean {
  const format = request.query.format
  if (format !== undefined) return format === 'csv'
  const weights = acceptWeights(request.headers.accept ?? '')
  const csv = weights.get('text/csv') ?? 0
  return csv > 0 && csv >= (weights.get('application/json') ?? 0)
}

/**
 * A 200 response documented with both content types: the JSON schema, and text/csv with its columns.
 * Fastify serializes by the reply's content type, so the JSON schema still filters the JSON answer.
 */
export function jsonOrCsv<T extends TSchema>(json: T, columns: readonly string[]) {
  return {
    description: 'JSON; with `format=csv` or `Accept: text/csv`, CSV of every row matching the filters (no pages)',
    content: {
      'application/json': { schema: json },
      'text/csv': {
        schema: Type.String({ description: `RFC 4180, UTF-8, CRLF line ends; a header row, then one row each. Columns: ${columns.join(', ')}` }),
      },
    },
  }
}

/**
 * Streams `batches` as CSV with `columns` (fields of each row) as the header. The first batch is read
 * before anything is sent, so a failure there is still a JSON error; a later failure cuts the reply
 * short (no final chunk), which clients see as an incomplete download.
 */
export async function sendCsv<Row extends object>(
  reply: FastifyReply,
  filename: string,
  columns: readonly (keyof Row & string)[],
  batches: AsyncIterable<Row[]>,
): Promise<FastifyReply> {
  const iterator = batches[Symbol.asyncIterator]()
  const first = await iterator.next()
  async function* records() {
    yield csvRecord(columns)
    for (let batch = first; !batch.done; batch = await iterator.next()) {
      yield batch.value.map((row) => csvRecord(columns.map((column) => row[column] as CsvValue))).join('')
    }
  }
  return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${filename}"`).send(Readable.from(records()))
}
