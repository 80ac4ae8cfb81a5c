import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { validate } from '@readme/openapi-parser'
import { errorCatalogue } from '../../src/platform/errors.js'
import { projectPath } from '../../src/platform/paths.js'
import { createTestContext, json, type TestContext } from '../helpers/context.js'

let ctx: TestContext
let document: any
before(async () => {
  ctx = await createTestContext()
  document = json(await ctx.request('GET', '/openapi.json', { key: null }))
})
after(() => ctx.close())

test('/openapi.json is a valid OpenAPI 3.1 document', async () => {
  assert.equal(document.openapi, '3.1.0')
  const result = await validate(structuredClone(document))
  assert.equal(result.valid, true, JSON.stringify((result as { errors?: unknown }).errors, null, 2))
})

const PUBLIC_OPERATIONS = new Set(['POST /v1/pos/push/{connection_id}'])

test('every /v1 route is documented with its success and error responses and the API key', () => {
  const operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  )
  const v1 = operations.filter((entry) => entry.path.startsWith('/v1/'))
  assert.ok(v1.length >= 13, `found ${v1.length} operations`)
  for (const { path, method, operation } of v1) {
    const statuses = Object.keys(operation.responses)
    const label = `${method.toUpperCase()} ${path}`
    assert.ok(statuses.some((status) => status.startsWith('2')), `${label} documents a success`)
    for (const status of ['401', '429', '500']) assert.ok(statuses.includes(status), `${label} documents ${status}`)
    // Vendor pushes are public: the vendor signs them instead of sending a key.
    assert.deepEqual(operation.security, PUBLIC_OPERATIONS.has(label) ? [] : [{ ApiKey: [] }], label)
    assert.ok(operation.summary, `${label} has a summary`)
  }
  const create = document.paths['/v1/inventory/items'].post
  assert.match(create.responses['409'].description, /duplicate_sku/)
  assert.match(create.responses['404'].description, /location_not_found/)
  assert.match(create.responses['400'].description, /invalid_quantity/)
  assert.match(create.responses['403'].description, /insufficient_permissions/)
})

test('every error code of the catalogue is documented in docs/errors.md with its status', () => {
  const doc = readFileSync(projectPath('docs', 'errors.md'), 'utf8')
  for (const [code, definition] of errorCatalogue()) {
    const row = doc.split("\n").find((line) => line.startsWith(`| \`${code}\``))
    assert.ok(row, `docs/errors.md lists ${code}`)
    assert.ok(row.includes(String(definition.statusCode)), `docs/errors.md gives ${code} its status ${definition.statusCode}`)
  }
})

function sourcesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) return sourcesUnder(path)
    return entry.name.endsWith('.ts') ? [readFileSync(path, 'utf8')] : []
  })
}

test('every error code of the catalogue is provoked by some test', () => {
  const tests = sourcesUnder(projectPath('test')).join('\n')
  // A code only the server itself can produce (an unexpected failure) is provoked by a crashing test route.
  for (const code of errorCatalogue().keys()) {
    assert.ok(tests.includes(`'${code}'`), `some test asserts the code ${code}`)
  }
})
