import { type ChildProcess, execFileSync, fork, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chownSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import pg from 'pg'
import { projectPath } from '../src/platform/paths.js'
import { startPgBouncer } from '../test/helpers/pgbouncer.js'
import { runCli } from '../test/helpers/server-process.js'
import type { WriteRecord, WriterSpec } from './failover-writer.js'
import { referenceMs } from './machine-speed.js'
import { startQuietServer } from './processes.js'
import { freePort } from '../test/helpers/free-port.js'

/**
 * A failover under write load, run by hand (docs/operations.md "Failover", docs/benchmarks.md):
 * etcd, two Patroni-managed PostgreSQL 15 nodes in synchronous_mode (ttl 10 s, loop_wait 2 s), HAProxy
 * routing by Patroni's REST checks (bench/failover/*), barstock as `npm start` runs it against HAProxy,
 * and a write load in a process of its own. It performs a switchover, then a kill -9 of the node holding
 * the primary (Patroni and its postmaster: a lost host), and reports for each: how long writes were
 * refused, what every refused request was answered (503 database_unavailable with Retry-After, never a
 * 500 or a hang), the slowest answer, when /readyz answered 200 again, and whether every acknowledged
 * write is on the new primary.
 *
 *   npx tsc -b . && node dist/bench/failover.js        (as root: Patroni and PostgreSQL run as `postgres`)
 *
 * Needs etcd, patroni, haproxy on the PATH and PostgreSQL's binaries in PG_BIN (/usr/lib/postgresql/15/bin).
 * FAILOVER_PGBOUNCER=1 puts PgBouncer (transaction mode) between barstock and HAProxy, as in the deployment
 * of docs/operations.md. Everything runs in a temporary directory, removed at the end unless FAILOVER_KEEP=1 (the logs of etcd,
 * Patroni and HAProxy are there); every process it started is killed however it ends.
 */

const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin'
const WRITERS = Number(process.env.FAILOVER_WRITERS ?? 8)
/** FAILOVER_PGBOUNCER=1: barstock reaches HAProxy through PgBouncer in transaction mode, as in docs/operations.md's shape. */
const THROUGH_PGBOUNCER = process.env.FAILOVER_PGBOUNCER === '1'
/** A request without an answer this long counts as a hang (the statement timeout, 30 s, plus pg's 5 s slack, plus 5 s). */
const ABORT_MS = 40_000
/** What the service must come back within after each event. */
const RECOVERY_GOAL_MS = 30_000
const STEADY_MS = 8_000

const children: ChildProcess[] = []
const postmasterPids: string[] = []
const killEverything = () => {
  for (const child of children) child.kill('SIGKILL')
  for (const pidFile of postmasterPids) {
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGKILL')
    } catch {
      // Not running (or never started).
    }
  }
}
process.on('exit', killEverything)
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(1))

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const started = Date.now()
  for (;;) {
    const value = await check().catch(() => undefined)
    if (value !== undefined) return value
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs / 1000} s`)
    await delay(100)
  }
}

function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`no value for {{${name}}}`)
    return String(values[name])
  })
}

/** The postgres user's ids when running as root (PostgreSQL refuses root); undefined otherwise. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  return { uid: Number(execFileSync('id', ['-u', 'postgres'])), gid: Number(execFileSync('id', ['-g', 'postgres'])) }
}

function startLogged(command: string, args: string[], logFile: string, user?: { uid: number; gid: number }): ChildProcess {
  const log = openSync(logFile, 'a')
  const child = spawn(command, args, { stdio: ['ignore', log, log], ...(user ?? {}) })
  closeSync(log)
  children.push(child)
  return child
}

interface Node {
  name: string
  pgPort: number
  restPort: number
  dir: string
  patroni: ChildProcess
}

interface Member {
  name: string
  role: string
  state: string
}

async function clusterMembers(node: Node): Promise<Member[]> {
  const response = await fetch(`http://127.0.0.1:${node.restPort}/cluster`, { signal: AbortSignal.timeout(1_000) })
  return ((await response.json()) as { members: Member[] }).members
}

/** Resolves with the leader's name once the cluster has a leader and a running synchronous standby. */
async function wholeCluster(nodes: Node[]): Promise<string> {
  return until('a leader and a synchronous standby', async () => {
    for (const node of nodes) {
      const members = await clusterMembers(node).catch(() => [])
      const leader = members.find((member) => member.role === 'leader' && member.state === 'running')
      const standby = members.find((member) => member.role === 'sync_standby' && ['running', 'streaming'].includes(member.state))
      if (leader && standby) return leader.name
    }
    return undefined
  })
}

