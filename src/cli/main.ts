#!/usr/bin/env node
import { join, resolve } from 'node:path'
import { Command } from 'commander'
import { loadConfig } from '../platform/config.js'
import { openAdminSession, openDatabase, openDatabaseForCommand, runAdminCommand, serveAdminChannel } from './runtime.js'
import { registerPosCommands } from './pos-commands.js'
import type { Config } from '../platform/config.js'
import type { ApiKeyInfo } from '../platform/auth/api-keys.js'
import { serviceVersion } from '../platform/version.js'
import type { ArchiveResult } from './archive-command.js'

function printResult(result: unknown, json: boolean, describe: (result: never) => string): void {
  // Only the result goes to stdout (notices go to stderr), so --json output parses as it is; through npm,
  // `npm run -s` keeps npm's banner off stdout.
  process.stdout.write(json ? `${JSON.stringify(result)}\n` : `${describe(result as never)}\n`)
}

/** Commander's message ("error: …", sometimes a hint on a second line) as one line. */
function oneLine(message: string): string {
  return message
    .replace(/^error: /, '')
    .trim()
    .split('\n')
    .map((line) => line.trim())
    .join(' ')
}

function keyLine(key: ApiKeyInfo): string {
  const state = key.revoked_at ? 'revoked' : key.expires_at && new Date(key.expires_at) <= new Date() ? 'expired' : 'active'
  return `${key.id}  ${key.environment.padEnd(10)}  ${state.padEnd(7)}  ${key.name}  [${key.permissions.join(',')}]`
}

/**
 * `barstock worker`: the workers of `serve` on the same database, without HTTP, so delivery can scale
 * apart from the API (PostgreSQL; an embedded data dir can only be held by one process, so there the
 * worker also serves the admin commands, as the server does).
 */
async function runWorkers(config: Config): Promise<void> {
  const [{ default: Fastify }, { loggerOptions }, { startWorkers }] = await Promise.all([import('fastify'), import('../platform/logging.js'), import('../workers.js')])
  const database = await openDatabase(config)
  const channel = await serveAdminChannel(config, database)
  // Fastify's logger alone: the same pino setup as the server's, with no server around it.
  const logger = Fastify({ logger: loggerOptions(config) }).log
  const workers = await startWorkers({ config, database: database.handle, logger })
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'stopping workers')
    workers
      .stop()
      .then(() => channel?.close())
      .then(() => database.close())
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        logger.error({ err: error }, 'worker shutdown failed')
        process.exit(1)
      })
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.once('SIGINT', () => shutdown('SIGINT'))
  logger.info('workers running')
}

/** A command's parsed options as commander hands them (its types leave them `any`). */
type CommandOptions = Record<string, unknown> & { json?: boolean }

const program = new Command('barstock')
  .description('Stock and purchasing for bars: the barstock service and its administration')
  .version(serviceVersion())
  // A command line commander refuses is one line too, like every other failure (docs/cli.md).
  .configureOutput({ outputError: (message, write) => write(`barstock: ${oneLine(message)} (--help shows the usage)\n`) })

program
  .command('serve')
  .description('Run the HTTP API (migrates the database first)')
  // Loaded on use, like the workers: the HTTP app and every domain's routes are a second of loading that
  // the administration commands do not need.
  .action(async () => (await import('./serve.js')).serve(loadConfig()))

program
  .command('worker')
  .description('Run the background workers (webhook delivery and the others) without HTTP, until SIGTERM or SIGINT')
  .action(async () => runWorkers(loadConfig()))

program
  .command('migrate')
  .description('Apply pending database migrations and exit')
  .action(async () => {
    const database = await openDatabaseForCommand(loadConfig())
    await database.close()
    process.stdout.write('migrations are up to date\n')
  })

program
  .command('backup')
  .description('Write a consistent copy of the embedded database to a .tar.gz, also while the server runs (restore: docs/operations.md)')
  .requiredOption('--out <file>', 'the file to write; with a running server, the server writes it')
  .option('--json', 'print {path, bytes} as JSON')
  .action(async (options: CommandOptions & { out: string }) => {
    const config = loadConfig()
    const written = (await runAdminCommand(config, 'backup', { out: resolve(options.out) })) as { path: string; bytes: number }
    const key = config.secretKey ? 'BARSTOCK_SECRET_KEY' : join(config.dataDir, 'secret.key')
    printResult(written, Boolean(options.json), () => `wrote ${written.path} (${written.bytes} bytes). Keep ${key} with it: the POS credentials inside need it.`)
  })

