import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { startServer, type RunningServer } from '../../src/cli/serve.js'
import { adminSocketPath, startAdminChannel } from '../../src/platform/admin-channel.js'
import { createApiKey } from '../../src/platform/auth/api-keys.js'
import { parsePermissionList } from '../../src/platform/auth/permissions.js'
import { loadConfig } from '../../src/platform/config.js'
import { lockDataDir } from '../../src/platform/db/data-dir-lock.js'
import { runCli, tempDataDir } from '../helpers/server-process.js'
import { migratedDataDir } from '../helpers/pglite-image.js'
import { SQUARE_CREDENTIALS, waitForSync } from './pos-helpers.js'

const HEADER = 'line_id,pos_item_id,name,quantity,unit_price,sold_at'
const dataDir = await migratedDataDir()
const env = { BARSTOCK_DATA_DIR: dataDir }
let server: RunningServer
let key: string
let connectionId: string
let fileCount = 0

before(async () => {
  const config = loadConfig({ ...env, BARSTOCK_SECRET_KEY: randomBytes(32).toString('hex'), PORT: '0', HOST: '127.0.0.1', BARSTOCK_LOG_LEVEL: 'silent' })
  server = await startServer(config)
  key = (await createApiKey(server.app.db, { accountId: 'acct_default', environment: 'sandbox', name: 'cli test', permissions: parsePermissionList('*') })).key
  const created = await post('/v1/pos/connections', { pos_type: 'square', name: 'CSV bar', credentials: SQUARE_CREDENTIALS, initial_sync: 'incremental' })
  connectionId = created.data.id
  // The server's worker takes the connection's first run at once: the imports come after it, not during it.
  const api = { request: (method: 'GET', url: string) => server.app.inject({ method, url, headers: { 'x-api-key': key } }) }
  const firstRun = await waitForSync(api, { key }, created.data.first_sync_id)
  assert.equal(firstRun.status, 'completed', JSON.stringify(firstRun.error))
  await post('/v1/locations', { id: 'patio', name: 'Patio', timezone: 'America/New_York' })
})
after(async () => {
  await server.stop()
})

async function post(url: string, payload: object) {
  const response = await server.app.inject({ method: 'POST', url, headers: { 'x-api-key': key }, payload })
  assert.equal(response.statusCode, 201, response.body)
  return JSON.parse(response.body)
}

/** Writes `content` to a new file in the data dir and runs `barstock sales import` on it. */
async function importFile(content: string, ...args: string[]) {
  const file = join(dataDir, `sales-${++fileCount}.csv`)
  writeFileSync(file, content)
  const result = await runCli(['sales', 'import', file, '--connection', connectionId, ...args], env)
  return { ...result, file }
}

function assertRefused(result: { code: number; stdout: string; stderr: string }, message: RegExp) {
  assert.equal(result.code, 1, result.stderr)
  assert.match(result.stderr, message)
  assert.doesNotMatch(result.stderr, /^\s+at /m, 'no stack trace')
  assert.equal(result.stdout, '', 'nothing was imported, so no report')
}

test('barstock sales import loads a CSV in batches through the running server that holds the embedded database', async () => {
  const rows = Array.from({ length: 4_500 }, (_, index) => `L${index},P${index % 7},Item ${index % 7},1,7.5,2026-11-20T2${index % 4}:00:00.000Z`)
  const result = await importFile([HEADER, ...rows, 'L0,P0,Item 0,1,7.5,2026-11-20T20:00:00.000Z'].join('\n'), '--location', 'main_bar', '--json')
  assert.equal(result.code, 0, result.stderr)
  const report = JSON.parse(result.stdout)
  assert.deepEqual(
    { lines: report.lines, imported: report.imported, duplicates: report.duplicates, unmapped: report.unmapped, complete: report.complete },
    { lines: 4_501, imported: 4_500, duplicates: 1, unmapped: 4_500, complete: true },
  )
  assert.deepEqual(
    report.batches.map((batch: { first_line: number; last_line: number }) => [batch.first_line, batch.last_line]),
    [
      [2, 2001],
      [2002, 4001],
      [4002, 4502],
    ],
  )
  assert.match(result.stderr, new RegExp(`data dir ${dataDir} \\(through the server running as pid ${process.pid}\\)`))
  const mappings = await server.app.inject({ method: 'GET', url: `/v1/pos/connections/${connectionId}/mappings?per_page=100`, headers: { 'x-api-key': key } })
  const posItems = JSON.parse(mappings.body).data.map((mapping: { pos_item_id: string }) => mapping.pos_item_id)
  assert.deepEqual(posItems.filter((id: string) => /^P\d$/.test(id)).sort(), ['P0', 'P1', 'P2', 'P3', 'P4', 'P5', 'P6'])
})

