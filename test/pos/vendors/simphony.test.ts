import assert from 'node:assert/strict'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { after, describe, test } from 'node:test'
import Big from 'big.js'
import { PosAdapterError, type PosAdapter, type PosSaleLine, type SalesWindow } from '../../../src/pos/vendors/adapter.js'
import { checksClosedBetween, menuEntry, MODIFIERS, type SimCheck, type SimLine } from '../../../src/pos/simulation/bar-data.js'
import { readBody, startSimulatorServer, type RunningSimulator } from '../../../src/pos/simulation/simulator-server.js'
import { businessDatesReaching } from '../../../src/pos/vendors/simphony/simphony.adapter.js'
import { OIDC_PATH, pkceChallenge } from '../../../src/pos/vendors/simphony/simphony.client.js'
import { guestCheckIdOf, postedToBiAt } from '../../../src/pos/vendors/simphony/simphony.simulator.js'
import { simphonyVendor } from '../../../src/pos/vendors/simphony/index.js'
import { collectSales, describeAdapterContract, SIMULATOR_TIMEOUT_MS } from './adapter-contract.js'
import { DAY_MS } from '../../../src/platform/zoned-time.js'

describeAdapterContract(simphonyVendor)

const NOW = new Date('2026-11-20T15:00:00.000Z')
const SEED = 3
const HISTORY_DAYS = 30
const ORG = simphonyVendor.exampleCredentials.org_short_name as string
const MINUTE_MS = 60_000
/** The core reads each window from the previous one's end minus this overlap. */
const CURSOR_OVERLAP_MS = 10 * MINUTE_MS

const running: RunningSimulator[] = []
after(async () => {
  await Promise.all(running.map((simulator) => simulator.close()))
})

interface BiCall {
  operation: string
  body: Record<string, unknown>
}

/**
 * The simulator behind a recorder: a clock the test moves, every request path and every BI call's
 * body, and an optional rewrite of BI answers (a vendor answering a shape it never documented).
 */
async function recordedSimulator(rewrite?: (operation: string, answer: Record<string, unknown>) => void) {
  const clock = { now: NOW }
  const handler = simphonyVendor.createSimulator({ seed: SEED, historyDays: HISTORY_DAYS, now: () => clock.now })
  const paths: string[] = []
  const calls: BiCall[] = []
  const server = await startSimulatorServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://simulator').pathname
    paths.push(path)
    const text = await readBody(req)
    const operation = /^\/bi\/v1\/[^/]+\/([A-Za-z]+)$/.exec(path)?.[1]
    if (operation) calls.push({ operation, body: JSON.parse(text) as Record<string, unknown> })
    if (operation && rewrite) rewriteAnswer(res, (answer) => rewrite(operation, answer))
    // The simulator reads the body again: hand it a request that replays it.
    handler(Object.assign(Readable.from([text]), { method: req.method, url: req.url, headers: req.headers }) as unknown as IncomingMessage, res)
  })
  running.push(server)
  const adapter = simphonyVendor.createAdapter({ credentials: simphonyVendor.exampleCredentials, baseUrl: server.url, timeoutMs: SIMULATOR_TIMEOUT_MS })
  return { url: server.url, clock, paths, calls, adapter }
}

function rewriteAnswer(res: ServerResponse, change: (answer: Record<string, unknown>) => void): void {
  const end = res.end.bind(res) as (chunk: string) => typeof res
  res.end = ((chunk: string) => {
    const answer = JSON.parse(chunk) as Record<string, unknown>
    change(answer)
    return end(JSON.stringify(answer))
  }) as typeof res.end
}

const count = (paths: string[], suffix: string) => paths.filter((path) => path.endsWith(suffix)).length