program
  .command('archive')
  .description('Detach the month partitions of sales, sale usage and the stock ledger before a month, when no report or count window needs them (docs/operations.md)')
  .requiredOption('--before <YYYY-MM>', 'the first month to keep (UTC months)')
  .option('--drop', 'drop the detached partitions instead of keeping them as tables of their own')
  .option('--json', 'print {before, dropped, partitions: [{table, month, kept_as}]} as JSON')
  .action(async (options: CommandOptions & { before: string; drop?: boolean }) => {
    const config = loadConfig()
    const args = { before: options.before, drop: options.drop === true, archiveAfterDays: config.archiveAfterDays }
    const result = (await runAdminCommand(config, 'archive', args)) as ArchiveResult
    printResult(result, Boolean(options.json), () => describeArchive(result))
  })

function describeArchive(result: ArchiveResult): string {
  if (result.partitions.length === 0) return `no partition before ${result.before}: nothing archived`
  const lines = result.partitions.map((part) => `${part.table} ${part.month}: ${part.kept_as ? `detached, kept as ${part.kept_as}` : 'dropped'}`)
  return lines.join('\n')
}

const keys = program.command('keys').description('Create, list and revoke API keys')

keys
  .command('create')
  .description('Create an API key; the key is shown only here')
  .requiredOption('--name <name>', 'what the key is for')
  .requiredOption('--permissions <list>', 'comma-separated permissions, or * for all eight')
  .option('--sandbox', 'a sandbox (bs_test_) key instead of a production (bs_live_) one')
  .option('--account <id>', 'the account the key belongs to', 'acct_default')
  .option('--expires-at <time>', 'ISO 8601 time after which the key stops working')
  .option('--json', 'print {id, key, name, permissions, environment} as JSON')
  .action(async (options: CommandOptions) => {
    const created = (await runAdminCommand(loadConfig(), 'keys.create', options)) as ApiKeyInfo & { key: string }
    const { id, key, name, permissions, environment } = created
    // Exactly the five fields of the run contract (DECISIONS.md); `keys list` shows the expiry.
    printResult(
      { id, key, name, permissions, environment },
      Boolean(options.json),
      () => `${key}\n\nCreated ${environment} key ${id} (${name}). Store it now: it is not shown again.`,
    )
  })

keys
  .command('list')
  .description('List API keys (never the keys themselves)')
  .option('--account <id>', 'only this account')
  .option('--json', 'print JSON')
  .action(async (options: CommandOptions) => {
    const list = (await runAdminCommand(loadConfig(), 'keys.list', options)) as ApiKeyInfo[]
    printResult(list, Boolean(options.json), () => list.map(keyLine).join('\n') || 'no keys')
  })

keys
  .command('revoke <id>')
  .description('Revoke an API key at once')
  .option('--json', 'print JSON')
  .action(async (id: string, options: CommandOptions) => {
    const revoked = (await runAdminCommand(loadConfig(), 'keys.revoke', { id })) as ApiKeyInfo
    printResult(revoked, Boolean(options.json), () => `revoked ${revoked.id} (${revoked.name})`)
  })

const accounts = program.command('accounts').description('Create and list accounts')

accounts
  .command('create')
  .description('Create an account (with a main_bar location in both environments)')
  .requiredOption('--name <name>', 'the account name')
  .option('--json', 'print JSON')
  .action(async (options: CommandOptions) => {
    const account = (await runAdminCommand(loadConfig(), 'accounts.create', options)) as { id: string; name: string }
    printResult(account, Boolean(options.json), () => `created account ${account.id} (${account.name})`)
  })

accounts
  .command('list')
  .description('List accounts')
  .option('--json', 'print JSON')
  .action(async (options: CommandOptions) => {
    const list = (await runAdminCommand(loadConfig(), 'accounts.list', {})) as { id: string; name: string }[]
    printResult(list, Boolean(options.json), () => list.map((account) => `${account.id}  ${account.name}`).join('\n'))
  })

registerPosCommands(program, openAdminSession)

/** Every failure is one message, never a stack trace (BARSTOCK_LOG_LEVEL=debug or trace adds it), and exit code 1. */
function reportFailure(error: unknown): never {
  const debug = ['debug', 'trace'].includes(process.env.BARSTOCK_LOG_LEVEL ?? '')
  const message = error instanceof Error ? (debug ? error.stack : error.message) : String(error)
  process.stderr.write(`barstock: ${message}\n`)
  process.exit(1)
}

program.parseAsync().catch(reportFailure)