describe('the header is checked before anything is saved', () => {
  test('a missing column is named with the columns found and the delimiter sniffed', async () => {
    const result = await importFile('pos_item_id;name;qty;unit_price;sold_at\nH1;Beer;1;5;2026-03-01T18:00:00Z\n', '--location', 'main_bar')
    assertRefused(result, /missing column quantity; found pos_item_id, name, qty, unit_price, sold_at \(separated by semicolons\)/)
  })

  test('a file without a location column needs --location', async () => {
    const result = await importFile('pos_item_id\tname\tquantity\tunit_price\tsold_at\nH2\tBeer\t1\t5\t2026-03-01T18:00:00Z\n')
    assertRefused(result, /missing column location \(or give --location\); found .* \(separated by tabs\)/)
  })

  test('an empty file and a column named twice are refused', async () => {
    assertRefused(await importFile('', '--location', 'main_bar'), /is empty: its first line must name the columns/)
    assertRefused(await importFile('pos_item_id,name,name,quantity,unit_price,sold_at\n', '--location', 'main_bar'), /the header names name more than once/)
  })

  test('an unknown connection is refused before the lines are read', async () => {
    const file = join(dataDir, 'unknown-connection.csv')
    writeFileSync(file, `${HEADER}\nU1,H3,Beer,1,5,2026-03-01T18:00:00Z\n`)
    const result = await runCli(['sales', 'import', file, '--connection', 'pos_nope', '--location', 'main_bar'], env)
    assertRefused(result, /no POS connection pos_nope; --connection takes an id/)
  })
})

test('the whole file is validated first: every invalid line is named by its line number and nothing is imported', async () => {
  const good = ['G1,Good one,2,6,2026-03-01T18:00:00Z,', 'G2,Good two,1.5,6,2026-03-01 18:05,patio', 'G3,"Good, three\nwith a newline",1,6,2026-03-01T18:10:00+01:00,']
  const lines = [
    'pos_item_id,name,quantity,unit_price,sold_at,location',
    good[0], // line 2
    'B1,Bad,two,6,2026-03-01T18:00:00Z,', // 3
    good[1], // 4
    good[2], // 5-6
    'B2,Bad,1,6,03/01/2026 18:30,', // 7
    'B3,Bad,1,6,2026-02-30T18:00:00Z,', // 8
    'B4,Bad,1,6,2099-01-01T00:00:00Z,', // 9
    'B5,Bad,1,6,2026-03-01T18:00:00Z,cellar', // 10
    'B6,Bad,0.0001,6,2026-03-01T18:00:00Z,', // 11
    'B7,Bad,1,6', // 12
    'B8,Bad,1,-3,2026-03-01T18:00:00Z,', // 13
    'B9,Bad\u0000,1,6,2026-03-01T18:00:00Z,', // 14
  ]
  const refused = await importFile(lines.join('\n'), '--location', 'main_bar')
  assertRefused(refused, /9 lines are invalid; nothing was imported/)
  for (const problem of [
    'line 3: quantity must be a number like 2 or 0.5, found "two"',
    'line 7: sold_at "03/01/2026 18:30" is not a date and time; write 2026-03-01T18:30:00Z',
    'line 8: sold_at "2026-02-30T18:00:00Z" is not a date that exists',
    'line 9: sold_at is in the future, found "2099-01-01T00:00:00Z"',
    'line 10: location cellar does not exist; the locations are main_bar, patio',
    'line 11: quantity must be greater than 0 with at most 3 decimals, found "0.0001"',
    'line 12: 4 fields where the header has 6',
    'line 13: unit_price must be >= 0, found "-3"',
    'line 14: name contains a NUL character',
  ]) {
    assert.ok(refused.stderr.includes(problem), `${problem}\nin:\n${refused.stderr}`)
  }
  const imported = await importFile([lines[0], ...good].join('\n'), '--location', 'main_bar', '--json')
  assert.equal(imported.code, 0, imported.stderr)
  const report = JSON.parse(imported.stdout)
  assert.deepEqual([report.imported, report.duplicates], [3, 0], 'none of the good lines was saved by the refused run')
})

