import { readFileSync } from 'node:fs'
import swagger from '@fastify/swagger'
import apiReference from '@scalar/fastify-api-reference'
import type { FastifyInstance, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { TSchema } from 'typebox'
import { type ErrorDefinition, platformErrors } from '../errors.js'
import { projectPath } from '../paths.js'
import { exampleOf } from './openapi-examples.js'
import { API_REFERENCE_PAGE } from './input-safety.js'
import { ErrorBody } from './schemas.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Domain error codes this route can answer with, for the OpenAPI document. */
    errors?: ErrorDefinition[]
  }
}

export interface OpenApiOptions {
  version: string
  /** The reference's introduction and guides, in Markdown (`info.description`). */
  guide: string
  tags: { name: string; description: string }[]
  /** Every event's `data` schema by kind: the document's `webhooks`. */
  events: Record<string, TSchema>
}

/** The headers of the rate limit (src/platform/auth/auth-plugin.ts), sent on every /v1 answer. */
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed per one-minute window for this key (or client address)', example: 1000 },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', example: 997 },
  'X-RateLimit-Reset': { description: 'When the window resets, in Unix seconds', example: 1795250040 },
  'X-RateLimit-Reset-After': { description: 'Seconds until the window resets', example: 37 },
}

const RESPONSE_HEADERS = {
  ...RATE_LIMIT_HEADERS,
  'X-Request-Id': { description: 'The request’s id, also meta.request_id: quote it when reporting a problem', example: 'req_01jd3m4n5p6q7r8s9t0v1w2x3y' },
}

/** When each error code happens: the When column of docs/errors.md, the catalogue's documentation. */
function errorCircumstances(): Map<string, string> {
  let text: string
  try {
    text = readFileSync(projectPath('docs', 'errors.md'), 'utf8')
  } catch {
    return new Map()
  }
  const rows = text.split('\n').flatMap((line) => {
    const match = /^\| `([a-z_]+)` \| \d{3} \| (.*) \|$/.exec(line)
    return match ? [[match[1]!, match[2]!] as const] : []
  })
  return new Map(rows)
}

/** What an error's message looks like: its template with each placeholder shown as "…". */
function exampleMessage(definition: ErrorDefinition): string {
  if (definition.code === platformErrors.invalidParameter.code) return 'quantity must be >= 0'
  return definition.template.replace(/%s/g, '…')
}

function errorResponseSchemas(errors: ErrorDefinition[], circumstances: Map<string, string>) {
  const byStatus = new Map<number, ErrorDefinition[]>()
  for (const definition of errors) {
    const definitions = byStatus.get(definition.statusCode) ?? []
    if (!definitions.some((known) => known.code === definition.code)) definitions.push(definition)
    byStatus.set(definition.statusCode, definitions)
  }
  const responses: Record<number, unknown> = {}
  for (const [status, definitions] of byStatus) {
    const lines = definitions.map((definition) => `- \`${definition.code}\`: ${circumstances.get(definition.code) ?? definition.template}`)
    const first = definitions[0]!
    const example = {
      error: { code: first.code, message: exampleMessage(first) },
      meta: { request_id: 'req_01jd3m4n5p6q7r8s9t0v1w2x3y', timestamp: '2026-11-22T21:30:00.000Z' },
    }
    responses[status] = { ...ErrorBody, description: lines.join('\n'), examples: [example] }
  }
  return responses
}

/** Every /v1 route can answer these, beside the errors it declares (public routes read no key, so no key errors). */
function standardErrors(route: RouteOptions): ErrorDefinition[] {
  const keyed = !route.config?.public
  const errors = [platformErrors.rateLimitExceeded, platformErrors.internalError, platformErrors.databaseUnavailable]
  if (keyed) errors.push(platformErrors.invalidApiKey)
  if (route.config?.permission) errors.push(platformErrors.insufficientPermissions)
  const schema = route.schema ?? {}
  if (schema.body || schema.querystring || schema.params) errors.push(platformErrors.invalidParameter)
  if (schema.body) errors.push(platformErrors.payloadTooLarge)
  if (honoursIdempotency(route.method, keyed)) errors.push(platformErrors.idempotencyKeyReused, platformErrors.idempotencyInProgress)
  return errors
}

