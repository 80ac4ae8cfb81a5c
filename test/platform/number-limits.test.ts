import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createTestContext, json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createDistributor } from '../ordering/fixtures.js'

/**
 * Numbers past what the columns hold are refused at the door (400 invalid_parameter naming the limit),
 * never a database overflow answered 500; and every numeric input of the API documents its range.
 */

let ctx: TestContext
let document: any
before(async () => {
  ctx = await createTestContext()
  document = json(await ctx.request('GET', '/openapi.json', { key: null }))
})
after(() => ctx.close())

function resolve(schema: any): any {
  if (schema?.$ref) return resolve(document.components.schemas[schema.$ref.split('/').pop()])
  return schema
}

/** Every numeric property in a schema, with its JSON path. */
function numericFields(schema: any, path: string, found: { path: string; schema: any }[] = []): { path: string; schema: any }[] {
  const resolved = resolve(schema)
  if (!resolved) return found
  for (const branch of [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])]) numericFields(branch, path, found)
  const types = [resolved.type].flat()
  if (types.includes('number') || types.includes('integer')) found.push({ path, schema: resolved })
  for (const [name, property] of Object.entries(resolved.properties ?? {})) numericFields(property, `${path}.${name}`, found)
  if (resolved.items) numericFields(resolved.items, `${path}[]`, found)
  return found
}

test('every numeric field of every request body and query documents both ends of its range', () => {
  const unbounded: string[] = []
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
    for (const [method, operation] of Object.entries(methods)) {
      const fields = [
        ...numericFields(operation.requestBody?.content?.['application/json']?.schema, 'body'),
        ...(operation.parameters ?? []).flatMap((parameter: any) => numericFields(parameter.schema, `${parameter.in}.${parameter.name}`)),
      ]
      for (const field of fields) {
        // A lower end the domain checks itself (invalid_quantity) is documented as an x- extension.
        const low = field.schema.minimum ?? field.schema.exclusiveMinimum ?? field.schema['x-minimum'] ?? field.schema['x-exclusive-minimum']
        const high = field.schema.maximum ?? field.schema.exclusiveMaximum
        if (low === undefined || high === undefined) unbounded.push(`${method.toUpperCase()} ${path} ${field.path}`)
      }
    }
  }
  assert.deepEqual(unbounded, [])
})

const HUGE_INPUTS: { label: string; method: 'POST' | 'PUT'; url: () => Promise<string> | string; body: () => Promise<object> | object; parameter: string }[] = [
  {
    label: 'an item of 1e300 bottles',
    method: 'POST',
    url: '/v1/inventory/items',
    body: { name: 'Huge', sku: 'HUGE-1', category: 'spirits', quantity: 1e300, unit: 'bottle', location: 'main_bar', reorder_point: 1, cost_per_unit: 1 },
    parameter: 'quantity',
  },
  // The literal a client would send, beyond a double's precision on purpose.
  /* eslint-disable no-loss-of-precision */
  {
    label: 'a batch change of 99999999999999999999',
    method: 'POST',
    url: '/v1/inventory/batch',
    body: async () => ({ updates: [{ item_id: (await createItem(ctx, caller)).id, change: 99999999999999999999 }] }),
    parameter: 'updates/0/change',
  },
  /* eslint-enable no-loss-of-precision */
  {
    label: 'a distributor minimum of 1e20',
    method: 'POST',
    url: '/v1/distributors',
    body: { name: 'Big Wholesale', distributor_code: 'BIG-1', region: 'northeast', contact_email: 'big@wholesale.example', min_order_amount: 1e20, lead_time_days: 2 },
    parameter: 'min_order_amount',
  },
  {
    label: 'a sale of 1e15 units',
    method: 'POST',
    url: '/v1/sales',
    body: { connection_id: 'pos_missing', sales: [{ location: 'main_bar', pos_item_id: 'p1', name: 'Shot', quantity: 1e15, unit_price: 5, sold_at: '2026-11-01T20:00:00Z' }] },
    parameter: 'sales/0/quantity',
  },
].map((entry) => ({ ...entry, url: typeof entry.url === 'string' ? () => entry.url : entry.url, body: typeof entry.body === 'function' ? entry.body : () => entry.body })) as never

let caller: Awaited<ReturnType<TestContext['newCaller']>>

for (const input of HUGE_INPUTS) {
  test(`${input.label} is 400 invalid_parameter naming the limit, and nothing is written`, async () => {
    caller = await ctx.newCaller()
    const body = await input.body()
    const itemsBefore = json(await ctx.request('GET', '/v1/inventory/items', { key: caller.key })).pagination.total
    const distributorsBefore = json(await ctx.request('GET', '/v1/distributors', { key: caller.key })).pagination.total
    const response = await ctx.request(input.method, await input.url(), { key: caller.key, body })
    assert.equal(response.statusCode, 400, response.body)
    const error = json(response).error
    assert.equal(error.code, 'invalid_parameter')
    assert.match(error.message, /1000000000|1,000,000,000/)
    assert.match(String(error.details.parameter), new RegExp(input.parameter.replace(/\//g, '.').replace(/\.(\d+)/g, '\\W*$1\\W*')))
    assert.equal(json(await ctx.request('GET', '/v1/inventory/items', { key: caller.key })).pagination.total, itemsBefore)
    assert.equal(json(await ctx.request('GET', '/v1/distributors', { key: caller.key })).pagination.total, distributorsBefore)
  })
}

test('?page=1e20 on a list is 400 invalid_parameter, not a database error', async () => {
  caller = await ctx.newCaller()
  const response = await ctx.request('GET', '/v1/inventory/items', { key: caller.key, query: { page: '1e20' } })
  assert.equal(response.statusCode, 400, response.body)
  assert.equal(json(response).error.details.parameter, 'page')
})

test('a distributor of the documented maximum is accepted', async () => {
  caller = await ctx.newCaller()
  const distributor = await createDistributor(ctx, caller, { min_order_amount: 1_000_000_000 })
  assert.equal(distributor.min_order_amount, 1_000_000_000)
})