test('lines without line_id get ids from their content: a re-run, or a later export repeating them, counts each sale once', async () => {
  const header = 'pos_item_id,name,quantity,unit_price,sold_at,location'
  // Two identical lines are two sales; patio is in New York (UTC-5 on 1 March 2026).
  // 01:30 on 1 November happens twice there (the earlier is meant); 02:30 on 8 March never (read as 03:30 EDT).
  const first = [
    header,
    'D1,Lager,1,5,2026-03-01T20:00:00Z,',
    'D1,Lager,1,5,2026-03-01T20:00:00Z,',
    'D2,Stout,1,6,2026-03-01 18:30,patio',
    'D4,Porter,1,7,2026-11-01 01:30,patio',
    'D5,Porter,1,7,2026-03-08 02:30,patio',
  ]
  const counts = async (content: string) => {
    const result = await importFile(content, '--location', 'main_bar', '--json')
    assert.equal(result.code, 0, result.stderr)
    const report = JSON.parse(result.stdout)
    return [report.imported, report.duplicates]
  }
  assert.deepEqual(await counts(first.join('\n')), [5, 0])
  assert.deepEqual(await counts(first.join('\n')), [0, 5], 'a re-run imports nothing')
  // The same sales from another export: semicolons, a BOM, CRLF, the patio time written with its zone,
  // main_bar named in the column; plus a third Lager and a new line.
  const later = [
    header,
    'D1,Lager,1,5,2026-03-01T20:00:00.000Z,main_bar',
    'D1,Lager,1,5,2026-03-01 20:00Z,',
    'D2,Stout,1,6,2026-03-01T23:30:00Z,patio',
    'D1,Lager,1,5,2026-03-01T15:00:00-05:00,',
    'D3,Cider,2,4,2026-03-01T18:45,patio',
    'D4,Porter,1,7,2026-11-01T05:30:00Z,patio',
    'D5,Porter,1,7,2026-03-08T07:30:00Z,patio',
  ]
  assert.deepEqual(await counts(`\uFEFF${later.join('\r\n').replaceAll(',', ';')}`), [2, 5])
})

test('the location column is honoured; --location fills only empty cells', async () => {
  const header = 'pos_item_id,name,quantity,unit_price,sold_at,location'
  const filled = await importFile(`${header}\nE1,Wine,1,9,2026-03-02T20:00:00Z,patio\n`, '--location', 'nowhere')
  assert.equal(filled.code, 0, filled.stderr)
  assert.match(filled.stdout, /: lines 1, imported 1, duplicates 0, unmapped 1\n {2}lines 2-2: imp_\w+\n$/)
  const empty = await importFile(`${header}\nE2,Wine,1,9,2026-03-02T20:00:00Z,\n`, '--location', 'nowhere')
  assertRefused(empty, /line 2: location nowhere does not exist/)
})

test('a batch that fails reports the lines saved before it; the same command sends the same line ids again', async () => {
  const standIn = tempDataDir()
  const release = lockDataDir(standIn.dir)
  // A stand-in server whose database fails on the second batch of the first run.
  const batches: string[][] = []
  const channel = await startAdminChannel(adminSocketPath(standIn.dir), {
    'sales.locations': async () => [{ id: 'main_bar', timezone: 'UTC' }],
    'sales.import': async (args) => {
      const sales = args.sales as { line_id: string }[]
      batches.push(sales.map((sale) => sale.line_id))
      if (batches.length === 2) throw new Error('the database went away')
      return { import_id: `imp_${batches.length}`, imported: sales.length, duplicates: 0, unmapped: sales.length }
    },
  })
  try {
    const rows = Array.from({ length: 4_100 }, (_, index) => `F${index % 3},Item,1,5,2026-03-03T12:00:00Z`)
    const file = join(standIn.dir, 'sales.csv')
    writeFileSync(file, ['pos_item_id,name,quantity,unit_price,sold_at', ...rows].join('\n'))
    const args = ['sales', 'import', file, '--connection', 'pos_any', '--location', 'main_bar', '--json']
    const failed = await runCli(args, { BARSTOCK_DATA_DIR: standIn.dir })
    assert.equal(failed.code, 1)
    assert.match(failed.stderr, /lines 2002-4001 were not imported: the database went away\. Lines 2-2001 are saved; run the same command again/)
    assert.doesNotMatch(failed.stderr, /^\s+at /m)
    const report = JSON.parse(failed.stdout)
    assert.equal(report.complete, false)
    assert.deepEqual(report.batches, [{ first_line: 2, last_line: 2001, import_id: 'imp_1', imported: 2000, duplicates: 0, unmapped: 2000 }])

    const rerun = await runCli(args, { BARSTOCK_DATA_DIR: standIn.dir })
    assert.equal(rerun.code, 0, rerun.stderr)
    assert.equal(JSON.parse(rerun.stdout).complete, true)
    assert.equal(batches.length, 5)
    assert.deepEqual(batches[2], batches[0], 'the re-run sends the saved lines with the same ids')
    assert.deepEqual(batches[3], batches[1])
    assert.equal(new Set(batches.slice(2).flat()).size, 4_100, 'identical lines get distinct ids')
  } finally {
    await channel.close()
    release()
    standIn.cleanup()
  }
})
