import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { describe, test } from 'node:test'
import { checksClosedBetween } from '../../../src/pos/simulation/bar-data.js'
import { REVEL_PAGE_SIZE, type RevelList, type RevelOrderItem, type RevelProduct } from '../../../src/pos/vendors/revel/revel.client.js'
import { referencedId } from '../../../src/pos/vendors/revel/revel.mapper.js'
import { revelVendor } from '../../../src/pos/vendors/revel/index.js'
import { collectSales, describeAdapterContract, startRecordingSimulator } from './adapter-contract.js'

describeAdapterContract(revelVendor)

const NOW = new Date('2026-11-20T15:00:00.000Z')
const SEED = 5
const HISTORY_DAYS = 30
const AUTH = { 'API-AUTHENTICATION': `${revelVendor.exampleCredentials.api_key}:${revelVendor.exampleCredentials.api_secret}` }

/** A simulator whose every request URL is recorded, to see which calls the adapter made. */
function recordedSimulator() {
  return startRecordingSimulator(revelVendor, { seed: SEED, historyDays: HISTORY_DAYS, now: () => NOW })
}

describe('revel adapter', () => {
  test('follows every page of orders in a window too large for one', async () => {
    const simulator = await recordedSimulator()
    const adapter = revelVendor.createAdapter({ credentials: revelVendor.exampleCredentials, baseUrl: simulator.url })
    const end = new Date('2026-11-18T06:00:00.000Z')
    const start = new Date(end.getTime() - 3 * 86_400_000)
    const lines = await collectSales(adapter.listSales({ start, end }))

    const checks = checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS })
    const orderPages = simulator.requests.filter((url) => url.pathname === '/Order/')
    assert.ok(checks.length > 2 * REVEL_PAGE_SIZE, `${checks.length} orders need several pages`)
    assert.deepEqual(
      orderPages.map((url) => url.searchParams.get('offset')),
      Array.from({ length: Math.ceil(checks.length / REVEL_PAGE_SIZE) }, (_, page) => String(page * REVEL_PAGE_SIZE)),
    )
    assert.ok(orderPages.every((url) => url.searchParams.get('establishment') === '1' && url.searchParams.get('closed') === 'true'))
    const soldLines = checks.flatMap((check) => check.lines).filter((line) => !line.voided && !line.refunded)
    assert.equal(lines.length, soldLines.length)
    assert.ok(lines.every((line) => line.staffName && line.checkId), 'lines name their server and order')
  })

  test('reads a foreign key sent as an id or as a resource URI', () => {
    assert.equal(referencedId(12), '12')
    assert.equal(referencedId('/resources/Product/12/'), '12')
    assert.equal(referencedId(null), null)
  })

  test('sees no products of another establishment', async () => {
    const simulator = await recordedSimulator()
    const credentials = { ...revelVendor.exampleCredentials, establishment_id: '2' }
    const adapter = revelVendor.createAdapter({ credentials, baseUrl: simulator.url })
    assert.deepEqual(await adapter.listProducts(), [])
  })

  test('builds the production host from the subdomain, and the schema refuses a subdomain that is not a host label', () => {
    assert.equal(revelVendor.productionBaseUrl(revelVendor.exampleCredentials), 'https://examplebar.revelup.com/resources')
    const pattern = new RegExp((revelVendor.credentialsSchema.properties.subdomain as { pattern: string }).pattern)
    assert.ok(pattern.test('examplebar'))
    assert.ok(!pattern.test('evil.com/x?'))
    assert.ok(!pattern.test('-bar'))
  })
})

describe('revel pushes', () => {
  const secret = 'webhook-secret'
  const body = Buffer.from(JSON.stringify({ event: 'order.finalized', data: { id: 1 } }))
  const signed = (encoding: 'hex' | 'base64', payload = body) => ({ 'x-revel-signature': createHmac('sha1', secret).update(payload).digest(encoding) })

  test('accepts an order.finalized push signed with HMAC-SHA1, hex or base64', () => {
    assert.deepEqual(revelVendor.parsePush!(signed('hex'), body, secret, 'https://barstock.example/hooks'), { kind: 'orders_changed' })
    assert.deepEqual(revelVendor.parsePush!(signed('base64'), body, secret, 'https://barstock.example/hooks'), { kind: 'orders_changed' })
  })

  test('refuses a push with a wrong, missing or stale signature', () => {
    const tampered = Buffer.from(JSON.stringify({ event: 'order.finalized', data: { id: 2 } }))
    assert.throws(() => revelVendor.parsePush!(signed('hex'), tampered, secret, ''), /signature/)
    assert.throws(() => revelVendor.parsePush!({}, body, secret, ''), /signature/)
    assert.throws(() => revelVendor.parsePush!(signed('hex'), body, 'another-secret', ''), /signature/)
  })
})

describe('revel simulator', () => {
  test('serves Tastypie pages of 20 by default, money as numbers and products as resource URIs', async () => {
    const products = (await (await fetch(`${(await recordedSimulator()).url}/Product/`, { headers: AUTH })).json()) as RevelList<RevelProduct>
    assert.equal(products.objects.length, 20)
    assert.equal(products.meta.total_count, 31)
    assert.match(products.meta.next ?? '', /^\/resources\/Product\/\?.*offset=20/)
    const stella = products.objects.find((product) => product.name === 'Stella Artois Draft Pint')
    assert.equal(stella?.price, 7.5)

    const simulator = await recordedSimulator()
    const orders = (await (
      await fetch(`${simulator.url}/Order/?updated_date__gte=2026-11-14T00:00:00Z&updated_date__lt=2026-11-15T00:00:00Z&limit=1`, { headers: AUTH })
    ).json()) as RevelList<{ id: number }>
    const items = (await (await fetch(`${simulator.url}/OrderItem/?order=${orders.objects[0]!.id}`, { headers: AUTH })).json()) as RevelList<RevelOrderItem>
    assert.ok(items.objects.length > 0)
    assert.match(String(items.objects[0]!.product), /^\/resources\/Product\/\d+\/$/)
    assert.equal(typeof items.objects[0]!.initial_price, 'number')
  })

  test("refuses a bad secret with 401 and Revel's error body", async () => {
    const simulator = await recordedSimulator()
    const response = await fetch(`${simulator.url}/Product/`, { headers: { 'API-AUTHENTICATION': 'key:invalid-secret' } })
    assert.equal(response.status, 401)
    assert.deepEqual(await response.json(), { error: 'Authentication failed' })
  })
})
