import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseSecretKey } from './config.js'

/**
 * The key that encrypts stored credentials: BARSTOCK_SECRET_KEY when set, else one generated on first
 * start into `<dataDir>/secret.key` (owner-only) and read back on every later start.
 */
export function resolveSecretKey(configured: Buffer | undefined, dataDir: string): Buffer {
  if (configured) return configured
  const path = join(dataDir, 'secret.key')
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true })
    writeFileSync(path, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' })
  }
  return parseSecretKey(readFileSync(path, 'utf8'), path)
}
