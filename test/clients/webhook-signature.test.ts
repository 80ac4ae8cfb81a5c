import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { verifyWebhookSignature, WebhookSignatureError, type WebhookSignatureFailure } from '../../clients/typescript/src/index.js'
import { signatureHeader } from '../../src/webhooks/signature.js'
import { clientTestFile, succeeded } from '../helpers/api-client.js'
import { eventually, withReceiverAndDispatcher } from '../webhooks/support.js'

const SECRET = 'whsec_client-test'
const BODY = '{"id":"evt_1","event":"ping","timestamp":"2026-11-21T22:13:20.123Z","data":{"webhook_id":"wh_1"}}'
const SIGNED_AT = 1_795_250_000

async function failureOf(verification: Promise<void>): Promise<WebhookSignatureFailure> {
  const error = await verification.then(
    () => assert.fail('the verification passed'),
    (failure: unknown) => failure,
  )
  assert.ok(error instanceof WebhookSignatureError)
  return error.reason
}

describe('verifyWebhookSignature against the server’s signing function', () => {
  const header = signatureHeader(SECRET, BODY, SIGNED_AT)

  test('accepts the signed body, as text or bytes, up to 300 s after signing', async () => {
    await verifyWebhookSignature({ payload: BODY, header, secret: SECRET, nowSeconds: SIGNED_AT + 300 })
    await verifyWebhookSignature({ payload: new TextEncoder().encode(BODY), header, secret: SECRET, nowSeconds: SIGNED_AT })
  })

  test('accepts a header with several v1 signatures when one of them matches', async () => {
    const rotated = `t=${SIGNED_AT},v1=${'0'.repeat(64)},${header.split(',')[1]}`
    await verifyWebhookSignature({ payload: BODY, header: rotated, secret: SECRET, nowSeconds: SIGNED_AT })
  })

  test('refuses a changed body, another secret, an old delivery and a malformed header, each by its reason', async () => {
    const at = { nowSeconds: SIGNED_AT }
    const changed = BODY.replace('wh_1', 'wh_2')
    assert.equal(await failureOf(verifyWebhookSignature({ payload: changed, header, secret: SECRET, ...at })), 'signature_mismatch')
    assert.equal(await failureOf(verifyWebhookSignature({ payload: BODY, header, secret: 'whsec_other', ...at })), 'signature_mismatch')
    const late = { payload: BODY, header, secret: SECRET, nowSeconds: SIGNED_AT + 301 }
    assert.equal(await failureOf(verifyWebhookSignature(late)), 'timestamp_too_old')
    await verifyWebhookSignature({ ...late, toleranceSeconds: 600 })
    for (const malformed of ['', `v1=${'a'.repeat(64)}`, `t=${SIGNED_AT}`, `t=${SIGNED_AT},v1=XYZ`, `t=soon,v1=${'a'.repeat(64)}`]) {
      assert.equal(await failureOf(verifyWebhookSignature({ payload: BODY, header: malformed, secret: SECRET, ...at })), 'malformed_header', malformed)
    }
  })
})

describe('verifyWebhookSignature on a real delivery', () => {
  const file = clientTestFile({ env: { BARSTOCK_WEBHOOK_ALLOW_PRIVATE: '1' } })

  test('verifies the ping a webhook created through the client receives, and reads its delivery', async (t) => {
    const { receiver } = await withReceiverAndDispatcher(t, file.ctx)
    const api = await file.newClient()
    const created = await api.POST('/v1/webhooks', { body: { url: receiver.url, events: ['inventory.updated'] } })
    assert.ok(created.data, JSON.stringify(created.error))
    const webhook = created.data.data
    await api.POST('/v1/webhooks/{id}/test', { params: { path: { id: webhook.id } } })

    const [delivery] = await receiver.waitFor(1)
    const header = String(delivery!.headers['x-webhook-signature'])
    await verifyWebhookSignature({ payload: delivery!.body, header, secret: webhook.secret })
    const reason = await failureOf(verifyWebhookSignature({ payload: delivery!.body, header, secret: `${webhook.secret}x` }))
    assert.equal(reason, 'signature_mismatch')

    // The webhook's side of it, read through the client: listed, its ping delivered, then deleted.
    const path = { params: { path: { id: webhook.id } } }
    assert.deepEqual(
      succeeded(await api.GET('/v1/webhooks')).data.map((listed) => listed.id),
      [webhook.id],
    )
    await eventually(
      async () => {
        const deliveries = succeeded(await api.GET('/v1/webhooks/{id}/deliveries', path)).data
        return deliveries.find((attempted) => attempted.event === 'ping' && attempted.status === 'delivered')
      },
      10_000,
      'the ping listed as delivered',
    )
    succeeded(await api.DELETE('/v1/webhooks/{id}', path))
    const gone = await api.GET('/v1/webhooks/{id}', path)
    assert.equal(gone.error?.error.code, 'webhook_not_found')
  })
})
