import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { killAtExit, tempDataDir } from './server-process.js'
import { freePort } from './free-port.js'

/** Whether a `pgbouncer` binary is on the PATH (Debian: apt-get install pgbouncer). */
export function pgbouncerInstalled(): boolean {
  return spawnSync('pgbouncer', ['--version']).status === 0
}

export interface PgBouncerOptions {
  /** The PostgreSQL server it pools, e.g. DATABASE_URL. */
  server: URL
  poolMode: 'transaction' | 'session'
  /** Server connections per database and user. */
  poolSize: number
  /** Startup parameters it drops silently instead of refusing the client. */
  ignoreStartupParameters?: string[]
  /** More `[pgbouncer]` settings, e.g. `server_login_retry = 1`. */
  settings?: string[]
}

export interface PgBouncer {
  /** `database` on the server, through the pooler. */
  urlOf(database: URL): string
  output(): string
  stop(): Promise<void>
}

/**
 * Starts PgBouncer as a process of this test, with its configuration in a temporary directory, trusting
 * every client (the server's own authentication still applies) and listening on a free local port.
 * PgBouncer refuses to run as root: then it runs as the postgres user.
 */
export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const { dir, cleanup } = tempDataDir()
  chmodSync(dir, 0o755)
  const port = await freePort()
  const user = decodeURIComponent(options.server.username || 'postgres')
  const config = [
    '[databases]',
    `* = host=${options.server.hostname} port=${options.server.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(dir, 'userlist.txt')}`,
    `pool_mode = ${options.poolMode}`,
    `default_pool_size = ${options.poolSize}`,
    'max_client_conn = 500',
    `ignore_startup_parameters = ${(options.ignoreStartupParameters ?? []).join(',')}`,
    ...(options.settings ?? []),
  ]
  writeFileSync(join(dir, 'pgbouncer.ini'), `${config.join('\n')}\n`, { mode: 0o644 })
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`, { mode: 0o644 })
  const asUser = process.getuid?.() === 0 ? ['-u', 'postgres'] : []
  const child = spawn('pgbouncer', [...asUser, join(dir, 'pgbouncer.ini')])
  killAtExit(child)
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    const check = () => (/process up/.test(output) ? resolve() : undefined)
    child.stderr.on('data', check)
    child.stdout.on('data', check)
    void exited.then(() => reject(new Error(`pgbouncer exited:\n${output}`)))
    setTimeout(() => reject(new Error(`pgbouncer did not start:\n${output}`)), 10_000).unref()
  })
  return {
    urlOf(database) {
      const pooled = new URL(database)
      pooled.host = `127.0.0.1:${port}`
      return pooled.toString()
    },
    output: () => output,
    async stop() {
      child.kill('SIGTERM')
      await exited
      cleanup()
    },
  }
}
