import assert from 'node:assert/strict'
import { request as httpRequest, Agent } from 'node:http'
import { test } from 'node:test'
import { createTestContext } from '../helpers/context.js'

/**
 * A keep-alive connection whose request is in flight when shutdown starts is answered and then closed,
 * so closing takes as long as the slowest request, not a keep-alive timeout (Fastify's 72 s; past the
 * 10 s shutdown budget the process was once force-exited).
 */
test('shutdown answers the request in flight with Connection: close and finishes in under 5 s', async () => {
  const ctx = await createTestContext({
    configure(app) {
      app.get('/test/slow', async () => {
        await new Promise((resolve) => setTimeout(resolve, 300))
        return { data: 'done' }
      })
    },
  })
  await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = ctx.app.server.address() as { port: number }
  const agent = new Agent({ keepAlive: true })
  try {
    const answered = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port, path: '/test/slow', agent }, (response) => {
        response.resume()
        response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }))
      })
        .on('error', reject)
        .end()
    })
    await new Promise((resolve) => setTimeout(resolve, 100))
    const started = Date.now()
    const closing = ctx.close()
    const response = await answered
    await closing
    assert.equal(response.status, 200)
    assert.equal(response.connection, 'close')
    assert.ok(Date.now() - started < 5_000, `closing took ${Date.now() - started} ms`)
  } finally {
    agent.destroy()
  }
})
