import assert from 'node:assert/strict'
import { type TestContext, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { type ProbeResult, type ProbeVerdict, StallWatch } from '../../src/platform/db/stall-watch.js'

const STALL_MS = 100

/** A statement that settles only when told, or fails when cut (as pg fails a query whose socket is torn down). */
function statement() {
  let settle!: (value: string) => void
  let fail!: (error: Error) => void
  const promise = new Promise<string>((resolve, reject) => {
    settle = resolve
    fail = reject
  })
  let cuts = 0
  return {
    promise,
    settle,
    cut: () => {
      cuts++
      fail(new Error('Connection terminated'))
    },
    cuts: () => cuts,
  }
}

/**
 * The watch's timers do not keep a process alive (a real statement's socket does); these statements have
 * no socket, so the test holds the event loop open itself.
 */
function holdEventLoop(t: TestContext) {
  const timer = setInterval(() => undefined, 1_000)
  t.after(() => clearInterval(timer))
}

function watchWith(probeResult: () => ProbeResult, probeMs = 10, running?: (backends: number[]) => number[]) {
  const probes: number[] = []
  const cutCounts: number[] = []
  const watch = new StallWatch({
    stallMs: STALL_MS,
    probe: async (backends): Promise<ProbeVerdict> => {
      probes.push(Date.now())
      await sleep(probeMs)
      return { result: probeResult(), ...(running ? { running: new Set(running(backends)) } : {}) }
    },
    onCut: (statements) => cutCounts.push(statements),
  })
  return { watch, probes, cutCounts }
}

test('a long statement on a database that answers is probed every stall period and never cut', async () => {
  const { watch, probes, cutCounts } = watchWith(() => 'ready')
  const long = statement()
  const watched = watch.watch(long.promise, long.cut)
  await sleep(STALL_MS * 3.5)
  long.settle('rows')
  assert.equal(await watched, 'rows')
  const probed = probes.length
  assert.ok(probed >= 2, `probed ${probed} times`)
  assert.equal(long.cuts(), 0)
  assert.deepEqual(cutCounts, [])
  await sleep(STALL_MS * 2)
  assert.equal(probes.length, probed, 'no probe after the statement settled')
})

test('a refusing database is there: nothing is cut', async () => {
  const { watch } = watchWith(() => 'refusing')
  const waiting = statement()
  const watched = watch.watch(waiting.promise, waiting.cut)
  await sleep(STALL_MS * 2.5)
  waiting.settle('late rows')
  assert.equal(await watched, 'late rows')
  assert.equal(waiting.cuts(), 0)
})

test('when the probe finds the database unreachable, every stalled statement is cut, with one shared probe', async (t) => {
  holdEventLoop(t)
  const { watch, probes, cutCounts } = watchWith(() => 'unreachable', STALL_MS / 2)
  const first = statement()
  const second = statement()
  const watchedFirst = watch.watch(first.promise, first.cut)
  const watchedSecond = watch.watch(second.promise, second.cut)
  const started = Date.now()
  await assert.rejects(watchedFirst, /Connection terminated/)
  await assert.rejects(watchedSecond, /Connection terminated/)
  const ms = Date.now() - started
  assert.ok(ms >= STALL_MS && ms < STALL_MS * 3, `cut after ${ms} ms`)
  assert.equal(probes.length, 1, 'one probe for both')
  assert.deepEqual(cutCounts, [2])
  assert.deepEqual([first.cuts(), second.cuts()], [1, 1])
})

test('a statement sent while a probe runs is cut only by a probe that started after it', async (t) => {
  holdEventLoop(t)
  let answers: ProbeResult = 'ready'
  const { watch, probes } = watchWith(() => answers, STALL_MS * 2)
  const cutAt = (watched: Promise<string>) =>
    watched.then(
      () => assert.fail('not cut'),
      (error: Error) => (assert.match(error.message, /Connection terminated/), Date.now()),
    )
  const early = statement()
  const earlyCut = cutAt(watch.watch(early.promise, early.cut))
  await sleep(STALL_MS + STALL_MS / 4)
  // The probe of `early` runs now; the silence starts here, before its verdict.
  assert.equal(probes.length, 1)
  answers = 'unreachable'
  const late = statement()
  const lateCut = cutAt(watch.watch(late.promise, late.cut))
  // `late` stalls while that probe still runs: its verdict cuts `early` only; `late` probes anew.
  const [earlyAt, lateAt] = await Promise.all([earlyCut, lateCut])
  assert.ok(earlyAt < lateAt, 'the first verdict cut the early statement only')
  assert.equal(probes.length, 2)
})

/** A watch whose probe finds the database there, running a statement on `running` alone; `asked` records the server processes each probe asked about. */
function watchRunningOnly(running: number) {
  const asked: number[][] = []
  const watched = watchWith(
    () => 'ready',
    10,
    (backends) => {
      asked.push(backends)
      return backends.filter((backend) => backend === running)
    },
  )
  return { ...watched, asked }
}

test('a database that answers but runs no statement for a stalled one has it cut: its server is gone or never got it', async (t) => {
  holdEventLoop(t)
  const { watch, cutCounts, asked } = watchRunningOnly(101)
  const running = statement()
  const stranded = statement()
  const unknown = statement()
  const watchedRunning = watch.watch(running.promise, running.cut, 101)
  const watchedStranded = watch.watch(stranded.promise, stranded.cut, 202)
  const watchedUnknown = watch.watch(unknown.promise, unknown.cut)
  await assert.rejects(watchedStranded, /Connection terminated/)
  assert.deepEqual(asked[0], [101, 202], 'asked about the server processes it knows')
  await sleep(STALL_MS)
  running.settle('report rows')
  unknown.settle('pooled rows')
  assert.equal(await watchedRunning, 'report rows')
  assert.equal(await watchedUnknown, 'pooled rows', 'a statement whose server process is not known is cut only when nothing answers')
  assert.deepEqual(cutCounts, [1])
})

test('a statement sent a moment before another one’s stall probes the database is not judged by that probe: its server may not have begun it', async (t) => {
  holdEventLoop(t)
  const { watch, cutCounts, asked } = watchRunningOnly(101)
  const long = statement()
  const watchedLong = watch.watch(long.promise, long.cut, 101)
  await sleep(STALL_MS - 20)
  // Sent inside a transaction whose server process shows it idle until the statement arrives.
  const fresh = statement()
  const watchedFresh = watch.watch(fresh.promise, fresh.cut, 202)
  await sleep(40)
  assert.deepEqual(asked[0], [101], 'the probe asked about the stalled statement only')
  fresh.settle('fresh rows')
  assert.equal(await watchedFresh, 'fresh rows')
  long.settle('report rows')
  assert.equal(await watchedLong, 'report rows')
  assert.deepEqual(cutCounts, [])
})
