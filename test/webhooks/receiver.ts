import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ReceivedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  /** The raw body bytes as text, exactly as received (what the signature covers). */
  body: string
  receivedAt: number
}

/** How the receiver answers the next request: status and an optional delay. */
export type Responder = (request: ReceivedRequest) => { status: number; delayMs?: number }

/** A real HTTP receiver on 127.0.0.1 that records every request it gets. */
export interface Receiver {
  url: string
  port: number
  requests: ReceivedRequest[]
  respond: Responder
  /** Resolves when at least `count` requests have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>
  close(): Promise<void>
}

export async function startReceiver(respond: Responder = () => ({ status: 200 }), port = 0): Promise<Receiver> {
  const waiters: (() => void)[] = []
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const request: ReceivedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      receivedAt: Date.now(),
    }
    receiver.requests.push(request)
    waiters.splice(0).forEach((wake) => wake())
    const { status, delayMs } = receiver.respond(request)
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs))
    if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain' }).end('ok')
  })
  server.listen(port, '127.0.0.1')
  await once(server, 'listening')
  const actualPort = (server.address() as AddressInfo).port
  const receiver: Receiver = {
    url: `http://127.0.0.1:${actualPort}/hooks`,
    port: actualPort,
    requests: [],
    respond,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs
      while (receiver.requests.length < count) {
        const left = deadline - Date.now()
        if (left <= 0) throw new Error(`expected ${count} webhook requests, got ${receiver.requests.length}`)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left)
          waiters.push(() => {
            clearTimeout(timer)
            resolve()
          })
        })
      }
      return receiver.requests
    },
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close').catch(() => undefined)
    },
  }
  return receiver
}
