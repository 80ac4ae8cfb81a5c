import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openPglite } from '../../src/platform/db/connect.js'
import { migrate, MIGRATIONS_DIR } from '../../src/platform/db/migrate.js'
import { projectPath } from '../../src/platform/paths.js'
import { scratchDataDir } from './server-process.js'

/**
 * A migrated, empty embedded database as a data-directory image, made once and kept in
 * node_modules/.cache/barstock. A test process starts its PGlite as a copy of it in about 1 s of CPU;
 * creating one and running the migrations costs about 4.5 s (most of it PGlite's initdb), and a run starts
 * over 80 test processes. The image's name hashes the migrations and PGlite's version, so a changed or
 * added migration makes a new image.
 */
export async function migratedPgliteImage(): Promise<Blob> {
  const path = imagePath()
  try {
    return new Blob([readFileSync(path)])
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const handle = await openPglite(undefined)
  try {
    await migrate(handle)
    const image = await handle.snapshot()
    // Written aside and renamed: two test processes making it at once each leave a whole file.
    const partial = `${path}.${process.pid}.partial`
    writeFileSync(partial, image)
    renameSync(partial, path)
    return new Blob([image])
  } finally {
    await handle.close()
  }
}

function imagePath(): string {
  const hash = createHash('sha256')
  hash.update(JSON.parse(readFileSync(projectPath('node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')).version)
  for (const name of readdirSync(MIGRATIONS_DIR)
    .filter((file) => file.endsWith('.sql'))
    .sort()) {
    hash.update(`\0${name}\0`).update(readFileSync(join(MIGRATIONS_DIR, name)))
  }
  const directory = projectPath('node_modules', '.cache', 'barstock')
  mkdirSync(directory, { recursive: true })
  return join(directory, `migrated-pglite-${hash.digest('hex').slice(0, 16)}.tar.gz`)
}

let migratedTemplate: Promise<string> | undefined

/**
 * A data dir for a server or CLI process, holding a copy of the migrated image: the process skips
 * PGlite's initdb and the migrations (about 4.5 s of CPU) as a server that ran before does. Tests of a
 * first start use an empty data dir instead. Removed when the test process exits. Each is a copy of the
 * image unpacked once (unpackedImage): 0.5 s instead of 3 s of CPU.
 */
export async function migratedDataDir(): Promise<string> {
  migratedTemplate ??= unpackedImage()
  const dir = scratchDataDir()
  cpSync(await migratedTemplate, dir, { recursive: true })
  return dir
}

/**
 * The migrated image unpacked into a data dir kept beside it, under the same name, for every test
 * process of this and later runs (never opened itself, only copied). Unpacked aside and renamed, so a
 * process sees a whole one or none; of two processes unpacking at once, the second's is removed.
 */
async function unpackedImage(): Promise<string> {
  const path = imagePath().replace(/\.tar\.gz$/, '.datadir')
  if (existsSync(path)) return path
  const partial = `${path}.${process.pid}.partial`
  rmSync(partial, { recursive: true, force: true })
  const handle = await openPglite(partial, undefined, await migratedPgliteImage())
  await handle.close()
  try {
    renameSync(partial, path)
  } catch (error) {
    if (!existsSync(path)) throw error
    rmSync(partial, { recursive: true, force: true })
  }
  return path
}
