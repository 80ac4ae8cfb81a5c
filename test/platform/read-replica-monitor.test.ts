import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseLsn, ReplicaMonitor, type ReplicaState } from '../../src/platform/db/read-replica.js'

/**
 * The rules of ReplicaMonitor (src/platform/db/read-replica.ts) on a clock the test moves: the lag as the
 * age of the newest primary position the replica replayed, the bound, the read-your-writes window, and a
 * check too old to vouch. test/platform/read-replica.test.ts shows them against a real standby.
 */

const MAX_LAG_MS = 2_000

function monitorOf(positions: { primary: string[]; replayed: string[] }, clock: { now: number }) {
  const changes: ReplicaState[] = []
  const monitor = new ReplicaMonitor({
    maxLagMs: MAX_LAG_MS,
    primaryLsn: async () => positions.primary.shift() ?? '0/0',
    replicaPosition: async () => ({ standby: true, replayed: positions.replayed.shift() ?? '0/0' }),
    onChange: (state) => changes.push(state),
  })
  return { monitor, changes, clock }
}

test('positions order as numbers across the slash', () => {
  assert.ok(parseLsn('1/0') > parseLsn('0/FFFFFFFF'))
  assert.equal(parseLsn('16/B374D848'), 0x16b374d848n)
})

test('the lag is the age of the newest primary position replayed; past the bound the replica is skipped', async (t) => {
  const clock = { now: 1_000_000 }
  t.mock.method(Date, 'now', () => clock.now)
  const { monitor, changes } = monitorOf({ primary: ['0/100', '0/200', '0/300', '0/400'], replayed: ['0/100', '0/100', '0/100', '0/400'] }, clock)
  await monitor.check()
  assert.deepEqual(monitor.state, { usable: true, lagMs: 0, checkedAt: clock.now })
  clock.now += 1_500
  await monitor.check() // the primary moved to 0/200; the replica is still at 0/100, sampled 1.5 s ago
  assert.deepEqual(monitor.state, { usable: true, lagMs: 1_500, checkedAt: clock.now })
  clock.now += 1_000
  await monitor.check()
  assert.equal(monitor.state.usable, false)
  assert.match((monitor.state as { reason: string }).reason, /2500 ms behind the primary/)
  assert.equal(monitor.mayRead(undefined), false)
  clock.now += 500
  await monitor.check() // caught up with the newest position
  assert.deepEqual(monitor.state, { usable: true, lagMs: 0, checkedAt: clock.now })
  assert.deepEqual(
    changes.map((state) => state.usable),
    [true, false, true],
    'told of each change, not of each check',
  )
})

test('a key that wrote reads the primary for the bound plus the check period; an old check vouches for nothing', async (t) => {
  const clock = { now: 5_000_000 }
  t.mock.method(Date, 'now', () => clock.now)
  const { monitor } = monitorOf({ primary: [], replayed: [] }, clock)
  await monitor.check()
  assert.equal(monitor.mayRead('key_a'), true)
  monitor.noteWrite('key_a')
  assert.equal(monitor.readYourWritesMs, MAX_LAG_MS + 1_000)
  assert.equal(monitor.mayRead('key_a'), false, 'its own write first')
  assert.equal(monitor.mayRead('key_b'), true, 'another key reads the replica')
  clock.now += 900
  await monitor.check()
  assert.equal(monitor.mayRead('key_a'), false)
  clock.now += MAX_LAG_MS + 100
  await monitor.check()
  assert.equal(monitor.mayRead('key_a'), true, 'the window is over')
  clock.now += 1_001
  assert.equal(monitor.mayRead('key_b'), false, 'the last check is over a second old')
})

test('a primary, an unanswered check and a failed statement each make the replica skipped', async (t) => {
  const clock = { now: 9_000_000 }
  t.mock.method(Date, 'now', () => clock.now)
  let answer: () => Promise<{ standby: boolean; replayed: string | null }> = async () => ({ standby: false, replayed: null })
  const monitor = new ReplicaMonitor({ maxLagMs: MAX_LAG_MS, primaryLsn: async () => '0/10', replicaPosition: () => answer(), onChange: () => undefined })
  await monitor.check()
  assert.deepEqual(monitor.state.usable ? undefined : monitor.state.problem, 'primary')
  answer = async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:5999')
  }
  await monitor.check()
  assert.deepEqual(monitor.state.usable ? undefined : monitor.state.problem, 'unreachable')
  answer = async () => ({ standby: true, replayed: '0/10' })
  await monitor.check()
  assert.equal(monitor.state.usable, true)
  monitor.markFailed('a statement failed there')
  assert.equal(monitor.mayRead(undefined), false)
})

test('a check the role may not run, on the primary or on the replica, skips the replica: reads stay on the primary', async (t) => {
  const clock = { now: 9_500_000 }
  t.mock.method(Date, 'now', () => clock.now)
  // What PostgreSQL answers a role without EXECUTE on a function (its default ACL grants it to every role).
  const refused = async (): Promise<never> => {
    throw Object.assign(new Error('permission denied for function pg_last_wal_replay_lsn'), { code: '42501' })
  }
  let primaryLsn: () => Promise<string> = async () => '0/10'
  let replicaPosition: () => Promise<{ standby: boolean; replayed: string | null }> = async () => ({ standby: true, replayed: '0/10' })
  const monitor = new ReplicaMonitor({ maxLagMs: MAX_LAG_MS, primaryLsn: () => primaryLsn(), replicaPosition: () => replicaPosition(), onChange: () => undefined })
  await monitor.check()
  assert.equal(monitor.mayRead(undefined), true)
  replicaPosition = refused
  await monitor.check()
  assert.equal(monitor.mayRead(undefined), false, 'refused on the replica')
  replicaPosition = async () => ({ standby: true, replayed: '0/10' })
  primaryLsn = refused
  clock.now += MAX_LAG_MS + 1
  await monitor.check()
  assert.equal(monitor.mayRead(undefined), false, 'refused on the primary: no position to measure the lag by, so it only grows')
})
