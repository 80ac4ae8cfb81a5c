import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { validate } from '@readme/openapi-parser'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { errorCatalogue } from '../../src/platform/errors.js'
import { projectPath } from '../../src/platform/paths.js'
import { signatureHeader } from '../../src/webhooks/signature.js'
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

const PUBLIC_OPERATIONS = new Set(['POST /v1/pos/push/{connection_id}', 'POST /v1/pos/push/apps/{pos_type}'])

test('every /v1 route is documented with its success and error responses and the API key', () => {
  const operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  )
  const v1 = operations.filter((entry) => entry.path.startsWith('/v1/'))
  assert.ok(v1.length >= 13, `found ${v1.length} operations`)
  for (const { path, method, operation } of v1) {
    const statuses = Object.keys(operation.responses)
    const label = `${method.toUpperCase()} ${path}`
    assert.ok(
      statuses.some((status) => status.startsWith('2')),
      `${label} documents a success`,
    )
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
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${code}\``))
    assert.ok(row, `docs/errors.md lists ${code}`)
    assert.ok(row.includes(String(definition.statusCode)), `docs/errors.md gives ${code} its status ${definition.statusCode}`)
  }
})

// That every code of the catalogue is provoked is checked on the answers of a whole run, after all shards:
// test/platform/error-codes-seen.ts, run by `npm test`.

type Node = Record<string, any>

/** The schema with each `#/components/...` reference replaced by what it names. */
function inlined(node: unknown): any {
  if (Array.isArray(node)) return node.map(inlined)
  if (node === null || typeof node !== 'object') return node
  const { $ref, ...rest } = node as Node
  if (typeof $ref === 'string')
    return inlined(
      $ref
        .split('/')
        .slice(1)
        .reduce((at: Node, part) => at[part], document),
    )
  return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inlined(value)]))
}

/** Every property below `schema` that has no description, as `where.path.to.field`. */
function undescribedFields(schema: Node, where: string): string[] {
  const missing: string[] = []
  const visit = (node: Node, path: string) => {
    for (const alternative of node.anyOf ?? node.oneOf ?? []) visit(alternative, path)
    if (node.items) visit(node.items, `${path}[]`)
    for (const [name, property] of Object.entries<Node>(node.properties ?? {})) {
      if (!property.description) missing.push(`${where} ${path}.${name}`)
      visit(property, `${path}.${name}`)
    }
  }
  visit(schema, '')
  return missing
}

const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats.default(ajv)

/** Why `example` does not fit `schema`, or nothing when it does. */
function exampleProblems(schema: Node, example: unknown, where: string): string[] {
  if (example === undefined) return [`${where} has no example`]
  const check = ajv.compile(schema)
  if (check(example)) return []
  return (check.errors ?? []).map((error) => `${where} example ${error.instancePath || '/'} ${error.message}`)
}

function operationGaps(label: string, operation: Node): string[] {
  const gaps: string[] = []
  if (!operation.summary) gaps.push(`${label} has no summary`)
  // The permission line alone does not describe what an operation does.
  if (!operation.description?.replace(/Requires the `[a-z:]+` permission\./, '').trim()) gaps.push(`${label} has no description`)
  for (const parameter of (operation.parameters ?? []).map(inlined)) {
    const name = `${label} parameter ${parameter.in} ${parameter.name}`
    if (!parameter.description && !parameter.schema?.description) gaps.push(`${name} has no description`)
    // An enum or a default is an example too: the reference offers them as the value to send.
    const schema = parameter.schema ?? {}
    if ([parameter.example, schema.examples, schema.example, schema.enum, schema.default].every((value) => value === undefined)) gaps.push(`${name} has no example`)
  }
  for (const [type, media] of Object.entries<Node>(operation.requestBody?.content ?? {})) {
    const schema = inlined(media.schema)
    gaps.push(...undescribedFields(schema, `${label} request`), ...exampleProblems(schema, media.example, `${label} request ${type}`))
  }
  for (const [status, response] of Object.entries<Node>(operation.responses ?? {})) {
    if (!response.description) gaps.push(`${label} ${status} has no description`)
    for (const [type, media] of Object.entries<Node>(response.content ?? {})) {
      if (!type.includes('json')) continue
      const schema = inlined(media.schema)
      gaps.push(...undescribedFields(schema, `${label} ${status}`), ...exampleProblems(schema, media.example, `${label} ${status}`))
    }
  }
  return gaps
}

test('every operation, field and parameter has a description, and every request and answer an example that fits its schema', () => {
  const gaps = Object.entries<Node>(document.paths).flatMap(([path, operations]) =>
    Object.entries<Node>(operations).flatMap(([method, operation]) => operationGaps(`${method.toUpperCase()} ${path}`, operation)),
  )
  for (const [kind, hook] of Object.entries<Node>(document.webhooks)) gaps.push(...operationGaps(`webhook ${kind}`, hook.post))
  assert.deepEqual(gaps, [], `${gaps.length} gaps:\n${gaps.join('\n')}`)
})