/** Every keyed POST stores its answer under an X-Idempotency-Key (runWrite); public routes have no key to scope it. */
function honoursIdempotency(method: RouteOptions['method'], keyed: boolean): boolean {
  return method === 'POST' && keyed
}

/**
 * Completes each /v1 route's schema for the document: its error responses, its security and its
 * permission. Fastify calls this once per method and path variant (HEAD, a trailing slash), and an alias
 * route shares its target's schema, so every step leaves a completed schema as it is.
 */
function routeDocumenter() {
  const circumstances = errorCircumstances()
  return (route: RouteOptions): void => {
    if (!route.url.startsWith('/v1/')) return
    const schema = (route.schema ??= {})
    const declared = [...standardErrors(route), ...(route.config?.errors ?? [])]
    schema.response = { ...errorResponseSchemas(declared, circumstances), ...(schema.response as object) }
    const documentation = schema as Record<string, unknown>
    documentation.security = route.config?.public ? [] : [{ ApiKey: [] }]
    if (honoursIdempotency(route.method, !route.config?.public)) documentation['x-idempotent'] = true
    if (route.config?.permission) {
      const note = `Requires the \`${route.config.permission}\` permission.`
      if (!schema.description?.includes(note)) schema.description = schema.description ? `${schema.description}\n\n${note}` : note
    }
  }
}

const SUCCESS_DESCRIPTIONS: Record<string, string> = {
  '200': 'Done: the answer is in `data`',
  '201': 'Created: the new resource is in `data`',
  '202': 'Accepted: the work runs in the background',
}

type Operation = {
  parameters?: unknown[]
  requestBody?: { content: Record<string, Media> }
  responses: Record<string, { description?: string; headers?: Record<string, unknown>; content?: Record<string, Media> }>
  'x-idempotent'?: boolean
}
type Media = { schema: object; example?: unknown; examples?: unknown }
type Document = {
  paths: Record<string, Record<string, Operation>>
  components: { schemas?: Record<string, object> } & Record<string, unknown>
} & Record<string, unknown>

/** A media object's example: the one a route gave, else one composed from its fields' examples. */
function withExample(media: Media, schemas: Record<string, object>): void {
  if (media.example !== undefined || media.examples !== undefined) return
  const example = exampleOf(media.schema, schemas)
  if (example !== undefined) media.example = example
}

/** The idempotency header on the POSTs that honour it, rate-limit headers and examples on every answer. */
function completeOperations(document: Document): void {
  const schemas = document.components.schemas ?? {}
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const operation of Object.values(operations)) {
      if (operation['x-idempotent']) {
        delete operation['x-idempotent']
        operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }]
      }
      for (const media of Object.values(operation.requestBody?.content ?? {})) withExample(media, schemas)
      for (const [status, response] of Object.entries(operation.responses)) {
        if (response.description === 'Default Response') response.description = SUCCESS_DESCRIPTIONS[status] ?? 'Success'
        for (const media of Object.values(response.content ?? {})) withExample(media, schemas)
        if (!path.startsWith('/v1/')) continue
        const headers = Object.keys(RESPONSE_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }] as const)
        response.headers = { ...Object.fromEntries(headers), ...response.headers }
      }
    }
  }
}

const WEBHOOK_EVENT_HEADERS = [
  { name: 'X-Webhook-Id', description: 'The event id, the same on every retry of the event: de-duplicate on it', example: 'evt_01jd3k6m2q8v4r7t9w1y3z5b7c' },
  { name: 'X-Webhook-Event', description: 'The event kind', example: 'inventory.low_stock' },
  {
    name: 'X-Webhook-Signature',
    description: '`t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<body>" keyed with the webhook secret>` (see Verifying the signature)',
    example: 't=1795250000,v1=5f2b8c0e9d4a7f1b3c6e8a0d2f4b6c8e1a3c5e7f9b1d3f5a7c9e1b3d5f7a9c1e',
  },
]

