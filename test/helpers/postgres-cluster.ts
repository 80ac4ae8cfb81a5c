import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { killAtExit } from './server-process.js'
import { freePort } from './free-port.js'

const run = promisify(execFile)

/** PostgreSQL's server binaries: PG_BIN, or Debian's PostgreSQL 15. */
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin'

/** Why PostgreSQL clusters cannot be started here, or undefined when they can (initdb, pg_basebackup, postgres). */
export function missingClusterBinaries(): string | undefined {
  const missing = ['initdb', 'pg_basebackup', 'postgres'].filter((binary) => !existsSync(join(PG_BIN, binary)))
  return missing.length === 0 ? undefined : `needs PostgreSQL's ${missing.join(', ')} in ${PG_BIN} (set PG_BIN)`
}

/**
 * initdb and postgres refuse to run as root: then they run as the `postgres` user (its ids read once),
 * owning the cluster's directory.
 */
async function runAs(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])])
  return { uid: Number(uid.stdout), gid: Number(gid.stdout) }
}

export interface Cluster {
  port: number
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  urlOf(database: string): string
  /** Stops the server: fast shutdown (SIGINT), SIGKILL if it has not ended within 10 s. */
  stop(): Promise<void>
  /** SIGKILL to the postmaster: a crash (its backends exit when they notice). */
  kill(): Promise<void>
  output(): string
}

function startPostmaster(dataDir: string, port: number, user: { uid: number; gid: number } | undefined): Promise<Cluster> {
  const child: ChildProcess = spawn(join(PG_BIN, 'postgres'), ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-k', dataDir], {
    ...(user ?? {}),
  })
  killAtExit(child)
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const ended = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill(signal)
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    await exited
    clearTimeout(timer)
  }
  const cluster: Cluster = {
    port,
    urlOf: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    stop: () => ended('SIGINT'),
    kill: () => ended('SIGKILL'),
    output: () => output,
  }
  return new Promise((resolve, reject) => {
    const check = () => {
      if (/database system is ready to accept (read-only )?connections/.test(output)) resolve(cluster)
    }
    child.stdout?.on('data', check)
    child.stderr?.on('data', check)
    void exited.then(() => reject(new Error(`postgres exited:\n${output}`)))
    setTimeout(() => reject(new Error(`postgres did not start:\n${output}`)), 60_000).unref()
  })
}

export interface PrimaryAndStandby {
  primary: Cluster
  standby: Cluster
  /** Stops both servers and removes their directories. */
  stop(): Promise<void>
}

/**
 * A primary started from a fresh initdb on a free port (trust authentication on 127.0.0.1, the postgres
 * superuser) and a streaming standby of it made with `pg_basebackup -R`, each a process of this test
 * killed when the test process ends, in a temporary directory removed by stop().
 */
export async function startPrimaryAndStandby(): Promise<PrimaryAndStandby> {
  const user = await runAs()
  const root = mkdtempSync(join(tmpdir(), 'barstock-cluster-'))
  if (user) chownSync(root, user.uid, user.gid)
  const clusters: Cluster[] = []
  const stop = async () => {
    await Promise.all(clusters.map((cluster) => cluster.stop()))
    rmSync(root, { recursive: true, force: true })
  }
  try {
    const primaryDir = join(root, 'primary')
    await run(join(PG_BIN, 'initdb'), ['-D', primaryDir, '-A', 'trust', '-U', 'postgres', '--no-sync'], { ...(user ?? {}) })
    const primary = await startPostmaster(primaryDir, await freePort(), user)
    clusters.push(primary)
    const standbyDir = join(root, 'standby')
    await run(join(PG_BIN, 'pg_basebackup'), ['-D', standbyDir, '-R', '-X', 'stream', '-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '--no-sync'], {
      ...(user ?? {}),
    })
    const standby = await startPostmaster(standbyDir, await freePort(), user)
    clusters.push(standby)
    return { primary, standby, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
