import type { Caller, TestContext } from '../helpers/context.js'
import { json } from '../helpers/context.js'
import { listEvents } from '../../src/platform/outbox.js'
import type { EventKind } from '../../src/platform/outbox.js'

let codeCounter = 0

/** Creates a distributor through the API; fields override a plausible wholesaler. */
export async function createDistributor(ctx: TestContext, caller: Caller, fields: Record<string, unknown> = {}) {
  const response = await ctx.request('POST', '/v1/distributors', {
    key: caller.key,
    body: {
      name: 'Southern Glazer’s',
      distributor_code: `SG-${++codeCounter}`,
      region: 'northeast',
      contact_email: 'orders@wholesaler.example',
      min_order_amount: 0,
      lead_time_days: 3,
      ...fields,
    },
  })
  if (response.statusCode !== 201) throw new Error(`distributor create failed: ${response.statusCode} ${response.body}`)
  return json(response).data as { id: string; name: string; [key: string]: unknown }
}

export interface OrderLine {
  inventory_item_id: string
  quantity: number
  unit: string
}

/** Creates a draft order through the API and returns its data. */
export async function createOrder(ctx: TestContext, caller: Caller, distributorId: string, items: OrderLine[], extra: Record<string, unknown> = {}) {
  const response = await ctx.request('POST', '/v1/orders', {
    key: caller.key,
    body: { distributor_id: distributorId, location: 'main_bar', items, ...extra },
  })
  if (response.statusCode !== 201) throw new Error(`order create failed: ${response.statusCode} ${response.body}`)
  return json(response).data
}

/** Sends a request that must succeed and returns its `data`. */
export async function ok(ctx: TestContext, caller: Caller, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) {
  const response = await ctx.request(method, url, { key: caller.key, body })
  if (response.statusCode >= 300) throw new Error(`${method} ${url} failed: ${response.statusCode} ${response.body}`)
  return json(response).data
}

/** Moves a fresh draft through submit and processing to shipped. */
export async function shipOrder(ctx: TestContext, caller: Caller, orderId: string) {
  await ok(ctx, caller, 'POST', `/v1/orders/${orderId}/submit`)
  await ok(ctx, caller, 'PUT', `/v1/orders/${orderId}`, { status: 'processing' })
  return ok(ctx, caller, 'PUT', `/v1/orders/${orderId}`, { status: 'shipped', tracking_number: '1Z999', carrier: 'UPS' })
}

/** The caller's events of one kind, data only, oldest first. */
export async function eventsOf(ctx: TestContext, caller: Caller, kind: EventKind) {
  return (await listEvents(ctx.database.db, caller.tenant, kind)).map((event) => event.data as any)
}

/** Everything a failed request must leave as it was: the order, the events, the ledger, the stock. */
export async function snapshot(ctx: TestContext, caller: Caller, orderId?: string) {
  const events = await listEvents(ctx.database.db, caller.tenant)
  const orders = await ctx.request('GET', '/v1/orders', { key: caller.key })
  const order = orderId ? await ctx.request('GET', `/v1/orders/${orderId}`, { key: caller.key }) : undefined
  const items = await ctx.request('GET', '/v1/inventory/items', { key: caller.key })
  const ledger = await ctx.database.db
    .selectFrom('stock_movements')
    .select(['item_id', 'kind', 'delta'])
    .where('account_id', '=', caller.tenant.accountId)
    .orderBy('sequence')
    .execute()
  const dispatches = await ctx.database.db.selectFrom('purchase_order_dispatches').select(['order_id', 'status']).where('account_id', '=', caller.tenant.accountId).execute()
  return {
    events: events.map((event) => event.id),
    orders: json(orders).data,
    order: order && json(order).data,
    items: json(items).data,
    ledger,
    dispatches,
  }
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(check: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
