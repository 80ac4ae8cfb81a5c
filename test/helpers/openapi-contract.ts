import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Ajv, type ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { load } from 'js-yaml'

/**
 * Checks a simulator's answers against its vendor's published OpenAPI document
 * (copies of ../shared/spec/vendor-specs/ in test/fixtures/vendor-specs/, so the tests run from any
 * checkout), so a simulator cannot drift into the adapter's assumptions.
 * Swagger 2.0 and OpenAPI 3.0 documents are read as JSON Schema draft 7 (their `nullable` rewritten
 * as JSON Schema); OpenAPI 3.1 as JSON Schema 2020-12. Unknown keywords (`example`, `xml`…) are ignored.
 */

const SPEC_DIR = fileURLToPath(new URL('../../../test/fixtures/vendor-specs/', import.meta.url))

type Document = { swagger?: string; openapi?: string; paths: Record<string, Record<string, Operation>> }
type Operation = { responses?: Record<string, { schema?: unknown; content?: Record<string, { schema?: unknown }> }> }

/**
 * OpenAPI 3.0's `nullable: true` (and Swagger's `x-nullable`) as JSON Schema: a `type` that also
 * allows null, or, next to a `$ref` or composition without a type, an anyOf with null.
 */
function withJsonSchemaNulls(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withJsonSchemaNulls)
  if (node === null || typeof node !== 'object') return node
  const { nullable, 'x-nullable': xNullable, ...rest } = node as Record<string, unknown>
  const schema = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, withJsonSchemaNulls(value)]))
  if (nullable !== true && xNullable !== true) return schema
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] }
  return { anyOf: [schema, { type: 'null' }] }
}

function readSpec(file: string): unknown {
  const text = readFileSync(SPEC_DIR + file, 'utf8')
  return file.endsWith('.json') ? JSON.parse(text) : load(text)
}

/** JSON pointer segment, written for a URI fragment. */
function pointerSegment(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'))
}

export class OpenApiContract {
  private readonly document: Document
  private readonly ajv: Ajv
  private readonly validators = new Map<string, ValidateFunction>()

  /**
   * `source` is a name in test/fixtures/vendor-specs/, e.g. `square.json` or `toast-orders.yaml`, or a
   * parsed document (barstock's own). `missingSchemas` defines component schemas the published
   * document references but never defines (each with the vendor's reference as its source, in the
   * caller's comment).
   */
  constructor(source: string | object, missingSchemas: Record<string, object> = {}) {
    this.document = withJsonSchemaNulls(typeof source === 'string' ? readSpec(source) : structuredClone(source)) as Document
    const components = ((this.document as { components?: { schemas?: Record<string, unknown> } }).components ??= {})
    components.schemas = { ...missingSchemas, ...components.schemas }
    const options = { strict: false, allErrors: true, validateSchema: false }
    this.ajv = this.document.openapi?.startsWith('3.1') ? new Ajv2020(options) : new Ajv(options)
    addFormats.default(this.ajv)
    this.ajv.addSchema(this.document, 'spec')
  }

  /**
   * Throws, naming every mismatch, unless `body` is what the document says `method pathTemplate`
   * answers with `status` (the template as the document writes it, e.g. `/v2/orders/{order_id}`).
   */
  assertResponse(method: string, pathTemplate: string, status: number, body: unknown): void {
    const validate = this.validator(method.toLowerCase(), pathTemplate, String(status))
    if (validate(body)) return
    const problems = (validate.errors ?? []).slice(0, 10).map((error) => `${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`)
    throw new Error(`${method} ${pathTemplate} ${status}: the answer does not match the document:\n  ${problems.join('\n  ')}`)
  }

  private validator(method: string, pathTemplate: string, status: string): ValidateFunction {
    const key = `${method} ${pathTemplate} ${status}`
    let validate = this.validators.get(key)
    if (!validate) {
      validate = this.ajv.compile({ $ref: `spec#${this.schemaPointer(method, pathTemplate, status)}` })
      this.validators.set(key, validate)
    }
    return validate
  }

  private schemaPointer(method: string, pathTemplate: string, status: string): string {
    const operation = this.document.paths[pathTemplate]?.[method]
    if (!operation) throw new Error(`the document has no ${method.toUpperCase()} ${pathTemplate}`)
    const response = operation.responses?.[status] ?? operation.responses?.default
    const at = ['paths', pathTemplate, method, 'responses', operation.responses?.[status] ? status : 'default']
    if (response?.schema) return '/' + [...at, 'schema'].map(pointerSegment).join('/')
    const mediaType = Object.keys(response?.content ?? {}).find((type) => type.includes('json'))
    if (!mediaType) throw new Error(`the document gives no JSON schema for ${method.toUpperCase()} ${pathTemplate} ${status}`)
    return '/' + [...at, 'content', mediaType, 'schema'].map(pointerSegment).join('/')
  }
}
