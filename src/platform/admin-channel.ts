import { createHash } from 'node:crypto'
import { rmSync } from 'node:fs'
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * The local channel a running server owns, so that CLI commands reach its embedded database while it
 * runs (PGlite cannot be opened by two processes). It is an HTTP server on a unix socket inside the data
 * dir, readable by the owner only; each command is the same function the CLI runs when no server does.
 */
export type AdminCommand = (args: Record<string, unknown>) => Promise<unknown>

/** Admin commands run one after another on one database: the running server's, or one opened for them. */
export interface AdminSession {
  run(name: string, args: Record<string, unknown>): Promise<unknown>
  close(): Promise<void>
}

// Unix socket paths are limited to about 107 bytes.
const MAX_SOCKET_PATH = 100

export function adminSocketPath(dataDir: string): string {
  const inside = join(dataDir, 'barstock.sock')
  if (inside.length <= MAX_SOCKET_PATH) return inside
  const digest = createHash('sha256').update(dataDir).digest('hex').slice(0, 16)
  return join(tmpdir(), `barstock-${digest}.sock`)
}

export interface AdminChannel {
  close(): Promise<void>
}

async function readJson(stream: NodeJS.ReadableStream): Promise<Record<string, unknown>> {
  let text = ''
  for await (const chunk of stream) text += chunk.toString()
  return text ? (JSON.parse(text) as Record<string, unknown>) : {}
}

export async function startAdminChannel(path: string, commands: Record<string, AdminCommand>): Promise<AdminChannel> {
  rmSync(path, { force: true })
  // The listener catches everything it awaits: a rejection would escape the server (no-misused-promises).
  const server: Server = createServer((req, res) => void answerCommand(commands, req, res))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ path, readableAll: false, writableAll: false }, () => resolve())
  })
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        rmSync(path, { force: true })
      }),
  }
}

/** Runs a command in the server that owns `path`; rejects with the server's error message. */
export function callAdminChannel(path: string, name: string, args: Record<string, unknown>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ socketPath: path, method: 'POST', path: `/commands/${encodeURIComponent(name)}`, headers: { 'content-type': 'application/json' } }, (res) => {
      readJson(res)
        .then((body) => (res.statusCode === 200 ? resolve(body.result) : reject(new Error(String(body.error)))))
        .catch(reject)
    })
    req.on('error', (error) => reject(new Error(`cannot reach the running server at ${path}: ${error.message}`)))
    req.end(JSON.stringify(args))
  })
}

async function answerCommand(commands: Record<string, AdminCommand>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let status = 200
  let body: unknown
  try {
    // Inside the try: a malformed %-escape throws URIError.
    const name = decodeURIComponent((req.url ?? '').replace(/^\/commands\//, ''))
    const command = commands[name]
    if (req.method !== 'POST' || !command) {
      status = 404
      body = { error: `unknown command ${name}` }
    } else {
      body = { result: await command(await readJson(req)) }
    }
  } catch (error) {
    status = 400
    body = { error: (error as Error).message }
  }
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}
