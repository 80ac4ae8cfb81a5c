import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { after, before, test } from 'node:test'
import { json, type TestContext } from '../helpers/context.js'
import { createPosTestContext, SQUARE_CREDENTIALS } from './pos-helpers.js'

let ctx: TestContext
let closedPort: number

before(async () => {
  // A port that was just free: nothing listens there, so connecting is refused.
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  closedPort = (probe.address() as { port: number }).port
  await new Promise((resolve) => probe.close(resolve))
  ctx = await createPosTestContext({ env: { BARSTOCK_POS_BASE_URLS: `square=http://127.0.0.1:${closedPort}` } })
})
after(() => ctx.close())

test('answers 502 connection_failed when the production POS cannot be reached, and creates nothing', async () => {
  const caller = await ctx.newCaller({ environment: 'production' })
  const response = await ctx.request('POST', '/v1/pos/connections', {
    key: caller.key,
    body: { pos_type: 'square', name: 'Live', credentials: SQUARE_CREDENTIALS },
  })
  assert.equal(response.statusCode, 502)
  assert.equal(json(response).error.code, 'connection_failed')
  const list = json(await ctx.request('GET', '/v1/pos/connections', { key: caller.key }))
  assert.equal(list.pagination.total, 0)
})