async function primaryAnswers(node: Node): Promise<boolean> {
  const response = await fetch(`http://127.0.0.1:${node.restPort}/primary`, { signal: AbortSignal.timeout(1_000) }).catch(() => undefined)
  return response?.status === 200
}

interface Readiness {
  /** When the probe was sent and answered. */
  at: number
  endedAt: number
  status: number
}

/** Polls /readyz every 250 ms (2.5 s allowed each: the probe answers within 1.5 s) until stopped. */
function watchReadiness(url: string): { stop: () => Promise<Readiness[]> } {
  const seen: Readiness[] = []
  let stopped = false
  const loop = (async () => {
    while (!stopped) {
      const at = Date.now()
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_500) }).catch(() => undefined)
      seen.push({ at, endedAt: Date.now(), status: response?.status ?? 0 })
      await delay(250)
    }
  })()
  return {
    stop: async () => {
      stopped = true
      await loop
      return seen
    },
  }
}

interface EventFigures {
  event: string
  /** From the event to the last refused write's answer, ms. */
  refusedForMs: number
  /** From the event to the first acknowledged write after the last refusal, ms: the service's recovery. */
  recoveredAfterMs: number | undefined
  acknowledged: number
  refused503: number
  /** Refusals other than 503 database_unavailable with Retry-After (500s, other codes, no header). */
  otherFailures: { status: number; code: string | undefined; retryAfter: string | undefined }[]
  /** Requests without an answer within ABORT_MS, or whose connection failed. */
  noAnswer: number
  slowestMs: number
  slowest503Ms: number
  /** From the event to /readyz's first 200 after its last 503. */
  readyAgainAfterMs: number | undefined
}

function figuresOf(event: string, at: number, until: number, records: WriteRecord[], readiness: Readiness[]): EventFigures {
  // The requests answered between this event and the next: those in flight at the next belong to it.
  const window = records.filter((record) => record.endedAt >= at && record.endedAt < until)
  const refused = window.filter((record) => record.status !== 201)
  const lastRefusal = Math.max(at, ...refused.map((record) => record.endedAt))
  const recovered = window.filter((record) => record.status === 201 && record.startedAt >= lastRefusal).sort((a, b) => a.endedAt - b.endedAt)[0]
  const probes = readiness.filter((probe) => probe.endedAt >= at && probe.endedAt < until)
  const lastUnready = Math.max(at, ...probes.filter((probe) => probe.status !== 200).map((probe) => probe.at))
  const readyAgain = probes.find((probe) => probe.status === 200 && probe.at >= lastUnready)
  const is503 = (record: WriteRecord) => record.status === 503 && record.code === 'database_unavailable' && record.retryAfter !== undefined
  return {
    event,
    refusedForMs: lastRefusal - at,
    recoveredAfterMs: recovered ? recovered.endedAt - at : undefined,
    acknowledged: window.filter((record) => record.status === 201).length,
    refused503: refused.filter(is503).length,
    otherFailures: refused.filter((record) => record.status !== 0 && !is503(record)).map(({ status, code, retryAfter }) => ({ status, code, retryAfter })),
    noAnswer: refused.filter((record) => record.status === 0).length,
    slowestMs: Math.max(0, ...window.map((record) => record.endedAt - record.startedAt)),
    slowest503Ms: Math.max(0, ...refused.filter(is503).map((record) => record.endedAt - record.startedAt)),
    readyAgainAfterMs: readyAgain ? readyAgain.at - at : undefined,
  }
}

