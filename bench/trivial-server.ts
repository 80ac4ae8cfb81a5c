import { createServer } from 'node:http'

/**
 * The load generator's own ceiling, a process of its own: answers every request, whatever its method and
 * path, with the same bytes from memory (Node's http module, no framework, no database). The bench sets
 * the answer to a copy of barstock's for the scenario (a message `{ body }` over IPC, acknowledged), so
 * the generator reads as many bytes per answer as it does from the servers it measures. Sends its URL
 * over IPC once listening.
 */

let body = Buffer.from('{"data":{}}')

process.on('message', (message) => {
  body = Buffer.from((message as { body: string }).body)
  process.send!({ ready: true })
})

const server = createServer((request, response) => {
  // The request's body is read and dropped, as a server reads it.
  request.resume()
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length })
    response.end(body)
  })
})

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number }
  process.send!({ url: `http://127.0.0.1:${port}` })
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
