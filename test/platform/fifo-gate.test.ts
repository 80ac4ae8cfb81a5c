import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { FifoGate, GateQueueFullError, GateWaitTimeoutError } from '../../src/platform/db/fifo-gate.js'
import { createTestContext, json, type TestContext } from '../helpers/context.js'

/**
 * PGlite's one session is handed out by a FifoGate: statements and whole transactions in arrival order,
 * each grant in a macrotask of its own. The order is shown through the gate's own API with a scripted
 * scheduler (grants run only when the test runs them), never by timing.
 */

/** A gate whose grants wait in `scheduled` until the test runs them, and a log of who got it when. */
function scriptedGate(maxWaiting: number, slots = 1) {
  const scheduled: (() => void)[] = []
  const gate = new FifoGate({ slots, maxWaiting, defer: (grant) => scheduled.push(grant) })
  const granted: string[] = []
  const acquire = (name: string) => gate.acquire().then(() => granted.push(name))
  /** Runs the one scheduled grant, then lets its promise settle. */
  const runGrant = async () => {
    assert.equal(scheduled.length, 1, 'exactly one grant is scheduled')
    scheduled.shift()!()
    await flushMicrotasks()
  }
  return { gate, scheduled, granted, acquire, runGrant }
}

async function flushMicrotasks(): Promise<void> {
  for (let turn = 0; turn < 10; turn++) await Promise.resolve()
}

describe('FifoGate', () => {
  test('grants in arrival order, one holder at a time, a late caller behind those already waiting', async () => {
    const { gate, granted, acquire, runGrant } = scriptedGate(10)
    void acquire('a')
    void acquire('b')
    void acquire('c')
    await flushMicrotasks()
    assert.deepEqual(granted, [], 'nothing is granted in the caller’s own turn')
    await runGrant()
    assert.deepEqual(granted, ['a'])
    void acquire('d')
    gate.release()
    await runGrant()
    gate.release()
    await runGrant()
    gate.release()
    await runGrant()
    assert.deepEqual(granted, ['a', 'b', 'c', 'd'])
    gate.release()
    assert.equal(gate.busy, false)
  })

  test('a release hands over in a later macrotask, never in the releasing holder’s microtasks', async () => {
    const { gate, scheduled, granted, acquire, runGrant } = scriptedGate(10)
    void acquire('holder')
    await runGrant()
    void acquire('next')
    await flushMicrotasks()
    gate.release()
    await flushMicrotasks()
    assert.deepEqual(granted, ['holder'])
    assert.equal(scheduled.length, 1)
    assert.equal(gate.waiting, 1)
    await runGrant()
    assert.deepEqual(granted, ['holder', 'next'])
    assert.equal(gate.waiting, 0)
  })

  test('refuses a caller beyond maxWaiting with SQLSTATE 53300, and the queue goes on in order', async () => {
    const { gate, granted, acquire, runGrant } = scriptedGate(2)
    void acquire('holder')
    await runGrant()
    void acquire('first')
    void acquire('second')
    await assert.rejects(gate.acquire(), (error: unknown) => error instanceof GateQueueFullError && error.code === '53300')
    assert.equal(gate.waiting, 2)
    gate.release()
    await runGrant()
    gate.release()
    await runGrant()
    assert.deepEqual(granted, ['holder', 'first', 'second'])
  })
})

