import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { SMTPServer } from 'smtp-server'
import type { BackgroundLoop } from '../../src/platform/background.js'
import { describeSendError, startPurchaseOrderWorker } from '../../src/ordering/purchase-order-worker.js'
import { createTestContext, type Caller, type TestContext } from '../helpers/context.js'
import { scrape } from '../helpers/prometheus.js'
import { createItem } from '../helpers/inventory.js'
import { createDistributor, createOrder, ok, waitFor } from './fixtures.js'

interface ReceivedMail {
  from: string
  to: string[]
  raw: string
}

/**
 * A real SMTP server on 127.0.0.1 that keeps what it receives. With `hold`, it answers no message until
 * the test does: `held[n].accept()`, or `.reject()` with a 451 (which the worker retries).
 */
async function startSmtp(port: number, options: { hold?: boolean } = {}) {
  const inbox: ReceivedMail[] = []
  const held: Array<{ accept(): void; reject(): void }> = []
  const refusal = Object.assign(new Error('451 try again later'), { responseCode: 451 })
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        inbox.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        if (options.hold) held.push({ accept: () => callback(), reject: () => callback(refusal) })
        else callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return { inbox, held, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/** The message as text: soft line breaks joined, =XX escapes turned back into UTF-8. */
function decodeQuotedPrintable(raw: string): string {
  const bytes = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  return Buffer.from(bytes, 'latin1').toString('utf8')
}

/** A port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

const FAST_RETRIES = { retryBaseMs: 100, maxRetryDelayMs: 200, intervalMs: 50, leaseMs: 5_000, smtpTimeoutMs: 2_000 }

async function submittedOrder(ctx: TestContext, caller: Caller) {
  const distributor = await createDistributor(ctx, caller, { name: 'Johnson Brothers', contact_email: 'sales@johnson.example', distributor_code: 'JB-77' })
  const gin = await createItem(ctx, caller, { name: 'Hendrick’s Gin 750ml', cost_per_unit: 31.5, case_size: 6 })
  const tonic = await createItem(ctx, caller, { name: 'Fever-Tree Tonic', category: 'mixer', unit: 'can', size_ml: 200, cost_per_unit: 1.25 })
  const order = await createOrder(
    ctx,
    caller,
    distributor.id,
    [
      { inventory_item_id: gin.id, quantity: 2, unit: 'case' },
      { inventory_item_id: tonic.id, quantity: 24, unit: 'can' },
    ],
    { notes: 'Deliver <before> 11am & ring' },
  )
  return ok(ctx, caller, 'POST', `/v1/orders/${order.id}/submit`)
}

async function dispatchOf(ctx: TestContext, orderId: string) {
  return ctx.database.db.selectFrom('purchase_order_dispatches').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow()
}

const METRICS_TOKEN = 'purchase-order-metrics-token'
const DISPATCHES = 'barstock_purchase_order_dispatches_total'

describe('purchase-order e-mail', () => {
  let port: number
  let ctx: TestContext
  let worker: BackgroundLoop
  before(async () => {
    port = await freePort()
    ctx = await createTestContext({
      env: { BARSTOCK_SMTP_URL: `smtp://127.0.0.1:${port}`, BARSTOCK_SMTP_FROM: 'Barstock <orders@bar.example>', BARSTOCK_METRICS_TOKEN: METRICS_TOKEN },
    })
    worker = await startPurchaseOrderWorker({ config: ctx.config, database: ctx.database, logger: ctx.app.log }, FAST_RETRIES)
  })
  after(async () => {
    await worker.stop()
    await ctx.close()
  })

  test('an unreachable SMTP server never fails the submit; the retry delivers once the server is up', async () => {
    const caller = await ctx.newCaller()
    const submitted = await submittedOrder(ctx, caller)
    assert.equal(submitted.status, 'submitted')
    const failing = await waitFor(async () => {
      const dispatch = await dispatchOf(ctx, submitted.id)
      return dispatch.attempts >= 2 && dispatch.status === 'pending' && dispatch
    })
    assert.match(failing.last_error ?? '', /ECONNREFUSED|connect/i)
    assert.equal((await ok(ctx, caller, 'GET', `/v1/orders/${submitted.id}`)).purchase_order.status, 'pending')

    const smtp = await startSmtp(port)
    try {
      const sent = await waitFor(async () => {
        const dispatch = await dispatchOf(ctx, submitted.id)
        return dispatch.status === 'sent' && dispatch
      })
      assert.equal(sent.last_error, null)
      assert.equal(smtp.inbox.length, 1)
      const mail = smtp.inbox[0]!
      assert.deepEqual(mail.to, ['sales@johnson.example'])
      assert.equal(mail.from, 'orders@bar.example')
      const unfolded = decodeQuotedPrintable(mail.raw)
      assert.match(unfolded, new RegExp(`Subject: Purchase order ${submitted.confirmation_number}`))
      assert.match(unfolded, /multipart\/alternative/)
      assert.match(unfolded, /text\/plain/)
      assert.match(unfolded, /text\/html/)
      assert.match(unfolded, /Fever-Tree Tonic/)
      assert.match(unfolded, /2 case at 189\.00 = 378\.00/)
      assert.match(unfolded, /Order total: 408\.00/)
      assert.match(unfolded, /Account number: JB-77/)
      // Notes are escaped in the HTML part.
      assert.match(unfolded, /&lt;before&gt; 11am &amp; ring/)
      const order = await ok(ctx, caller, 'GET', `/v1/orders/${submitted.id}`)
      assert.equal(order.purchase_order.status, 'sent')
      assert.ok(order.purchase_order.sent_at)
    } finally {
      await smtp.close()
    }
  })

  test('a purchase order cancelled before it went out is not sent', async () => {
    const caller = await ctx.newCaller()
    await worker.stop()
    const submitted = await submittedOrder(ctx, caller)
    await ok(ctx, caller, 'DELETE', `/v1/orders/${submitted.id}`)
    worker = await startPurchaseOrderWorker({ config: ctx.config, database: ctx.database, logger: ctx.app.log }, FAST_RETRIES)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const dispatch = await dispatchOf(ctx, submitted.id)
    assert.equal(dispatch.status, 'cancelled')
    assert.equal(dispatch.attempts, 0)
  })

  test('a worker whose lease runs out mid-send loses the dispatch to another; its late outcome is not recorded', async (t) => {
    if (ctx.database.kind === 'pglite') {
      t.skip('needs PostgreSQL: two workers claiming side by side need real concurrency, and PGlite serialises everything on one connection')
      return
    }
    const caller = await ctx.newCaller()
    await worker.stop()
    const smtp = await startSmtp(port, { hold: true })
    const deps = { config: ctx.config, database: ctx.database, logger: ctx.app.log, metrics: ctx.metrics }
    // The first worker's lease is short and its SMTP timeout long: the server holding its message makes it a stuck worker.
    const stuck = await startPurchaseOrderWorker(deps, { ...FAST_RETRIES, leaseMs: 300, smtpTimeoutMs: 120_000 })
    let other: BackgroundLoop | undefined
    try {
      const submitted = await submittedOrder(ctx, caller)
      await waitFor(async () => smtp.held.length === 1)
      // Started only now, so the first claim was the stuck worker's; it takes the dispatch over once that lease has run out.
      other = await startPurchaseOrderWorker(deps, { ...FAST_RETRIES, leaseMs: 120_000, smtpTimeoutMs: 120_000 })
      await waitFor(async () => smtp.held.length === 2, 30_000)
      assert.equal((await dispatchOf(ctx, submitted.id)).attempts, 2, 'claimed a second time')

      // The stuck worker's attempt fails first and is not recorded: the dispatch is the other worker's now.
      const before = await scrape(ctx, METRICS_TOKEN)
      smtp.held[0]!.reject()
      await waitFor(async () => (await scrape(ctx, METRICS_TOKEN)).value(DISPATCHES, { outcome: 'retrying' }) > before.value(DISPATCHES, { outcome: 'retrying' }))
      const meanwhile = await dispatchOf(ctx, submitted.id)
      assert.deepEqual({ status: meanwhile.status, attempts: meanwhile.attempts, last_error: meanwhile.last_error }, { status: 'sending', attempts: 2, last_error: null })

      smtp.held[1]!.accept()
      const sent = await waitFor(async () => {
        const dispatch = await dispatchOf(ctx, submitted.id)
        return dispatch.status === 'sent' && dispatch
      })
      assert.deepEqual({ attempts: sent.attempts, last_error: sent.last_error, lease_expires_at: sent.lease_expires_at }, { attempts: 2, last_error: null, lease_expires_at: null })
      assert.equal(smtp.held.length, 2, 'no third attempt')
    } finally {
      await stuck.stop()
      await other?.stop()
      await smtp.close()
      worker = await startPurchaseOrderWorker({ config: ctx.config, database: ctx.database, logger: ctx.app.log }, FAST_RETRIES)
    }
  })

  test('gives a dispatch up as failed after the last attempt, and counts each attempt by outcome', async () => {
    const caller = await ctx.newCaller()
    await worker.stop()
    const deps = { config: ctx.config, database: ctx.database, logger: ctx.app.log, metrics: ctx.metrics }
    worker = await startPurchaseOrderWorker(deps, { ...FAST_RETRIES, maxAttempts: 2 })
    const before = await scrape(ctx, METRICS_TOKEN)
    const submitted = await submittedOrder(ctx, caller)
    const failed = await waitFor(async () => {
      const dispatch = await dispatchOf(ctx, submitted.id)
      return dispatch.status === 'failed' && dispatch
    })
    assert.equal(failed.attempts, 2)
    assert.equal((await ok(ctx, caller, 'GET', `/v1/orders/${submitted.id}`)).status, 'submitted')
    // The count follows the dispatch's commit by a moment: wait for it rather than race it.
    const after = await waitFor(async () => {
      const exposition = await scrape(ctx, METRICS_TOKEN)
      return exposition.value(DISPATCHES, { outcome: 'failed' }) > before.value(DISPATCHES, { outcome: 'failed' }) && exposition
    })
    const added = (outcome: string) => after.value(DISPATCHES, { outcome }) - before.value(DISPATCHES, { outcome })
    assert.deepEqual({ retrying: added('retrying'), failed: added('failed'), sent: added('sent') }, { retrying: 1, failed: 1, sent: 0 })
  })
})

describe('purchase-order e-mail without BARSTOCK_SMTP_URL', () => {
  test('records the dispatch as skipped, and the worker does not run', async () => {
    const ctx = await createTestContext()
    try {
      const worker = await startPurchaseOrderWorker({ config: ctx.config, database: ctx.database, logger: ctx.app.log }, FAST_RETRIES)
      const caller = await ctx.newCaller()
      const submitted = await submittedOrder(ctx, caller)
      await new Promise((resolve) => setTimeout(resolve, 200))
      const dispatch = await dispatchOf(ctx, submitted.id)
      assert.equal(dispatch.status, 'skipped')
      assert.equal(dispatch.attempts, 0)
      await worker.stop()
    } finally {
      await ctx.close()
    }
  })
})

describe('describeSendError', () => {
  test('keeps addresses an SMTP server echoes out of the stored error', () => {
    const error = new Error("Can't send mail - all recipients were rejected: 550 5.1.1 <sales@johnson.example>: Recipient address rejected")
    const described = describeSendError(error)
    assert.ok(!described.includes('sales@johnson.example'))
    assert.match(described, /<<EMAIL>>: Recipient address rejected/)
  })
})