/** One OpenAPI 3.1 webhook per event kind: the signed POST a subscriber receives, with its `data`. */
function webhookOperations(events: Record<string, TSchema>) {
  const entries = Object.entries(events).map(([kind, data]) => {
    const dataSchema = JSON.parse(JSON.stringify(data)) as { description?: string }
    const body = {
      type: 'object',
      required: ['id', 'event', 'timestamp', 'data'],
      properties: {
        id: { type: 'string', description: 'The event id, also X-Webhook-Id', examples: ['evt_01jd3k6m2q8v4r7t9w1y3z5b7c'] },
        event: { type: 'string', const: kind, description: 'The event kind', examples: [kind] },
        timestamp: { type: 'string', format: 'date-time', description: 'When the event happened (not when it was sent)', examples: ['2026-11-22T21:30:00.000Z'] },
        data: dataSchema,
      },
    }
    const operation = {
      post: {
        summary: kind,
        description: `${dataSchema.description ?? kind}. Sent to every active webhook subscribed to \`${kind}\` or \`*\`.`,
        tags: ['Webhooks'],
        parameters: WEBHOOK_EVENT_HEADERS.map(({ name, description, example }) => ({
          name,
          in: 'header',
          required: true,
          description,
          schema: { type: 'string' },
          example,
        })),
        requestBody: { required: true, content: { 'application/json': { schema: body, example: exampleOf(body, {}) } } },
        responses: { '2XX': { description: 'Acknowledged: any 2xx within 5 seconds. Anything else is retried for 3 days.' } },
      },
    }
    return [kind, operation] as const
  })
  return Object.fromEntries(entries)
}

/**
 * The OpenAPI 3.1 document at /openapi.json, built from the routes' schemas, and the reference at /docs
 * (Scalar, its script served from the package: no network at run time).
 */
async function openapi(app: FastifyInstance, options: OpenApiOptions) {
  app.addHook('onRoute', routeDocumenter())
  await app.register(swagger, {
    // Shared schemas are named by their $id (Meta, Pagination, ErrorResponse) in components.schemas.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => (typeof json.$id === 'string' ? json.$id : `Schema${index}`) },
    // Paths are documented without a trailing slash, the one form every route answers to.
    transform: ({ schema, url }) => ({ schema, url: url.length > 1 ? url.replace(/\/+$/, '') : url }),
    transformObject: (documents) => {
      const document = (documents as unknown as { openapiObject: Document }).openapiObject
      completeOperations(document)
      return document
    },
    openapi: {
      openapi: '3.1.0',
      info: { title: 'barstock API', version: options.version, description: options.guide },
      tags: options.tags,
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A key from `barstock keys create`: bs_live_… (production) or bs_test_… (sandbox)' },
          MetricsToken: { type: 'http', scheme: 'bearer', description: 'BARSTOCK_METRICS_TOKEN, for GET /metrics only' },
        },
        headers: Object.fromEntries(
          Object.entries(RESPONSE_HEADERS).map(([name, { description, example }]) => [
            name,
            { description, schema: { type: typeof example === 'number' ? 'integer' : 'string' }, example },
          ]),
        ),
        parameters: {
          IdempotencyKey: {
            name: 'X-Idempotency-Key',
            in: 'header',
            required: false,
            description:
              'Makes the POST safe to retry: a repeat with the same key, method, path and body within 24 hours gets the first answer again (`Idempotent-Replayed: true`) and changes nothing. 1 to 255 characters, per API key.',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
            example: '4f1c2a9e-7b3d-4e8f-9a6c-1d2e3f4a5b6c',
          },
        },
      },
      webhooks: webhookOperations(options.events),
    } as never,
  })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
  await app.register(apiReference, {
    routePrefix: API_REFERENCE_PAGE.slice(0, -1) as '/docs',
    logLevel: 'warn',
    configuration: {
      url: '/openapi.json',
      pageTitle: 'barstock API reference',
      // Fonts would come from Scalar's CDN: the system's fonts keep /docs free of network calls.
      withDefaultFonts: false,
      hideClientButton: true,
      telemetry: false,
    },
  })
}

export const openapiPlugin = fp(openapi, { name: 'barstock-openapi', dependencies: ['barstock-conventions'] })
