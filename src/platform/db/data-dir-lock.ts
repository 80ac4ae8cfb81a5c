import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'

/** Thrown when another live process holds the data dir. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The data dir ${dataDir} is in use by another barstock server (pid ${pid}). ` +
        'PGlite corrupts a data dir that two processes open: stop that server, or start this one with ' +
        'another BARSTOCK_DATA_DIR or a DATABASE_URL.',
    )
    this.name = 'DataDirLockedError'
  }
}

export function lockPath(dataDir: string): string {
  return join(dataDir, 'barstock.pid')
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The pid holding the data dir, or undefined when it is free (a lock left by a dead process is free). */
export function lockHolder(dataDir: string): number | undefined {
  let text: string
  try {
    text = readFileSync(lockPath(dataDir), 'utf8')
  } catch {
    return undefined
  }
  const pid = Number.parseInt(text, 10)
  return Number.isInteger(pid) && pid !== process.pid && isAlive(pid) ? pid : undefined
}

/**
 * Takes the data dir for this process with an exclusive pid file. A pid file left by a crashed process
 * is taken over; one held by a live process refuses with DataDirLockedError. Returns the release function.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true })
  const path = lockPath(dataDir)
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600)
      writeSync(fd, String(process.pid))
      closeSync(fd)
      return () => rmSync(path, { force: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const holder = lockHolder(dataDir)
      if (holder !== undefined) throw new DataDirLockedError(dataDir, holder)
      rmSync(path, { force: true })
    }
  }
  throw new Error(`could not lock the data dir ${dataDir}`)
}
