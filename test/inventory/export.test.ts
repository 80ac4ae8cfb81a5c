import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parse } from 'csv-parse/sync'
import { createTestContext, json, type Caller, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { EXPORT_BATCH_SIZE } from '../../src/platform/db/keyset-batches.js'

let ctx: TestContext
/** An account with more items than a JSON page (100) and than an export batch. */
let many: Caller
const MANY_ITEMS = EXPORT_BATCH_SIZE + 7

before(async () => {
  ctx = await createTestContext()
  many = await ctx.newCaller()
  await ctx.request('POST', '/v1/locations', { key: many.key, body: { id: 'patio', name: 'Patio bar' } })
  for (let index = 0; index < MANY_ITEMS; index++) {
    // Few distinct quantities and names: ties on the sort field cross batch boundaries.
    await createItem(ctx, many, {
      name: `Bottle ${index % 5}`,
      sku: `MANY-${index}`,
      quantity: index % 7,
      category: index % 3 === 0 ? 'beer' : 'spirits',
      location: index % 4 === 0 ? 'patio' : 'main_bar',
    })
  }
})
after(() => ctx.close())

async function get(caller: Caller, url: string, headers: Record<string, string> = {}) {
  return ctx.request('GET', url, { key: caller.key, headers })
}

/** The records of a CSV answer, header first, as an RFC 4180 reader sees them. */
function records(body: string): string[][] {
  return parse(body, { relax_column_count: false }) as string[][]
}

/** Every row of a JSON list, page after page, as `field` values. */
async function allPages(caller: Caller, url: string, field: string): Promise<string[]> {
  const values: string[] = []
  for (let page = 1; ; page++) {
    const body = json(await get(caller, `${url}${url.includes('?') ? '&' : '?'}per_page=100&page=${page}`))
    values.push(...body.data.map((row: Record<string, unknown>) => String(row[field])))
    if (page >= body.pagination.total_pages) return values
  }
}

function column(rows: string[][], name: string): string[] {
  const index = rows[0]!.indexOf(name)
  assert.ok(index >= 0, `column ${name} in ${rows[0]}`)
  return rows.slice(1).map((row) => row[index]!)
}

describe('CSV export of GET /v1/inventory/items', () => {
  test('answers text/csv with a header row of the item fields and every row, not one page', async () => {
    const response = await get(many, '/v1/inventory/items?format=csv')
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(response.headers['content-type'], 'text/csv; charset=utf-8')
    assert.equal(response.headers['content-disposition'], 'attachment; filename="inventory-items.csv"')
    // Streamed: the length is not known when the headers go out.
    assert.equal(response.headers['content-length'], undefined)
    const rows = records(response.body)
    assert.deepEqual(rows[0], [
      'id',
      'name',
      'sku',
      'category',
      'quantity',
      'unit',
      'size_ml',
      'case_size',
      'location',
      'reorder_point',
      'cost_per_unit',
      'full_weight_g',
      'empty_weight_g',
      'par_level',
      'created_at',
      'last_updated',
    ])
    assert.equal(rows.length, MANY_ITEMS + 1)
    assert.ok(response.body.endsWith('\r\n') && response.body.split('\r\n').length === MANY_ITEMS + 2, 'CRLF after every record')
    const jsonItem = json(await get(many, `/v1/inventory/items?sku=MANY-5`)).data[0]
    const csvItem = rows.find((row) => row[2] === 'MANY-5')!
    assert.deepEqual(
      csvItem,
      rows[0].map((field) => (jsonItem[field] === null ? '' : String(jsonItem[field]))),
    )
  })

  test('keeps the order of the JSON pages for every sort, across batches and ties', async () => {
    for (const query of ['', '?sort=quantity&order=desc', '?sort=created_at', '?sort=last_updated&order=desc', '?sort=category']) {
      const csv = column(records((await get(many, `/v1/inventory/items${query}${query ? '&' : '?'}format=csv`)).body), 'id')
      assert.deepEqual(csv, await allPages(many, `/v1/inventory/items${query}`, 'id'), query)
    }
  })

  test('honours the filters of the JSON list', async () => {
    for (const query of ['location=patio', 'category=beer', 'low_stock=true', 'q=bottle 3', 'sku=MANY-9', 'location=patio&category=beer&low_stock=true']) {
      const csv = column(records((await get(many, `/v1/inventory/items?${query}&format=csv`)).body), 'id')
      const expected = await allPages(many, `/v1/inventory/items?${query}`, 'id')
      assert.ok(expected.length > 0 && expected.length < MANY_ITEMS, query)
      assert.deepEqual(csv, expected, query)
    }
  })

  test('is chosen by Accept: text/csv, on the short path too, unless application/json weighs more or format says json', async () => {
    const caller = await ctx.newCaller()
    await createItem(ctx, caller)
    const byAccept = await get(caller, '/v1/inventory', { accept: 'text/csv' })
    assert.equal(byAccept.headers['content-type'], 'text/csv; charset=utf-8')
    assert.equal(records(byAccept.body).length, 2)
    for (const [accept, url] of [
      ['application/json, text/csv;q=0.5', '/v1/inventory/items'],
      ['*/*', '/v1/inventory/items'],
      ['text/csv', '/v1/inventory/items?format=json'],
    ] as const) {
      const response = await get(caller, url, { accept })
      assert.match(String(response.headers['content-type']), /^application\/json/, accept)
      assert.equal(json(response).data.length, 1)
    }
  })

  test('quotes commas, quotes and line breaks per RFC 4180 and defuses formulas', async () => {
    const caller = await ctx.newCaller()
    const names = ['Tito\'s "Handmade", 1L', 'Two\r\nlines', '=HYPERLINK("http://evil.example","x")', '+SUM(1,2)', '-2+3', '@cmd', '\tTabbed']
    for (const [index, name] of names.entries()) await createItem(ctx, caller, { name, sku: `Q-${index}`, quantity: index })
    const body = (await get(caller, '/v1/inventory/items?format=csv&sort=sku')).body
    assert.ok(body.includes('"Tito\'s ""Handmade"", 1L"'), body)
    assert.ok(body.includes('"Two\r\nlines"'))
    assert.ok(body.includes(`"'=HYPERLINK(""http://evil.example"",""x"")"`))
    assert.deepEqual(column(records(body), 'name'), [
      'Tito\'s "Handmade", 1L',
      'Two\r\nlines',
      '\'=HYPERLINK("http://evil.example","x")',
      "'+SUM(1,2)",
      "'-2+3",
      "'@cmd",
      "'\tTabbed",
    ])
  })

  test('errors stay JSON: an unknown location filter, an unknown format', async () => {
    const unknownLocation = await get(many, '/v1/inventory/items?location=rooftop&format=csv', { accept: 'text/csv' })
    assert.equal(unknownLocation.statusCode, 404)
    assert.match(String(unknownLocation.headers['content-type']), /^application\/json/)
    assert.equal(json(unknownLocation).error.code, 'location_not_found')
    const badFormat = await get(many, '/v1/inventory/items?format=xlsx', { accept: 'text/csv' })
    assert.equal(badFormat.statusCode, 400)
    assert.equal(json(badFormat).error.code, 'invalid_parameter')
    assert.match(json(badFormat).error.message, /format must be one of json, csv/)
  })
})

describe('CSV export of an item’s movements', () => {
  test('lists the whole ledger newest first, as the JSON pages do, with negative changes as plain numbers', async () => {
    const caller = await ctx.newCaller()
    const item = await createItem(ctx, caller, { quantity: 5000 })
    // One batch of 1,000 changes: more ledger rows than a JSON page and than an export batch.
    const updates = Array.from({ length: 1000 }, (_, index) => ({ item_id: item.id, change: index % 2 === 0 ? -2 : 1 }))
    const batch = await ctx.request('POST', '/v1/inventory/batch', { key: caller.key, body: { updates } })
    assert.equal(batch.statusCode, 201, batch.body)
    const response = await get(caller, `/v1/inventory/items/${item.id}/movements`, { accept: 'text/csv' })
    assert.equal(response.headers['content-type'], 'text/csv; charset=utf-8')
    const rows = records(response.body)
    assert.deepEqual(rows[0], ['kind', 'change', 'quantity_before', 'quantity_after', 'occurred_at', 'recorded_at', 'location', 'unit_cost', 'actor', 'reference_id'])
    assert.equal(rows.length, 1002)
    assert.deepEqual(column(rows, 'quantity_after'), await allPages(caller, `/v1/inventory/items/${item.id}/movements`, 'quantity_after'))
    assert.deepEqual(new Set(column(rows, 'change')), new Set(['-2', '1', '5000']))
  })

  test('an unknown item is 404 item_not_found in JSON', async () => {
    const response = await get(many, '/v1/inventory/items/item_nope/movements?format=csv')
    assert.equal(response.statusCode, 404)
    assert.match(String(response.headers['content-type']), /^application\/json/)
    assert.equal(json(response).error.code, 'item_not_found')
  })
})

describe('CSV export of counts', () => {
  test('lists counts with the location filter, and a count’s lines with the count’s fields on each', async () => {
    const caller = await ctx.newCaller()
    await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'patio', name: 'Patio bar' } })
    const first = await createItem(ctx, caller, { quantity: 10 })
    const second = await createItem(ctx, caller, { quantity: 4 })
    const patioItem = await createItem(ctx, caller, { quantity: 1, location: 'patio' })
    const count = json(
      await ctx.request('POST', '/v1/inventory/count', {
        key: caller.key,
        body: {
          location: 'main_bar',
          counted_by: '=cmd|calc',
          items: [
            { item_id: first.id, quantity: 8, notes: 'broken, "one" bottle' },
            { item_id: second.id, quantity: 4 },
          ],
        },
      }),
    ).data
    await ctx.request('POST', '/v1/inventory/count', {
      key: caller.key,
      body: { location: 'patio', counted_by: 'sam', items: [{ item_id: patioItem.id, quantity: 1 }] },
    })
    const counts = records((await get(caller, '/v1/inventory/counts?location=main_bar&format=csv')).body)
    assert.deepEqual(counts[0], ['count_id', 'location', 'counted_by', 'counted_at', 'items_updated', 'created_at'])
    assert.deepEqual(
      counts.slice(1).map((row) => [row[0], row[2]]),
      [[count.count_id, "'=cmd|calc"]],
    )
    assert.equal(records((await get(caller, '/v1/inventory/counts?format=csv')).body).length, 3)

    const response = await get(caller, `/v1/inventory/counts/${count.count_id}`, { accept: 'text/csv' })
    assert.equal(response.headers['content-disposition'], `attachment; filename="${count.count_id}.csv"`)
    const lines = records(response.body)
    assert.deepEqual(lines[0], [
      'count_id',
      'location',
      'counted_by',
      'counted_at',
      'items_updated',
      'created_at',
      'item_id',
      'expected',
      'actual',
      'variance',
      'notes',
      'weights_g',
    ])
    const byItem = new Map(lines.slice(1).map((row) => [row[6], row]))
    assert.deepEqual(byItem.get(first.id)!.slice(7), ['10', '8', '-2', 'broken, "one" bottle', ''])
    assert.deepEqual(byItem.get(second.id)!.slice(7), ['4', '4', '0', '', ''])
    assert.equal(byItem.get(second.id)![0], count.count_id)
  })

  test('an unknown count is 404 count_not_found and an unknown location 404 location_not_found, in JSON', async () => {
    const count = await get(many, '/v1/inventory/counts/cnt_nope?format=csv')
    assert.equal(count.statusCode, 404)
    assert.equal(json(count).error.code, 'count_not_found')
    const location = await get(many, '/v1/inventory/counts?location=rooftop', { accept: 'text/csv' })
    assert.equal(location.statusCode, 404)
    assert.equal(json(location).error.code, 'location_not_found')
  })
})

test('the OpenAPI document gives the exporting operations a text/csv response and the format parameter', async () => {
  const document = json(await ctx.request('GET', '/openapi.json', { key: null }))
  for (const path of ['/v1/inventory/items', '/v1/inventory', '/v1/inventory/items/{id}/movements', '/v1/inventory/counts', '/v1/inventory/counts/{count_id}']) {
    const operation = document.paths[path].get
    assert.ok(operation.responses['200'].content['text/csv'], path)
    assert.ok(operation.responses['200'].content['application/json'], path)
    assert.ok(
      operation.parameters.some((parameter: { name: string }) => parameter.name === 'format'),
      path,
    )
  }
})
