import assert from 'node:assert/strict'
import { test } from 'node:test'
import Stripe from 'stripe'
import { runCli, startServerProcess } from '../helpers/server-process.js'
import { migratedDataDir } from '../helpers/pglite-image.js'
import { startReceiver } from './receiver.js'

/** A port nothing listens on right now: the receiver is "down" until it starts there. */
async function freePort(): Promise<number> {
  const probe = await startReceiver()
  await probe.close()
  return probe.port
}

async function api(base: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const parsed = (await response.json()) as { data: any }
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed)}`)
  return parsed.data
}

test('an event committed before the server is SIGKILLed is delivered after it restarts', { timeout: 90_000 }, async (t) => {
  const env = {
    BARSTOCK_DATA_DIR: await migratedDataDir(),
    BARSTOCK_WEBHOOK_ALLOW_PRIVATE: '1',
    BARSTOCK_WEBHOOK_RETRY_SCHEDULE: '200ms,500ms,1h',
  }
  const port = await freePort()
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined
  const first = await startServerProcess(env)
  t.after(async () => {
    first.child.kill('SIGKILL')
    await receiver?.close()
  })
  const key = JSON.parse((await runCli(['keys', 'create', '--name', 'crash', '--permissions', '*', '--json'], env)).stdout).key
  const webhook = await api(first.url, key, 'POST', '/v1/webhooks', { url: `http://127.0.0.1:${port}/hooks`, events: ['inventory.updated'] })
  const item = await api(first.url, key, 'POST', '/v1/inventory/items', {
    name: 'Crash Test Gin',
    sku: 'CRASH-1',
    category: 'spirits',
    quantity: 4,
    unit: 'bottle',
    location: 'main_bar',
  })
  // The change has committed (its response came back) and the receiver is down: nothing was delivered.
  first.child.kill('SIGKILL')
  await first.exited

  receiver = await startReceiver(() => ({ status: 200 }), port)
  const second = await startServerProcess(env)
  t.after(() => {
    second.child.kill('SIGKILL')
  })
  // A delivery claimed at the moment of the kill waits out its 15 s lease; otherwise it goes at once.
  const [request] = await receiver.waitFor(1, 30_000)
  const body = JSON.parse(request!.body)
  assert.equal(body.event, 'inventory.updated')
  assert.equal(body.data.item_id, item.id)
  assert.equal(body.data.new_quantity, 4)
  assert.ok(Stripe.webhooks.signature!.verifyHeader(request!.body, String(request!.headers['x-webhook-signature']), webhook.secret, 300))

  second.child.kill('SIGTERM')
  assert.equal(await second.exited, 0)
})
