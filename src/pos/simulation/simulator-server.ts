import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { SimulatorFailure, SimulatorHandler } from '../vendors/adapter.js'

/**
 * Failure switches shared by every simulator. A simulator calls `intercept` before answering a data
 * request; when it returns true the failure has been written and the simulator answers nothing more.
 * Vendor-specific error bodies come from `writeError`, which each simulator supplies.
 */
export class FailureSwitch {
  private served = 0

  constructor(private readonly failure: SimulatorFailure | undefined) {}

  /** The error status a failure answers this request with; undefined when it is answered as usual. */
  private failingStatus(failure: Extract<SimulatorFailure, { mode: 'rate_limit' | 'server_error' | 'statuses' }>): 429 | 503 | undefined {
    if (failure.mode === 'statuses') return failure.statuses[this.served - 1]
    if (failure.times !== undefined && this.served > failure.times) return undefined
    return failure.mode === 'rate_limit' ? 429 : 503
  }

  async intercept(res: ServerResponse, writeError: (status: number, message: string, headers?: Record<string, string>) => void): Promise<boolean> {
    const failure = this.failure
    if (!failure) return false
    this.served++
    switch (failure.mode) {
      case 'slow':
        await new Promise((resolve) => setTimeout(resolve, failure.delayMs))
        return false
      case 'rate_limit':
      case 'server_error':
      case 'statuses': {
        const status = this.failingStatus(failure)
        if (status === undefined) return false
        const retryAfterSeconds = failure.mode === 'rate_limit' ? (failure.retryAfterSeconds ?? 1) : 1
        if (status === 429) writeError(429, 'Too many requests', { 'Retry-After': String(retryAfterSeconds) })
        else writeError(status, 'Service unavailable')
        return true
      }
      case 'garbage':
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"this is": not json')
        return true
      case 'drop_mid_page': {
        const first = failure.page ?? 1
        if (this.served < first || (failure.times !== undefined && this.served >= first + failure.times)) return false
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' })
        res.write('{"partial": [')
        setTimeout(() => res.socket?.destroy(), 10)
        return true
      }
    }
  }
}

/** Reads a request body as text. */
export async function readBody(req: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of req) text += (chunk as Buffer).toString()
  return text
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))
}

export interface RunningSimulator {
  url: string
  server: Server
  close(): Promise<void>
}

/** Serves a simulator on loopback (port 0: any free port). */
export async function startSimulatorServer(handler: SimulatorHandler, port = 0, host = '127.0.0.1'): Promise<RunningSimulator> {
  // A client in the same process reuses a kept-alive socket until shortly before the server's timeout; on
  // a busy machine both timers fire late and the server could close a socket the client just wrote to
  // (ECONNRESET). A long server timeout leaves closing idle sockets to the client.
  const server = createServer({ keepAliveTimeout: 120_000 }, handler)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve())
  })
  const address = server.address() as AddressInfo
  return {
    url: `http://${host}:${address.port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
