import { after, before } from 'node:test'
import type { Middleware } from 'openapi-fetch'
import { type BarstockClient, createBarstockClient } from '../../clients/typescript/src/index.js'
import { type ContextOptions, createTestContext, type TestContext } from './context.js'
import { OpenApiContract } from './openapi-contract.js'

export interface ClientServer {
  baseUrl: string
  /** A generated client for `key` whose every JSON answer is checked against the app's own document. */
  clientFor(key: string): BarstockClient
}

/**
 * Makes the test context's app listen on a free local port (ctx.close() stops it) and hands out
 * clients of clients/typescript/. Their types hold the test's requests and reads to the document at
 * compile time; at run time every JSON answer is validated against the schema the document gives for
 * its path, method and status, so an answer the document does not describe fails the test.
 */
export async function listenForClients(ctx: TestContext): Promise<ClientServer> {
  const baseUrl = await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  const contract = new OpenApiContract(ctx.app.swagger())
  const conformance: Middleware = {
    async onResponse({ request, response, schemaPath }) {
      if (!response.headers.get('content-type')?.startsWith('application/json')) return
      contract.assertResponse(request.method, schemaPath, response.status, await response.clone().json())
    },
  }
  return {
    baseUrl,
    clientFor(key) {
      const client = createBarstockClient({ baseUrl, apiKey: key })
      client.use(conformance)
      return client
    },
  }
}

/** The body of an answer that must be a success; otherwise throws with the status and error body. */
export function succeeded<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(`expected a success, got ${result.response.status} ${JSON.stringify(result.error)}`)
  return result.data
}

export interface ClientTestFile {
  ctx: TestContext
  server: ClientServer
  /** A client for a fresh account, so each test sees only its own data (production unless told). */
  newClient(options?: Parameters<TestContext['newCaller']>[0]): Promise<BarstockClient>
}

/** A test context listening for clients for the whole file: opened in its `before`, closed in its `after`. */
export function clientTestFile(options: ContextOptions = {}): ClientTestFile {
  // ctx and server are set by `before`, which runs ahead of every test that reads them.
  const file = {
    async newClient(options) {
      return file.server.clientFor((await file.ctx.newCaller(options)).key)
    },
  } as ClientTestFile
  before(async () => {
    file.ctx = await createTestContext(options)
    file.server = await listenForClients(file.ctx)
  })
  after(() => file.ctx.close())
  return file
}