describe('FifoGate with several slots (bulk writes)', () => {
  test('grants up to `slots` holders at once, the next ones in arrival order as places free up', async () => {
    const { gate, scheduled, granted, acquire } = scriptedGate(10, 2)
    for (const name of ['a', 'b', 'c', 'd']) void acquire(name)
    await flushMicrotasks()
    assert.equal(scheduled.length, 2, 'one grant scheduled per free place')
    for (const grant of scheduled.splice(0)) grant()
    await flushMicrotasks()
    assert.deepEqual(granted, ['a', 'b'])
    assert.equal(gate.busy, true)
    assert.equal(gate.waiting, 2)
    gate.release()
    assert.equal(scheduled.length, 1)
    scheduled.shift()!()
    await flushMicrotasks()
    assert.deepEqual(granted, ['a', 'b', 'c'], 'the longest waiting goes first')
    assert.equal(gate.busy, true)
    assert.equal(gate.waiting, 1)
  })

  test('a caller whose turn does not come within its wait leaves the queue, refused; the next one gets the place', async () => {
    const { gate, scheduled, granted, acquire } = scriptedGate(10)
    void acquire('holder')
    scheduled.shift()!()
    await flushMicrotasks()
    const impatient = gate.acquire(1)
    void acquire('patient')
    await assert.rejects(impatient, (error: unknown) => error instanceof GateWaitTimeoutError)
    assert.equal(gate.waiting, 1, 'only the patient caller waits')
    gate.release()
    scheduled.shift()!()
    await flushMicrotasks()
    assert.deepEqual(granted, ['holder', 'patient'])
  })

  test('a place whose waiter gave up after its grant was scheduled goes to the next one, or is free again', async () => {
    const { gate, scheduled, granted, acquire } = scriptedGate(10)
    const impatient = gate.acquire(1)
    await assert.rejects(impatient, (error: unknown) => error instanceof GateWaitTimeoutError)
    assert.equal(scheduled.length, 1, 'its grant was scheduled before it gave up')
    scheduled.shift()!()
    assert.equal(gate.busy, false, 'nobody took the place')
    void acquire('next')
    scheduled.shift()!()
    await flushMicrotasks()
    assert.deepEqual(granted, ['next'])
  })

  test('run releases its place however the work ends', async () => {
    const gate = new FifoGate({ slots: 1, maxWaiting: 10 })
    await assert.rejects(
      gate.run(async () => {
        throw new Error('work failed')
      }),
      /work failed/,
    )
    assert.equal(await gate.run(async () => 'second'), 'second')
    assert.equal(gate.busy, false)
  })
})

describe('PGlite queue full, through HTTP', () => {
  let ctx: TestContext
  let releaseHold!: () => void
  let holding!: () => void
  const held = new Promise<void>((resolve) => (holding = resolve))
  const skipOnServer = process.env.DATABASE_URL ? 'the queue is PGlite’s: runs without DATABASE_URL' : false

  before(async () => {
    if (skipOnServer) return
    ctx = await createTestContext({
      env: { BARSTOCK_PGLITE_QUEUE_LIMIT: '1' },
      configure(app) {
        // A transaction that holds PGlite's session until the test lets it go.
        app.post('/test/hold', async () => {
          await app.db.transaction().execute(async (trx) => {
            await sql`SELECT 1`.execute(trx)
            holding()
            await new Promise<void>((resolve) => (releaseHold = resolve))
          })
          return { data: 'released' }
        })
      },
    })
  })
  after(async () => {
    if (ctx) await ctx.close()
  })

  test('a request finding the queue full answers 503 database_unavailable with Retry-After, and writes nothing', { skip: skipOnServer }, async () => {
    const caller = await ctx.newCaller()
    const hold = ctx.app.inject({ method: 'POST', url: '/test/hold' })
    await held
    const waiting = ctx.request('GET', '/v1/inventory/items', { key: caller.key })
    while (ctx.database.poolUsage().waiting < 1) await new Promise((resolve) => setImmediate(resolve))
    const refused = await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id: 'queue_full', name: 'Refused' } })
    assert.equal(refused.statusCode, 503, refused.body)
    assert.equal(json(refused).error.code, 'database_unavailable')
    assert.equal(refused.headers['retry-after'], '5')
    releaseHold()
    assert.equal((await hold).statusCode, 200)
    assert.equal((await waiting).statusCode, 200)
    const location = await ctx.request('GET', '/v1/locations/queue_full', { key: caller.key })
    assert.equal(location.statusCode, 404, 'the refused request created nothing')
  })

  test('/readyz answers 503 within its probe timeout while the one session is held, and 200 once it is free', { skip: skipOnServer }, async () => {
    const heldAgain = new Promise<void>((resolve) => (holding = resolve))
    const hold = ctx.app.inject({ method: 'POST', url: '/test/hold' })
    await heldAgain
    const started = Date.now()
    const unready = await ctx.request('GET', '/readyz', { key: null })
    const ms = Date.now() - started
    assert.equal(unready.statusCode, 503, unready.body)
    assert.equal(json(unready).error.code, 'database_unavailable')
    assert.equal(unready.headers['retry-after'], '5')
    assert.ok(ms >= ctx.config.databaseTimeouts.probeMs - 100 && ms < 2_000, `answered in ${ms} ms`)
    releaseHold()
    assert.equal((await hold).statusCode, 200)
    // The unanswered probe's SELECT 1 still had its place in the queue (of one): ready once it has run.
    let ready = await ctx.request('GET', '/readyz', { key: null })
    for (const deadline = Date.now() + 2_000; ready.statusCode !== 200 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      ready = await ctx.request('GET', '/readyz', { key: null })
    }
    assert.equal(ready.statusCode, 200, ready.body)
  })
})
