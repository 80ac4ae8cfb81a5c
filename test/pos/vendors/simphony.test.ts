import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { checksClosedBetween } from '../../../src/pos/simulation/bar-data.js'
import { businessDatesReaching } from '../../../src/pos/vendors/simphony/simphony.adapter.js'
import { OIDC_PATH, pkceChallenge, type SimphonyGuestCheck } from '../../../src/pos/vendors/simphony/simphony.client.js'
import { simphonyVendor } from '../../../src/pos/vendors/simphony/index.js'
import { collectSales, describeAdapterContract, startRecordingSimulator } from './adapter-contract.js'

describeAdapterContract(simphonyVendor)

const NOW = new Date('2026-11-20T15:00:00.000Z')
const SEED = 3
const HISTORY_DAYS = 30
const ORG = simphonyVendor.exampleCredentials.org_short_name as string

/** A simulator with a clock the test moves, recording every request path. */
async function recordedSimulator() {
  const clock = { now: NOW }
  const simulator = await startRecordingSimulator(simphonyVendor, { seed: SEED, historyDays: HISTORY_DAYS, now: () => clock.now })
  return {
    url: simulator.url,
    clock,
    /** Every request path so far. */
    get paths() {
      return simulator.requests.map((url) => url.pathname)
    },
  }
}

const count = (paths: string[], suffix: string) => paths.filter((path) => path.endsWith(suffix)).length

/** The PKCE sign-in done by hand, as a client of the simulator would. */
async function signInByHand(url: string, verifier = 'a-verifier-long-enough-for-pkce-0123456789'): Promise<{ status: number; body: Record<string, unknown> }> {
  const query = new URLSearchParams({ response_type: 'code', client_id: 'client', scope: 'openid', redirect_uri: 'apiaccount://callback', code_challenge: pkceChallenge(verifier), code_challenge_method: 'S256' })
  const authorize = await fetch(`${url}${OIDC_PATH}/authorize?${query}`)
  const cookie = (authorize.headers.get('set-cookie') ?? '').split(';')[0]!
  const signIn = await fetch(`${url}${OIDC_PATH}/signin`, { method: 'POST', headers: { cookie }, body: new URLSearchParams({ username: 'u', password: 'p', orgname: ORG }) })
  const code = new URL(((await signIn.json()) as { redirectUrl: string }).redirectUrl).searchParams.get('code')!
  const tokens = await fetch(`${url}${OIDC_PATH}/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: 'a-verifier-long-enough-for-pkce-0123456789', client_id: 'client', redirect_uri: 'apiaccount://callback' }),
  })
  return { status: tokens.status, body: (await tokens.json()) as Record<string, unknown> }
}

describe('simphony adapter', () => {
  test('signs in once and reuses the id token for every call', async () => {
    const simulator = await recordedSimulator()
    const adapter = simphonyVendor.createAdapter({ credentials: simphonyVendor.exampleCredentials, baseUrl: simulator.url })
    await adapter.verify()
    await adapter.listProducts()
    await adapter.listStaff()
    await collectSales(adapter.listSales({ start: new Date('2026-11-17T00:00:00Z'), end: new Date('2026-11-18T00:00:00Z') }))
    assert.equal(count(simulator.paths, '/signin'), 1)
    assert.equal(count(simulator.paths, '/token'), 1)
    assert.ok(simulator.paths.filter((path) => path.startsWith(`/bi/v1/${ORG}/`)).length >= 8)
  })

  test('renews an expired id token with the single-use refresh token, without signing in again', async () => {
    const simulator = await recordedSimulator()
    const adapter = simphonyVendor.createAdapter({ credentials: simphonyVendor.exampleCredentials, baseUrl: simulator.url })
    await adapter.listStaff()
    simulator.clock.now = new Date(NOW.getTime() + 2 * 3_600_000)
    assert.equal((await adapter.listStaff()).length, 6)
    simulator.clock.now = new Date(NOW.getTime() + 4 * 3_600_000)
    assert.equal((await adapter.listStaff()).length, 6)
    assert.equal(count(simulator.paths, '/signin'), 1)
    assert.equal(count(simulator.paths, '/token'), 3, 'one code exchange, then one refresh per expiry')
  })

  test('reads every business date a window can reach, one call each, and keeps only its checks', async () => {
    const simulator = await recordedSimulator()
    const adapter = simphonyVendor.createAdapter({ credentials: simphonyVendor.exampleCredentials, baseUrl: simulator.url })
    const start = new Date('2026-11-15T12:00:00.000Z')
    const end = new Date('2026-11-18T12:00:00.000Z')
    const lines = await collectSales(adapter.listSales({ start, end }))
    assert.equal(count(simulator.paths, '/getGuestChecks'), 6)
    const sold = checksClosedBetween(SEED, start, end, { now: NOW, historyDays: HISTORY_DAYS })
      .flatMap((check) => check.lines)
      .filter((line) => !line.voided && !line.refunded)
    assert.equal(lines.length, sold.length)
    assert.ok(lines.every((line) => line.staffName && line.tip !== null))
  })

  test('lists the business dates around a window', () => {
    assert.deepEqual(businessDatesReaching({ start: new Date('2026-11-15T12:00:00Z'), end: new Date('2026-11-16T00:00:00Z') }), [
      '2026-11-14',
      '2026-11-15',
      '2026-11-16',
    ])
    assert.deepEqual(businessDatesReaching({ start: new Date('2026-11-16T00:00:00Z'), end: new Date('2026-11-16T00:00:00Z') }), [])
  })
})

describe('simphony simulator', () => {
  test('refuses a spent refresh token and a wrong code verifier', async () => {
    const simulator = await recordedSimulator()
    const { body } = await signInByHand(simulator.url)
    const refresh = (refreshToken: string) =>
      fetch(`${simulator.url}${OIDC_PATH}/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'client' }) })
    assert.equal((await refresh(body.refresh_token as string)).status, 200)
    const spent = await refresh(body.refresh_token as string)
    assert.equal(spent.status, 400)
    assert.equal(((await spent.json()) as { error: string }).error, 'invalid_grant')
    assert.equal((await signInByHand(simulator.url, 'another-verifier-entirely-0123456789-xyz')).status, 400)
  })

  test('serves guest checks with numbers for money and UTC times without a zone; BI errors carry numeric codes', async () => {
    const simulator = await recordedSimulator()
    const { body: tokens } = await signInByHand(simulator.url)
    const call = (operation: string, body: unknown, token = tokens.id_token as string) =>
      fetch(`${simulator.url}/bi/v1/${ORG}/${operation}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })

    const answer = (await (await call('getGuestChecks', { locRef: 'BAR01', clsdBusDt: '2026-11-14' })).json()) as { guestChecks: SimphonyGuestCheck[] }
    const check = answer.guestChecks[0]!
    assert.match(check.clsdUTC!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/)
    assert.equal(typeof check.detailLines[0]!.aggTtl, 'number')
    assert.equal(typeof check.tipTtl, 'number')
    assert.ok(answer.guestChecks.some((guestCheck) => guestCheck.detailLines.some((line) => line.vdFlag)), 'a busy day has voids')

    const invalid = await call('getGuestChecks', { locRef: 'BAR01' })
    assert.equal(invalid.status, 400)
    assert.equal(typeof ((await invalid.json()) as { errorCode: unknown }).errorCode, 'number')
    assert.equal((await call('getMenuItemDimensions', { locRef: 'BAR01' }, 'not-a-token')).status, 401)
  })
})
