import type { BackgroundLoop } from '../../src/platform/background.js'
import { startWebhookDispatcher, type DispatcherOptions } from '../../src/webhooks/dispatcher.js'
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from '../../src/webhooks/webhook-settings.js'
import type { TestContext as NodeTestContext } from 'node:test'
import { type Caller, json, type TestContext } from '../helpers/context.js'
import { type Receiver, type Responder, startReceiver } from './receiver.js'

/** Settings that run the whole retry life of a delivery in seconds. */
export const FAST_SETTINGS: WebhookSettings = {
  ...DEFAULT_WEBHOOK_SETTINGS,
  retry: { firstDelayMs: 100, maxDelayMs: 400, giveUpAfterMs: 60_000 },
  disableAfterMs: 60_000,
  pollIntervalMs: 50,
}

/** A dispatcher on the test context's database; stop it in the test. */
export function startTestDispatcher(
  ctx: TestContext,
  overrides: Partial<Omit<DispatcherOptions, 'settings'>> & { settings?: Partial<WebhookSettings> } = {},
): Promise<BackgroundLoop> {
  const { settings, ...rest } = overrides
  return startWebhookDispatcher({
    database: ctx.database,
    logger: ctx.app.log,
    allowPrivate: true,
    metrics: ctx.metrics,
    ...rest,
    settings: { ...FAST_SETTINGS, ...settings },
  })
}

/** A receiver and a dispatcher for one test, both stopped when the test ends. */
export async function withReceiverAndDispatcher(
  t: NodeTestContext,
  ctx: TestContext,
  respond?: Responder,
  overrides?: Parameters<typeof startTestDispatcher>[1],
): Promise<{ receiver: Receiver; dispatcher: BackgroundLoop }> {
  const receiver = await startReceiver(respond)
  const dispatcher = await startTestDispatcher(ctx, overrides)
  t.after(async () => {
    await dispatcher.stop()
    await receiver.close()
  })
  return { receiver, dispatcher }
}

/** Creates a webhook through the API; answers its create response (with the secret). */
export async function createWebhook(ctx: TestContext, caller: Caller, body: Record<string, unknown>) {
  const response = await ctx.request('POST', '/v1/webhooks', { key: caller.key, body })
  if (response.statusCode !== 201) throw new Error(`webhook create failed: ${response.statusCode} ${response.body}`)
  return json(response).data as { id: string; url: string; events: string[]; secret: string; status: string; created_at: string }
}

/** Polls `check` until it returns something other than undefined/false; fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** The webhook's deliveries as the API lists them. */
export async function deliveriesOf(ctx: TestContext, caller: Caller, webhookId: string, query = '') {
  const response = await ctx.request('GET', `/v1/webhooks/${webhookId}/deliveries${query}`, { key: caller.key })
  if (response.statusCode !== 200) throw new Error(`deliveries list failed: ${response.statusCode} ${response.body}`)
  return json(response) as { data: any[]; pagination: any }
}
