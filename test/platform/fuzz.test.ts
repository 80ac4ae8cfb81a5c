import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { errorCatalogue } from '../../src/platform/errors.js'
import { type Caller, json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { defectiveRequest, type FuzzRequest, type KnownValues, type Operation, operationsOf } from '../helpers/openapi-fuzz.js'
import { createPosTestContext, SQUARE_CREDENTIALS } from '../pos/pos-helpers.js'

/**
 * Every operation of /openapi.json, sent requests that are wrong in one way (see openapi-fuzz.ts): none
 * may answer 5xx, every refusal is the contract's error shape with a catalogued code, and a refused
 * write changes nothing. Seeded: a failure names its seed; FUZZ_SEED=<seed> replays the run, FUZZ_RUNS
 * sets the requests per operation.
 */

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31)
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 10)

let ctx: TestContext
let caller: Caller
let operations: Operation[]
/** Seeded resources by path parameter name, per path template prefix. */
const ids: Record<string, KnownValues> = {}
let known: KnownValues

async function created(response: LightMyRequestResponse): Promise<{ id: string; [field: string]: unknown }> {
  assert.ok(response.statusCode === 201 || response.statusCode === 200, `seeding failed: ${response.statusCode} ${response.body}`)
  return json(response).data
}

async function post(url: string, body?: unknown) {
  return created(await ctx.request('POST', url, { key: caller.key, ...(body === undefined ? {} : { body }) }))
}

/** One of each resource, so that defective bodies also reach routes with ids that exist. */
async function seed(): Promise<void> {
  const location = await post('/v1/locations', { id: 'fuzz_bar', name: 'Fuzz Bar' })
  const item = await createItem(ctx, caller, { location: location.id })
  const distributor = await post('/v1/distributors', { name: 'Fuzz Wholesale', distributor_code: 'FUZZ', region: 'north', contact_email: 'orders@wholesaler.example' })
  const order = await post('/v1/orders', { distributor_id: distributor.id, location: location.id, items: [{ inventory_item_id: item.id, quantity: 2, unit: 'bottle' }] })
  const recipe = await post('/v1/recipes', { name: 'Fuzz Sour', category: 'cocktail', selling_price: 9, ingredients: [{ inventory_item_id: item.id, quantity: 1.5, unit: 'oz' }] })
  const count = await post('/v1/inventory/count', { location: location.id, counted_by: 'fuzz', items: [{ item_id: item.id, quantity: 9 }] })
  const connection = await post('/v1/pos/connections', { pos_type: 'square', name: 'Fuzz Square', credentials: SQUARE_CREDENTIALS, initial_sync: 'incremental' })
  const mapping = await post(`/v1/pos/connections/${connection.id}/mappings`, {
    pos_item_id: 'fuzz-pos-item',
    pos_name: 'Fuzz Pour',
    inventory_item_id: item.id,
    conversion_factor: 1.5,
  })
  // The create asked for a first sync: the fuzzed sync routes use its id.
  const sync = { sync_id: connection.first_sync_id }
  const webhook = await post('/v1/webhooks', { url: 'https://hooks.example.com/fuzz', events: ['*'] })
  Object.assign(ids, {
    '/v1/locations': { id: location.id },
    '/v1/inventory/items': { id: item.id },
    '/v1/inventory/counts': { count_id: String(count.count_id ?? count.id) },
    '/v1/distributors': { id: distributor.id },
    '/v1/orders': { id: order.id },
    '/v1/recipes': { id: recipe.id },
    '/v1/pos/connections': { id: connection.id, pos_item_id: String(mapping.pos_item_id) },
    '/v1/pos/syncs': { sync_id: String(sync.sync_id) },
    '/v1/pos/push': { connection_id: connection.id },
    '/v1/webhooks': { id: webhook.id },
  })
  known = {
    location: location.id,
    inventory_item_id: item.id,
    item_id: item.id,
    distributor_id: distributor.id,
    recipe_id: recipe.id,
    connection_id: connection.id,
    pos_item_id: 'fuzz-pos-item-2',
    pos_type: 'square',
    unit: 'bottle',
    url: 'https://hooks.example.com/fuzz-2',
  }
}

function idsFor(operation: Operation): KnownValues {
  const prefix = Object.keys(ids).find((candidate) => operation.path.startsWith(`${candidate}/`))
  return prefix ? ids[prefix]! : {}
}