test('the idempotency header is documented on every POST that takes a key, rate-limit headers on every /v1 answer', () => {
  for (const [path, operations] of Object.entries<Node>(document.paths)) {
    for (const [method, operation] of Object.entries<Node>(operations)) {
      if (!path.startsWith('/v1/')) continue
      const label = `${method.toUpperCase()} ${path}`
      const names = (operation.parameters ?? []).map((parameter: Node) => inlined(parameter).name)
      const keyed = operation.security.length > 0
      assert.equal(names.includes('X-Idempotency-Key'), method === 'post' && keyed, label)
      for (const [status, response] of Object.entries<Node>(operation.responses)) {
        for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Reset-After']) {
          assert.ok(response.headers?.[header], `${label} ${status} documents ${header}`)
        }
      }
      // The permission line once, however many variants (HEAD, trailing slash) the route has.
      assert.ok((operation.description.match(/Requires the `/g) ?? []).length <= 1, `${label}: ${operation.description}`)
    }
  }
})

/** The spec's Events table, in its order, with the one DECISIONS adds (inventory.waste_recorded) among the inventory events. */
const SPEC_EVENT_KINDS = [
  'inventory.updated',
  'inventory.low_stock',
  'inventory.count_completed',
  'inventory.waste_recorded',
  'variance.detected',
  'variance.threshold_exceeded',
  'order.created',
  'order.submitted',
  'order.shipped',
  'order.delivered',
  'pos.sync_completed',
  'pos.sync_failed',
]

test('the event registry is the spec’s Events table: the document’s webhooks and what a webhook may subscribe to', () => {
  assert.deepEqual(Object.keys(document.webhooks), SPEC_EVENT_KINDS)
  const events = inlined(document.paths['/v1/webhooks'].post.requestBody.content['application/json'].schema).properties.events
  assert.deepEqual(events.items.enum, [...SPEC_EVENT_KINDS, '*'])
  const lowStock = document.webhooks['inventory.low_stock'].post.requestBody.content['application/json']
  assert.deepEqual(Object.keys(lowStock.schema.properties.data.properties), ['item_id', 'name', 'current_quantity', 'reorder_point', 'location', 'recommended_order'])
})

test('error responses say when each code happens', () => {
  const create = document.paths['/v1/inventory/items'].post
  assert.match(create.responses['409'].description, /`duplicate_sku`: Another live item at the location has this SKU/)
  assert.match(create.responses['400'].description, /`idempotency_key_reused`: /)
})

/** The code block of `language` in the guide, under its "Verifying the signature" section. */
function guideCode(language: string): string {
  const section = document.info.description.split('### Verifying the signature')[1] ?? ''
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section)
  assert.ok(match, `the guide has ${language} code`)
  return match[1]!
}

describe('the guide’s signature verification code accepts barstock’s signature and refuses a changed body', () => {
  const secret = 'whsec_Zx8kq2VbN4mP7rT1yW3eH6jL9sD0fG5a'
  const body =
    '{"id":"evt_01jd3k6m2q8v4r7t9w1y3z5b7c","event":"inventory.low_stock","timestamp":"2026-11-22T21:30:00.000Z","data":{"item_id":"item_01","name":"Tito\'s Handmade Vodka 750ml"}}'
  const now = Math.floor(Date.now() / 1000)
  const header = signatureHeader(secret, body, now)
  let directory: string
  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'barstock-guide-'))
  })
  after(() => rmSync(directory, { recursive: true, force: true }))

  test('JavaScript', async () => {
    const file = join(directory, 'verify.mjs')
    writeFileSync(file, guideCode('js'))
    const { verifyBarstockSignature } = await import(pathToFileURL(file).href)
    assert.equal(verifyBarstockSignature(body, header, secret), true)
    assert.equal(verifyBarstockSignature(body.replace('Tito', 'Titto'), header, secret), false)
    assert.equal(verifyBarstockSignature(body, signatureHeader(secret, body, now - 301), secret), false)
  })

  test('Python', (t) => {
    if (spawnSync('python3', ['--version']).status !== 0) return t.skip('python3 is not installed')
    const script = `${guideCode('python')}\nimport os, sys\nprint(verify_barstock_signature(sys.stdin.buffer.read(), os.environ["HEADER"], os.environ["SECRET"]))`
    const run = (text: string) => spawnSync('python3', ['-c', script], { input: text, env: { ...process.env, HEADER: header, SECRET: secret }, timeout: 20_000, encoding: 'utf8' })
    assert.equal(run(body).stdout.trim(), 'True', run(body).stderr)
    assert.equal(run(body.replace('Tito', 'Titto')).stdout.trim(), 'False')
  })

  test('curl and openssl', (t) => {
    if (spawnSync('openssl', ['version']).status !== 0) return t.skip('openssl is not installed')
    const code = guideCode('sh')
    const timestamp = Number(/^T=(\d+)/m.exec(code)![1])
    writeFileSync(join(directory, 'body.json'), body)
    const run = spawnSync('sh', ['-c', code], { cwd: directory, env: { ...process.env, WEBHOOK_SECRET: secret }, timeout: 20_000, encoding: 'utf8' })
    const expected = /v1=([0-9a-f]+)/.exec(signatureHeader(secret, body, timestamp))![1]
    assert.equal(run.stdout.trim(), expected, run.stderr)
  })
})
