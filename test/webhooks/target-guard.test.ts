import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { DeliverySender } from '../../src/webhooks/delivery-sender.js'
import { isRefusedAddress, type Resolver } from '../../src/platform/network-guard.js'
import { createTestContext, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { startReceiver } from './receiver.js'
import { createWebhook, deliveriesOf, eventually, withReceiverAndDispatcher } from './support.js'

describe('isRefusedAddress', () => {
  const refused = [
    '0.0.0.0',
    '10.0.0.1',
    '100.64.1.1',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.168.0.1',
    '198.18.0.1',
    '224.0.0.251',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::127.0.0.1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:0:a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::1',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd00:ec2::254',
    'fec0::1',
    'ff02::1',
    '2001:db8::1',
    '[::1]',
    'localhost',
    'not-an-ip',
  ]
  const allowed = ['8.8.8.8', '93.184.216.34', '172.32.0.1', '192.169.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']
  for (const address of refused) test(`refuses ${address}`, () => assert.equal(isRefusedAddress(address), true))
  for (const address of allowed) test(`allows ${address}`, () => assert.equal(isRefusedAddress(address), false))
})

describe('DeliverySender', () => {
  const delivery = (url: string) => ({ url, secret: 'whsec_test_secret_value', eventId: 'evt_1', eventKind: 'ping', body: '{}' })

  test('refuses a loopback IP literal at delivery when private targets are not allowed', async (t) => {
    const receiver = await startReceiver()
    const sender = new DeliverySender({ allowPrivate: false })
    t.after(async () => {
      await sender.close()
      await receiver.close()
    })
    const outcome = await sender.send(delivery(receiver.url))
    assert.equal(outcome.delivered, false)
    assert.equal(outcome.statusCode, null)
    assert.match(outcome.error!, /127\.0\.0\.1 is not a public address/)
    assert.equal(receiver.requests.length, 0)
  })

  test('checks the resolved address and connects only to it: DNS rebinding to loopback is refused', async (t) => {
    const receiver = await startReceiver()
    // A name that passed the create check (public) but now resolves to loopback.
    const rebinding: Resolver = async () => [{ address: '127.0.0.1', family: 4 }]
    const strict = new DeliverySender({ allowPrivate: false, resolver: rebinding })
    const permissive = new DeliverySender({ allowPrivate: true, resolver: rebinding })
    t.after(async () => {
      await strict.close()
      await permissive.close()
      await receiver.close()
    })
    const url = `http://hooks.example.com:${receiver.port}/hooks`
    const refused = await strict.send(delivery(url))
    assert.match(refused.error!, /refused to connect to hooks\.example\.com: 127\.0\.0\.1 is not a public address/)
    assert.equal(receiver.requests.length, 0)
    // With private targets allowed, the socket goes to the address the lookup returned (our receiver).
    const delivered = await permissive.send(delivery(url))
    assert.equal(delivered.delivered, true, delivered.error ?? '')
    assert.equal(receiver.requests[0]!.headers.host, `hooks.example.com:${receiver.port}`)
  })

  test('refuses a host when any of its addresses is private', async (t) => {
    const mixed: Resolver = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ]
    const sender = new DeliverySender({ allowPrivate: false, resolver: mixed })
    t.after(() => sender.close())
    assert.match((await sender.send(delivery('http://mixed.example.com/hooks'))).error!, /10\.0\.0\.7 is not a public address/)
  })

  test('gives up on a receiver that does not answer in time', async (t) => {
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 1000 }))
    const sender = new DeliverySender({ allowPrivate: true, timeoutMs: 200 })
    t.after(async () => {
      await sender.close()
      await receiver.close()
    })
    const outcome = await sender.send(delivery(receiver.url))
    assert.equal(outcome.delivered, false)
    assert.equal(outcome.error, 'no answer within 200 ms')
    assert.ok(outcome.durationMs >= 190 && outcome.durationMs < 900, `${outcome.durationMs} ms`)
  })

  test('does not follow redirects (a 3xx is a failed attempt)', async (t) => {
    const receiver = await startReceiver(() => ({ status: 307 }))
    const sender = new DeliverySender({ allowPrivate: true })
    t.after(async () => {
      await sender.close()
      await receiver.close()
    })
    const outcome = await sender.send(delivery(receiver.url))
    assert.deepEqual([outcome.delivered, outcome.statusCode], [false, 307])
    assert.equal(receiver.requests.length, 1)
  })
})

describe('SSRF rule at delivery', () => {
  let ctx: TestContext
  before(async () => {
    ctx = await createTestContext({ env: { BARSTOCK_WEBHOOK_ALLOW_PRIVATE: '1' } })
  })
  after(() => ctx.close())

  test('a dispatcher without the allow flag refuses a loopback webhook and records why', async (t) => {
    const { receiver } = await withReceiverAndDispatcher(t, ctx, undefined, { allowPrivate: false })
    const caller = await ctx.newCaller()
    const byAddress = await createWebhook(ctx, caller, { url: receiver.url, events: ['*'] })
    const byName = await createWebhook(ctx, caller, { url: `http://localhost:${receiver.port}/hooks`, events: ['*'] })
    await createItem(ctx, caller, { reorder_point: 0 })
    for (const webhook of [byAddress, byName]) {
      const [delivery] = await eventually(async () => {
        const list = await deliveriesOf(ctx, caller, webhook.id)
        return list.data[0]?.attempts.length > 0 && list.data
      })
      assert.equal(delivery.status, 'pending', 'retried later like any failure')
      assert.match(delivery.attempts[0].error, /is not a public address/)
      assert.equal(delivery.attempts[0].status_code, null)
    }
    assert.equal(receiver.requests.length, 0)
  })
})
