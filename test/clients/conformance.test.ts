import assert from 'node:assert/strict'
import { test } from 'node:test'
import { clientTestFile } from '../helpers/api-client.js'

// The test clients' run-time check is what proves the document against the server: this file shows
// it fails a call whose answer the document does not describe.

const BREAK_HEADER = 'x-test-break-answer'

const file = clientTestFile({
  configure(app) {
    // A server that has drifted from its document: the location list's `data` becomes a string.
    app.addHook('onSend', async (request, _reply, payload) => (request.headers[BREAK_HEADER] ? '{"data":"drifted"}' : payload))
  },
})

test('a client call fails when the answer does not match the document, and passes when it does', async () => {
  const api = await file.newClient()
  assert.ok((await api.GET('/v1/locations')).data)
  await assert.rejects(api.GET('/v1/locations', { headers: { [BREAK_HEADER]: '1' } }), /GET \/v1\/locations 200: the answer does not match the document/)
})