async function main(): Promise<void> {
  const speedMs = referenceMs()
  const user = postgresUser()
  const root = mkdtempSync(join(tmpdir(), 'barstock-failover-'))
  if (user) chownSync(root, user.uid, user.gid)
  console.log(
    `failover bench in ${root} (logs there); machine-speed reference ${speedMs.toFixed(0)} ms; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  )
  try {
    const etcdPort = await freePort()
    const etcdPeerPort = await freePort()
    startLogged(
      'etcd',
      [
        '--name=bench',
        `--data-dir=${join(root, 'etcd')}`,
        `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
        `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
        `--initial-cluster=bench=http://127.0.0.1:${etcdPeerPort}`,
      ],
      join(root, 'etcd.log'),
    )
    await until('etcd healthy', async () => ((await fetch(`http://127.0.0.1:${etcdPort}/health`)).ok ? true : undefined))

    const template = readFileSync(projectPath('bench', 'failover', 'patroni.yml'), 'utf8')
    const nodes: Node[] = []
    for (const name of ['node1', 'node2']) {
      const dir = join(root, name)
      mkdirSync(dir, { mode: 0o700 })
      if (user) chownSync(dir, user.uid, user.gid)
      const pgPort = await freePort()
      const restPort = await freePort()
      const config = join(dir, 'patroni.yml')
      writeFileSync(config, fill(template, { name, restPort, etcdPort, pgPort, dir, binDir: PG_BIN }))
      if (user) chownSync(config, user.uid, user.gid)
      postmasterPids.push(join(dir, 'data', 'postmaster.pid'))
      const patroni = startLogged('patroni', [config], join(dir, 'patroni.log'), user)
      const node = { name, pgPort, restPort, dir, patroni }
      nodes.push(node)
      // The first node bootstraps the cluster; the second is cloned from it once it leads.
      if (name === 'node1') await until('node1 leading', async () => ((await primaryAnswers(node)) ? true : undefined))
    }
    const firstLeader = await wholeCluster(nodes)
    console.log(`Patroni cluster up: ${firstLeader} leads, a synchronous standby streams`)

    const primaryPort = await freePort()
    const replicaPort = await freePort()
    const servers = (check: string) => nodes.map((node) => `  server ${node.name} 127.0.0.1:${node.pgPort} maxconn 100 check port ${node.restPort} # ${check}`).join('\n')
    const haproxyConfig = join(root, 'haproxy.cfg')
    writeFileSync(
      haproxyConfig,
      fill(readFileSync(projectPath('bench', 'failover', 'haproxy.cfg'), 'utf8'), {
        primaryPort,
        replicaPort,
        primaryServers: servers('/primary'),
        replicaServers: servers('/replica'),
      }),
    )
    startLogged('haproxy', ['-db', '-f', haproxyConfig], join(root, 'haproxy.log'))
    const databaseUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`
    await until('HAProxy leading to the primary', async () => {
      const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 1_000 })
      await client.connect()
      try {
        return (await client.query('SELECT NOT pg_is_in_recovery() AS primary')).rows[0].primary ? true : undefined
      } finally {
        await client.end()
      }
    })

    // PgBouncer retries a failed server login after server_login_retry (15 s by default): 1 s, so the
    // pooler follows the new primary as soon as HAProxy does.
    const pooler = THROUGH_PGBOUNCER
      ? await startPgBouncer({ server: new URL(databaseUrl), poolMode: 'transaction', poolSize: 20, settings: ['server_login_retry = 1'] })
      : undefined
    const env = {
      DATABASE_URL: pooler ? pooler.urlOf(new URL(databaseUrl)) : databaseUrl,
      ...(pooler ? { BARSTOCK_DIRECT_DATABASE_URL: databaseUrl } : {}),
      BARSTOCK_REPLICA_URL: `postgres://postgres@127.0.0.1:${replicaPort}/postgres`,
      BARSTOCK_DATA_DIR: join(root, 'barstock'),
      BARSTOCK_SECRET_KEY: randomBytes(32).toString('hex'),
      BARSTOCK_RATE_LIMIT_PRODUCTION: '1000000',
      // Each 503 is logged with its stack at level error: hundreds of lines the figures below say better.
      BARSTOCK_LOG_LEVEL: process.env.FAILOVER_LOG_LEVEL ?? 'fatal',
    }
    const server = await startQuietServer(env)
    children.push(server.child)
    const created = await runCli(['keys', 'create', '--name', 'failover', '--permissions', '*', '--json'], env)
    if (created.code !== 0) throw new Error(created.stderr)
    const key = (JSON.parse(created.stdout) as { key: string }).key
    console.log(`barstock serving ${server.url} on HAProxy :${primaryPort}${pooler ? ' through PgBouncer' : ''} (replica :${replicaPort}); ${WRITERS} writers`)

    const writer = fork(projectPath('dist', 'bench', 'failover-writer.js'))
    children.push(writer)
    const collected = new Promise<WriteRecord[]>((resolve) => writer.once('message', (records) => resolve(records as WriteRecord[])))
    writer.send({ url: server.url, key, writers: WRITERS, abortMs: ABORT_MS } satisfies WriterSpec)
    const readiness = watchReadiness(server.url)
    await delay(STEADY_MS)

    // A switchover: the leader hands over to the synchronous standby and follows it.
    const switchedAt = Date.now()
    const leaderNode = nodes.find((node) => node.name === firstLeader) as Node
    const candidate = nodes.find((node) => node !== leaderNode) as Node
    const answer = await fetch(`http://127.0.0.1:${leaderNode.restPort}/switchover`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ leader: leaderNode.name, candidate: candidate.name }),
    })
    console.log(`switchover ${leaderNode.name} → ${candidate.name}: ${answer.status} ${(await answer.text()).trim()}`)
    await until('the candidate leading', async () => ((await primaryAnswers(candidate)) ? true : undefined))
    const switchedInMs = Date.now() - switchedAt
    const secondLeader = await wholeCluster(nodes)
    console.log(`Patroni: ${secondLeader} leads ${switchedInMs} ms after the switchover; the cluster is whole again after ${Date.now() - switchedAt} ms`)
    await delay(STEADY_MS)

    // A kill -9 of the node holding the primary: Patroni and its postmaster, as a host lost at once.
    const victim = nodes.find((node) => node.name === secondLeader) as Node
    const survivor = nodes.find((node) => node !== victim) as Node
    const killedAt = Date.now()
    victim.patroni.kill('SIGKILL')
    process.kill(Number(readFileSync(join(victim.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGKILL')
    await until('the survivor leading', async () => ((await primaryAnswers(survivor)) ? true : undefined))
    const promotedInMs = Date.now() - killedAt
    console.log(`kill -9 of ${victim.name}: ${survivor.name} leads after ${promotedInMs} ms`)
    await delay(Math.max(STEADY_MS, RECOVERY_GOAL_MS - promotedInMs + STEADY_MS))

    writer.send('stop')
    const records = await collected
    const probes = await readiness.stop()
    const ended = Date.now()

    // Every acknowledged write on the new primary, read there directly.
    const acknowledged = records.filter((record) => record.itemId !== undefined).map((record) => record.itemId as string)
    const direct = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${survivor.pgPort}/postgres` })
    await direct.connect()
    const found = (await direct.query<{ count: number }>('SELECT count(*)::int AS count FROM inventory_items WHERE id = ANY($1::text[])', [acknowledged])).rows[0]!.count
    await direct.end()

    const switchover = figuresOf('switchover', switchedAt, killedAt, records, probes)
    const kill = figuresOf('kill -9 of the primary', killedAt, ended, records, probes)
    const result = {
      pgbouncer: THROUGH_PGBOUNCER,
      machine: { referenceMs: Math.round(speedMs), loadAverage: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') },
      patroni: { switchoverMs: switchedInMs, promotedAfterKillMs: promotedInMs },
      writes: { total: records.length, acknowledged: acknowledged.length, onNewPrimary: found },
      events: [switchover, kill],
    }
    console.log(JSON.stringify(result, null, 2))
    if (process.env.FAILOVER_RECORDS) writeFileSync(process.env.FAILOVER_RECORDS, JSON.stringify({ switchedAt, killedAt, records, probes }))
    const problems = [
      found !== acknowledged.length ? `${acknowledged.length - found} acknowledged write(s) missing on the new primary` : undefined,
      ...[switchover, kill].flatMap((figures) => [
        figures.otherFailures.length > 0 ? `${figures.event}: ${figures.otherFailures.length} answer(s) other than 503 database_unavailable with Retry-After` : undefined,
        figures.noAnswer > 0 ? `${figures.event}: ${figures.noAnswer} request(s) without an answer within ${ABORT_MS / 1000} s` : undefined,
        figures.recoveredAfterMs === undefined || figures.recoveredAfterMs > RECOVERY_GOAL_MS ? `${figures.event}: writes not back within ${RECOVERY_GOAL_MS / 1000} s` : undefined,
      ]),
    ].filter((problem) => problem !== undefined)
    console.log(problems.length === 0 ? 'PASS: every check held' : `FAIL:\n- ${problems.join('\n- ')}`)
    await server.stop()
    await pooler?.stop()
    if (problems.length > 0) process.exitCode = 1
  } finally {
    killEverything()
    await delay(500)
    if (!process.env.FAILOVER_KEEP) rmSync(root, { recursive: true, force: true })
  }
}

await main()
