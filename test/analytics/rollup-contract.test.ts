import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import { COLUMNS_ROLLED_UP } from '../../src/inventory/index.js'
import type { DatabaseHandle } from '../../src/platform/db/connect.js'
import { SALE_COLUMNS_ROLLED_UP } from '../../src/pos/index.js'
import { openTestDatabase } from '../helpers/context.js'

/**
 * Analytics' rollups are kept by triggers on pos's and inventory's tables, which TypeScript cannot see.
 * Each writing domain publishes the columns the triggers read (checked against its table's type there);
 * this checks the same lists against the triggers as the migrated database holds them: every column of
 * the table that a trigger's function names is published, and every published one is named and exists.
 * A column renamed or dropped by a migration, or a trigger that starts reading another, fails here.
 */
const PUBLISHED: Record<string, readonly string[]> = { pos_sales: SALE_COLUMNS_ROLLED_UP, ...COLUMNS_ROLLED_UP }

let database: DatabaseHandle
before(async () => {
  database = await openTestDatabase()
})
after(() => database.close())

/** The source of every function an analytics trigger on `table` runs. */
async function triggerFunctions(table: string): Promise<{ name: string; source: string }[]> {
  const result = await sql<{ name: string; source: string }>`
    SELECT DISTINCT p.proname AS name, p.prosrc AS source
    FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
    WHERE t.tgrelid = ${table}::regclass AND NOT t.tgisinternal AND p.proname LIKE 'analytics\\_%'
    ORDER BY 1`.execute(database.db)
  return result.rows
}

async function columnsOf(table: string): Promise<string[]> {
  const result = await sql<{ column_name: string }>`
    SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table}`.execute(database.db)
  return result.rows.map((row) => row.column_name)
}

for (const [table, published] of Object.entries(PUBLISHED)) {
  test(`the analytics triggers on ${table} read exactly the columns ${table}'s domain publishes for them`, async () => {
    const functions = await triggerFunctions(table)
    assert.ok(functions.length > 0, `no analytics trigger on ${table}: drop its published list with the trigger`)
    const columns = new Set(await columnsOf(table))
    const missing = published.filter((column) => !columns.has(column))
    assert.deepEqual(missing, [], `published columns of ${table} that the table no longer has`)
    const words = new Set(functions.flatMap((fn) => fn.source.toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? []))
    const read = [...columns].filter((column) => words.has(column)).sort()
    assert.deepEqual(read, [...published].sort(), `columns of ${table} named by ${functions.map((fn) => fn.name).join(', ')}`)
  })
}
