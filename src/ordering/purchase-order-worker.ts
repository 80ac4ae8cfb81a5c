import nodemailer from 'nodemailer'
import type { BackgroundLoop, WorkerDependencies } from '../platform/background.js'
import { startJobLoop } from '../platform/jobs.js'
import { composePurchaseOrder } from './purchase-order-mail.js'
import { claimDueDispatch, finishDispatch, loadPurchaseOrder, PURCHASE_ORDER_QUEUE } from './purchase-orders.repository.js'

export interface PurchaseOrderWorkerOptions {
  /** Delay before the first retry; each further retry waits twice as long, up to maxRetryDelayMs. */
  retryBaseMs: number
  maxRetryDelayMs: number
  /** Attempts before a dispatch is given up as failed. */
  maxAttempts: number
  /** How long a claimed dispatch stays with its worker before another may take it over. */
  leaseMs: number
  /** How often due retries are looked for when no NOTIFY arrives. */
  intervalMs: number
  /** SMTP connection, greeting and socket timeouts. */
  smtpTimeoutMs: number
}

// 30 s, 1, 2, 4, 8, 16, 32 min, then hourly: ten attempts span about four hours.
export const DEFAULT_PURCHASE_ORDER_WORKER_OPTIONS: PurchaseOrderWorkerOptions = {
  retryBaseMs: 30_000,
  maxRetryDelayMs: 3_600_000,
  maxAttempts: 10,
  leaseMs: 120_000,
  intervalMs: 15_000,
  smtpTimeoutMs: 30_000,
}

/** The wait before retry number `attempt` (1-based): exponential, capped. */
export function retryDelayMs(attempt: number, options: PurchaseOrderWorkerOptions): number {
  return Math.min(options.retryBaseMs * 2 ** (attempt - 1), options.maxRetryDelayMs)
}

const EMAIL_PATTERN = /[^\s<>"'@]+@[^\s<>"'@]+/g

/** An SMTP error as stored and shown: the server may echo the recipient, which is personal data. */
export function describeSendError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.replace(EMAIL_PATTERN, '<EMAIL>').slice(0, 500)
}

/**
 * E-mails submitted orders' purchase orders to their distributors through BARSTOCK_SMTP_URL, retrying
 * failures with exponential backoff. Without an SMTP URL submissions record their dispatch as skipped and
 * there is nothing to do, so no loop runs.
 */
export async function startPurchaseOrderWorker(deps: WorkerDependencies, overrides: Partial<PurchaseOrderWorkerOptions> = {}): Promise<BackgroundLoop> {
  const { config, database, logger } = deps
  if (!config.smtpUrl) return { wake() {}, async stop() {} }
  const options = { ...DEFAULT_PURCHASE_ORDER_WORKER_OPTIONS, ...overrides }
  const timeouts = { connectionTimeout: options.smtpTimeoutMs, greetingTimeout: options.smtpTimeoutMs, socketTimeout: options.smtpTimeoutMs }
  const transport = nodemailer.createTransport({ url: config.smtpUrl, ...timeouts })
  const db = database.db

  async function tick(): Promise<boolean> {
    const dispatch = await claimDueDispatch(db, options.leaseMs)
    if (!dispatch) return false
    const po = await loadPurchaseOrder(db, dispatch)
    const mail = composePurchaseOrder(po)
    try {
      await transport.sendMail({ from: config.smtpFrom, to: po.contact_email, ...mail })
      await finishDispatch(db, dispatch, { status: 'sent' })
      deps.metrics?.purchaseOrderDispatch('sent')
      logger.info({ order_id: po.id, dispatch_id: dispatch.id }, 'purchase order sent')
    } catch (error) {
      const finalAttempt = dispatch.attempts >= options.maxAttempts
      const message = describeSendError(error)
      await finishDispatch(db, dispatch, {
        status: finalAttempt ? 'failed' : 'pending',
        error: message,
        nextAttemptAt: new Date(Date.now() + retryDelayMs(dispatch.attempts, options)),
      })
      deps.metrics?.purchaseOrderDispatch(finalAttempt ? 'failed' : 'retrying')
      logger.warn({ order_id: po.id, dispatch_id: dispatch.id, attempt: dispatch.attempts, error: message }, 'purchase order not sent')
    }
    return true
  }

  const loop = await startJobLoop({ queue: PURCHASE_ORDER_QUEUE, database, logger, tick, intervalMs: options.intervalMs })
  return {
    wake: loop.wake,
    async stop() {
      await loop.stop()
      transport.close()
    },
  }
}