/** The PKCE sign-in done by hand, as a client of the simulator would. */
async function signInByHand(url: string, verifier = 'a-verifier-long-enough-for-pkce-0123456789'): Promise<{ status: number; body: Record<string, unknown> }> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'client',
    scope: 'openid',
    redirect_uri: 'apiaccount://callback',
    code_challenge: pkceChallenge(verifier),
    code_challenge_method: 'S256',
  })
  const authorize = await fetch(`${url}${OIDC_PATH}/authorize?${query}`)
  const cookie = (authorize.headers.get('set-cookie') ?? '').split(';')[0]!
  const signIn = await fetch(`${url}${OIDC_PATH}/signin`, { method: 'POST', headers: { cookie }, body: new URLSearchParams({ username: 'u', password: 'p', orgname: ORG }) })
  const code = new URL(((await signIn.json()) as { redirectUrl: string }).redirectUrl).searchParams.get('code')!
  const tokens = await fetch(`${url}${OIDC_PATH}/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: 'a-verifier-long-enough-for-pkce-0123456789',
      client_id: 'client',
      redirect_uri: 'apiaccount://callback',
    }),
  })
  return { status: tokens.status, body: (await tokens.json()) as Record<string, unknown> }
}

/** A BI operation called by hand with a fresh id token. */
async function biCaller(url: string) {
  const { body: tokens } = await signInByHand(url)
  return (operation: string, body: unknown) =>
    fetch(`${url}/bi/v1/${ORG}/${operation}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.id_token as string}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
}

/** The first check of the bar's recent history that `fits`, and its line that does. */
function findCheck(fits: (check: SimCheck) => SimLine | boolean | undefined): { check: SimCheck; line: SimLine } {
  const checks = checksClosedBetween(SEED, new Date(NOW.getTime() - 20 * DAY_MS), new Date(NOW.getTime() - 3 * DAY_MS), { now: NOW, historyDays: HISTORY_DAYS })
  for (const check of checks) {
    const fit = fits(check)
    if (fit) return { check, line: fit === true ? check.lines[0]! : fit }
  }
  throw new Error('the simulated bar has no such check')
}

const postedAtOnce = (check: SimCheck) => postedToBiAt(SEED, check).getTime() === check.closedAt.getTime()
const hasLaterEvents = (check: SimCheck) => check.reclosedAt !== null || check.lines.some((line) => line.refundedAt || line.voidedAfterCloseAt)

/** Reads a window with the simulator's clock at its end, as a sync at that moment would; only the lines of `check`. */
async function syncWindow(simulator: Awaited<ReturnType<typeof recordedSimulator>>, window: SalesWindow, check: SimCheck): Promise<PosSaleLine[]> {
  simulator.clock.now = window.end
  const lines = await collectSales(simulator.adapter.listSales(window))
  return lines.filter((line) => line.checkId === String(guestCheckIdOf(check)))
}

const windowUntil = (start: Date, end: Date): SalesWindow => ({ start, end })
const nextWindow = (previous: SalesWindow, end: Date): SalesWindow => ({ start: new Date(previous.end.getTime() - CURSOR_OVERLAP_MS), end })
const at = (time: Date, minutes: number) => new Date(time.getTime() + minutes * MINUTE_MS)

async function posItemId(adapter: PosAdapter, itemKey: string): Promise<string> {
  const product = (await adapter.listProducts()).find((candidate) => candidate.name === menuEntry(itemKey).name)
  assert.ok(product, `${itemKey} is listed`)
  return product.posItemId
}