/** The lists a write to each area of the API could change. */
function collectionsOf(path: string): string[] {
  const area = path.split('/')[2]
  const lists: Record<string, string[]> = {
    locations: ['/v1/locations'],
    inventory: ['/v1/inventory/items', '/v1/inventory/counts'],
    settings: ['/v1/settings'],
    recipes: ['/v1/recipes'],
    pos: ['/v1/pos/connections', `/v1/pos/connections/${ids['/v1/pos/connections']!.id}/mappings`, '/v1/pos/syncs'],
    sales: ['/v1/inventory/items'],
    webhooks: ['/v1/webhooks'],
    distributors: ['/v1/distributors', `/v1/distributors/${ids['/v1/distributors']!.id}/catalog`],
    orders: ['/v1/orders'],
  }
  return lists[area!] ?? []
}

/**
 * What a refused write must leave as it was: the lists of its area (without their per-response meta) and
 * the account's outbox, where every change leaves an event.
 */
async function snapshot(path: string): Promise<unknown[]> {
  const lists = await Promise.all(
    collectionsOf(path).map(async (list) => {
      const response = await ctx.request('GET', list, { key: caller.key, query: list.includes('settings') ? undefined : { per_page: '100' } })
      const { meta: _meta, ...rest } = json(response)
      return rest
    }),
  )
  const events = await ctx.database.db
    .selectFrom('outbox_events')
    .select((eb) => eb.fn.countAll<string>().as('events'))
    .where('account_id', '=', caller.tenant.accountId)
    .executeTakeFirstOrThrow()
  return [...lists, Number(events.events)]
}

const catalogue = errorCatalogue()

/** The contract's error shape: `{error: {code, message, details?}, meta?}`, with a code of the catalogue. */
function assertErrorShape(response: LightMyRequestResponse): void {
  assert.match(String(response.headers['content-type']), /^application\/json/)
  const body = json(response)
  assert.deepEqual(
    Object.keys(body).filter((key) => key !== 'error' && key !== 'meta'),
    [],
  )
  const { error } = body
  assert.deepEqual(
    Object.keys(error).filter((key) => !['code', 'message', 'details'].includes(key)),
    [],
  )
  assert.equal(typeof error.message, 'string')
  assert.ok(catalogue.has(error.code), `${error.code} is in the error catalogue`)
  assert.equal(catalogue.get(error.code)!.statusCode, response.statusCode, `${error.code} answers its own status`)
  if ('details' in error) assert.ok(error.details !== null && typeof error.details === 'object' && !Array.isArray(error.details), 'details is an object')
}

async function check(request: FuzzRequest): Promise<void> {
  const write = request.method !== 'GET'
  const before = write ? await snapshot(request.url) : undefined
  const response = await ctx.app.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: { 'x-api-key': caller.key, ...request.headers },
    ...(request.payload === undefined ? {} : { payload: request.payload }),
  })
  const context = `seed ${SEED}: ${request.defect}\n→ ${response.statusCode} ${response.body.slice(0, 500)}`
  assert.ok(response.statusCode < 500, context)
  if (response.statusCode < 400) return
  try {
    assertErrorShape(response)
  } catch (error) {
    throw new Error(`${context}\n${(error as Error).message}`, { cause: error })
  }
  if (write) assert.deepEqual(await snapshot(request.url), before, `a refused write changed something. ${context}`)
}

before(async () => {
  ctx = await createPosTestContext({
    // Webhook hosts resolve to a public address without asking DNS.
    resolver: async () => [{ address: '93.184.216.34', family: 4 }],
  })
  caller = await ctx.newCaller({ environment: 'sandbox' })
  operations = operationsOf(json(await ctx.request('GET', '/openapi.json', { key: null })))
  await seed()
})
after(() => ctx?.close())

test(`every operation of the OpenAPI document refuses defective requests in the error shape, changing nothing (seed ${SEED})`, async (t) => {
  t.diagnostic(`FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS_PER_OPERATION}`)
  assert.ok(operations.length >= 60, `${operations.length} operations`)
  for (const [index, operation] of operations.entries()) {
    await t.test(`${operation.method} ${operation.path}`, async () => {
      // A seed of its own per operation (derived from SEED), so operations do not all draw the same defects.
      await fc.assert(fc.asyncProperty(defectiveRequest(operation, idsFor(operation), known), check), {
        seed: (SEED + index) % 2 ** 31,
        numRuns: RUNS_PER_OPERATION,
        includeErrorInReport: true,
      })
    })
  }
})
