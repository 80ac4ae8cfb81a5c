import { existsSync } from 'node:fs'
import { join } from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'

export const CONSOLE_PATH = '/app'

// The console loads only its own files and talks only to this service; nothing may frame it.
const CONSOLE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
}

export interface ConsoleOptions {
  /** The console as `npm run build` bundles it (dist/console): index.html and assets/. */
  root: string
}

/**
 * The operator console at /app: a static single-page app (console/) that signs in with an API key and
 * calls the public /v1 API like any client. Its asset names carry a content hash, so they are cached for
 * good; index.html is revalidated so a new build is picked up. A checkout that was never built answers
 * /app with a plain note instead of a blank page.
 */
export async function consoleRoutes(app: FastifyInstance, options: ConsoleOptions) {
  const index = join(options.root, 'index.html')
  if (!existsSync(index)) {
    app.get(CONSOLE_PATH, { schema: { hide: true } }, async (_request, reply) => reply.code(503).type('text/plain').send('The console is not built: run `npm run build`.\n'))
    return
  }
  await app.register(fastifyStatic, {
    root: join(options.root, 'assets'),
    prefix: `${CONSOLE_PATH}/assets/`,
    index: false,
    immutable: true,
    maxAge: '365d',
    setHeaders: (reply) => {
      for (const [name, value] of Object.entries(CONSOLE_HEADERS)) reply.header(name, value)
    },
  })
  // Routing inside the console is by URL fragment (/app#/stock), so /app is its one page.
  app.get(CONSOLE_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply.headers({ ...CONSOLE_HEADERS, 'cache-control': 'no-cache' }).sendFile('index.html', options.root, { cacheControl: false }),
  )
}