describe('simphony adapter', () => {
  test('signs in once and reuses the id token for every call', async () => {
    const simulator = await recordedSimulator()
    await simulator.adapter.verify()
    await simulator.adapter.listProducts()
    await simulator.adapter.listStaff()
    await collectSales(simulator.adapter.listSales({ start: new Date('2026-11-17T00:00:00Z'), end: new Date('2026-11-18T00:00:00Z') }))
    assert.equal(count(simulator.paths, '/signin'), 1)
    assert.equal(count(simulator.paths, '/token'), 1)
    assert.ok(simulator.paths.filter((path) => path.startsWith(`/bi/v1/${ORG}/`)).length >= 8)
  })

  test('renews an expired id token with the single-use refresh token, without signing in again', async () => {
    const simulator = await recordedSimulator()
    await simulator.adapter.listStaff()
    simulator.clock.now = new Date(NOW.getTime() + 2 * 3_600_000)
    assert.equal((await simulator.adapter.listStaff()).length, 6)
    simulator.clock.now = new Date(NOW.getTime() + 4 * 3_600_000)
    assert.equal((await simulator.adapter.listStaff()).length, 6)
    assert.equal(count(simulator.paths, '/signin'), 1)
    assert.equal(count(simulator.paths, '/token'), 3, 'one code exchange, then one refresh per expiry')
  })

  test('verifies a connection with getLatestBusDt, the operation Oracle documents', async () => {
    const simulator = await recordedSimulator()
    await simulator.adapter.verify()
    assert.deepEqual(simulator.calls, [{ operation: 'getLatestBusDt', body: { locRef: 'BAR01' } }])
  })

  test('reads every business date a window can reach once, asking only for checks changed since the window start', async () => {
    const simulator = await recordedSimulator()
    await collectSales(simulator.adapter.listSales({ start: new Date('2026-11-15T12:00:00.000Z'), end: new Date('2026-11-18T12:00:00.000Z') }))
    const reads = simulator.calls.filter((call) => call.operation === 'getGuestChecks').map((call) => call.body)
    assert.deepEqual(
      reads,
      ['2026-11-14', '2026-11-15', '2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19'].map((date) => ({
        locRef: 'BAR01',
        clsdBusDt: date,
        changedSinceUTC: '2026-11-15T12:00:00',
      })),
    )
  })

  test('lists a modifier as a line of its own item, linked to the line it modifies', async () => {
    const { check, line } = findCheck(
      (candidate) => !hasLaterEvents(candidate) && postedAtOnce(candidate) && candidate.lines.find((sold) => !sold.voided && sold.modifiers.length > 0),
    )
    const simulator = await recordedSimulator()
    const lines = await syncWindow(simulator, windowUntil(at(check.closedAt, -60), at(check.closedAt, 1)), check)
    const modifier = line.modifiers[0]!
    const modifierLine = lines.find((candidate) => candidate.name === menuEntry(modifier.itemKey).name && candidate.parentLineId)
    assert.ok(modifierLine, 'the modifier is a line of its own')
    const parent = lines.find((candidate) => candidate.lineId === modifierLine.parentLineId)
    assert.equal(parent?.name, menuEntry(line.itemKey).name)
    assert.equal(modifierLine.posItemId, await posItemId(simulator.adapter, modifier.itemKey))
    assert.equal(modifierLine.quantity, String(modifier.quantity))
    assert.equal(modifierLine.unitPrice, modifier.unitPrice)
    const products = await simulator.adapter.listProducts()
    assert.deepEqual(
      products
        .filter((product) => product.category === 'Modifiers')
        .map((product) => product.name)
        .sort(),
      MODIFIERS.map((entry) => entry.name).sort(),
    )
  })

  for (const kind of ['return', 'void after close'] as const) {
    test(`reports a ${kind} made in a later window as a correction of the line sold in the earlier one`, async () => {
      const takenBackAt = (line: SimLine) => (kind === 'return' ? line.refundedAt : line.voidedAfterCloseAt)
      // Taken back well after the first window, which ends past the close by more than the core's overlap.
      const { check, line } = findCheck(
        (candidate) =>
          postedAtOnce(candidate) &&
          candidate.reclosedAt === null &&
          candidate.lines.filter((sold) => takenBackAt(sold)).length === 1 &&
          candidate.lines.find((sold) => (takenBackAt(sold)?.getTime() ?? 0) > at(candidate.closedAt, 30).getTime()),
      )
      const correctedAt = takenBackAt(line)!
      const simulator = await recordedSimulator()
      const first = windowUntil(at(check.closedAt, -60), at(check.closedAt, 15))
      const sold = await syncWindow(simulator, first, check)
      const original = sold.find((candidate) => candidate.name === menuEntry(line.itemKey).name && !candidate.parentLineId)
      assert.ok(original, 'the first window shows the sale')
      assert.ok(
        sold.every((candidate) => !candidate.correctsLineId),
        'and nothing taken back yet',
      )

      const corrections = await syncWindow(simulator, nextWindow(first, at(correctedAt, 1)), check)
      assert.ok(corrections.length > 0 && corrections.every((candidate) => candidate.correctsLineId), 'the later window shows the correction only')
      const correction = corrections.find((candidate) => candidate.correctsLineId === original.lineId)
      assert.ok(correction, 'the correction names the sold line')
      assert.equal(correction.quantity, String(-line.quantity))
      assert.equal(correction.unitPrice, line.unitPrice)
      assert.equal(correction.posItemId, original.posItemId)
      assert.equal(correction.soldAt.getTime(), correctedAt.getTime())
      assert.equal(corrections.length, 1 + line.modifiers.length, 'the line and its modifiers are taken back')
    })
  }

  test('counts a line added on a reopened check once the check is closed again, and nothing of the check twice', async () => {
    const { check } = findCheck(
      (candidate) =>
        postedAtOnce(candidate) &&
        candidate.reclosedAt !== null &&
        candidate.reclosedAt > at(candidate.closedAt, 30) &&
        !candidate.lines.some((line) => line.refundedAt || line.voidedAfterCloseAt),
    )
    const added = check.lines.find((line) => line.addedOnReopen)!
    const simulator = await recordedSimulator()
    const first = windowUntil(at(check.closedAt, -60), at(check.reclosedAt!, -1))
    const firstLines = await syncWindow(simulator, first, check)
    const firstRound = check.lines.filter((line) => !line.addedOnReopen && !line.voided)
    assert.equal(firstLines.length, firstRound.length + firstRound.reduce((modifiers, line) => modifiers + line.modifiers.length, 0), 'the reopened check shows its first state')

    const secondLines = await syncWindow(simulator, nextWindow(first, at(check.reclosedAt!, 1)), check)
    assert.equal(secondLines.length, 1, 'only the added line is new')
    assert.equal(secondLines[0]!.name, menuEntry(added.itemKey).name)
    assert.equal(secondLines[0]!.quantity, String(added.quantity))
    assert.equal(secondLines[0]!.soldAt.getTime(), check.reclosedAt!.getTime())
    assert.ok(!firstLines.some((line) => line.lineId === secondLines[0]!.lineId))
  })

  test('picks up a check that reached the BI API after the window it closed in was read', async () => {
    const { check } = findCheck((candidate) => !hasLaterEvents(candidate) && postedToBiAt(SEED, candidate).getTime() > at(candidate.closedAt, 30).getTime())
    const postedAt = postedToBiAt(SEED, check)
    const simulator = await recordedSimulator()
    const first = windowUntil(at(check.closedAt, -60), at(check.closedAt, 15))
    assert.deepEqual(await syncWindow(simulator, first, check), [], 'not in the BI API yet')

    const late = await syncWindow(simulator, nextWindow(first, at(postedAt, 1)), check)
    const sold = check.lines.filter((line) => !line.voided).flatMap((line) => [line, ...line.modifiers])
    assert.equal(late.reduce((units, line) => units.plus(line.quantity), new Big(0)).toString(), String(sold.reduce((units, line) => units + line.quantity, 0)))
    assert.ok(
      late.every((line) => line.soldAt.getTime() === check.closedAt.getTime()),
      'sold when the check closed',
    )
  })

  test("splits the check's tipTotal over its lines", async () => {
    const { check } = findCheck((candidate) => !hasLaterEvents(candidate) && postedAtOnce(candidate) && Number(candidate.tip) > 0 && candidate.lines.length > 1)
    const simulator = await recordedSimulator()
    const lines = await syncWindow(simulator, windowUntil(at(check.closedAt, -60), at(check.closedAt, 1)), check)
    assert.equal(lines.reduce((tips, line) => tips.plus(line.tip ?? '0'), new Big(0)).toFixed(2), check.tip)
    assert.ok(lines.every((line) => line.staffName !== null))
  })

  test('fails with invalid_response naming the field when a guest check comes in a shape Oracle does not document', async () => {
    const simulator = await recordedSimulator((operation, answer) => {
      if (operation !== 'getGuestChecks') return
      const [check] = answer.guestChecks as { detailLines: Record<string, unknown>[] }[]
      const [line] = check!.detailLines
      line!.qty = line!.aggQty
      delete line!.aggQty
    })
    await assert.rejects(collectSales(simulator.adapter.listSales({ start: new Date('2026-11-17T00:00:00Z'), end: new Date('2026-11-18T00:00:00Z') })), (error) => {
      assert.ok(error instanceof PosAdapterError)
      assert.equal(error.kind, 'invalid_response')
      assert.match(error.message, /guestChecks\/0\/detailLines\/0.*aggQty/)
      return true
    })
  })

  test('lists the business dates around a window', () => {
    assert.deepEqual(businessDatesReaching({ start: new Date('2026-11-15T12:00:00Z'), end: new Date('2026-11-16T00:00:00Z') }), ['2026-11-14', '2026-11-15', '2026-11-16'])
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

  test('answers getLatestBusDt with latestBusDt, and 404 for getLatestBusinessDate, which Oracle does not have', async () => {
    const simulator = await recordedSimulator()
    const call = await biCaller(simulator.url)
    const answer = await call('getLatestBusDt', { locRef: 'BAR01' })
    assert.equal(answer.status, 200)
    assert.deepEqual(await answer.json(), { curUTC: '2026-11-20T15:00:00', latestBusDt: '2026-11-20', locRef: 'BAR01', softwareVersion: '19.7.0.0' })
    assert.equal((await call('getLatestBusinessDate', { locRef: 'BAR01' })).status, 404)
  })

  test('serves guest checks with numbers for money, UTC times without a zone, condiments linked by parDtlId and negative take-back lines', async () => {
    const simulator = await recordedSimulator()
    const call = await biCaller(simulator.url)
    const answer = (await (await call('getGuestChecks', { locRef: 'BAR01', clsdBusDt: '2026-11-14' })).json()) as { guestChecks: Record<string, unknown>[] }
    const check = answer.guestChecks[0]!
    assert.match(check.clsdUTC as string, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/)
    assert.equal(typeof check.tipTotal, 'number')
    assert.equal(check.tipTtl, undefined)
    const lines = answer.guestChecks.flatMap(
      (guestCheck) => guestCheck.detailLines as { aggQty: number; aggTtl: number; vdFlag: boolean; returnFlag: boolean; parDtlId: number | null }[],
    )
    assert.ok(
      lines.some((line) => line.vdFlag && line.aggQty < 0 && line.aggTtl < 0),
      'a busy day has voids, as negative lines',
    )
    assert.ok(
      lines.some((line) => line.returnFlag && line.aggQty < 0 && line.aggTtl < 0),
      'and returns',
    )
    assert.ok(
      lines.some((line) => line.parDtlId !== null),
      'and condiments',
    )
  })

  test('refuses a request with an unknown or malformed field with a 400 naming it', async () => {
    const simulator = await recordedSimulator()
    const call = await biCaller(simulator.url)
    const refusal = async (body: unknown) => {
      const answer = await call('getGuestChecks', body)
      assert.equal(answer.status, 400)
      return ((await answer.json()) as { errorCode: number; message: string }).message
    }
    assert.match(await refusal({ locRef: 'BAR01', clsdBusDt: '2026-11-14', changedSince: '2026-11-14T00:00:00' }), /unknown field changedSince/)
    assert.match(await refusal({ locRef: 'BAR01', clsdBusDt: '2026-11-14', changedSinceUTC: '2026-11-14T00:00:00.000Z' }), /changedSinceUTC/)
    assert.match(await refusal({ locRef: 'BAR01', clsdBusDt: '14/11/2026' }), /clsdBusDt/)
    assert.match(await refusal({ locRef: 'BAR01' }), /exactly one of busDt, clsdBusDt and opnBusDt/)
    assert.match(await refusal({ clsdBusDt: '2026-11-14' }), /locRef/)
    assert.equal((await call('getMenuItemDimensions', { locRef: 'BAR01', clsdBusDt: '2026-11-14' })).status, 400)
    const unauthorized = await fetch(`${simulator.url}/bi/v1/${ORG}/getMenuItemDimensions`, {
      method: 'POST',
      headers: { authorization: 'Bearer not-a-token' },
      body: '{"locRef":"BAR01"}',
    })
    assert.equal(unauthorized.status, 401)
  })
})
