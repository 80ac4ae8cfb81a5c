import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

// This file is compiled to dist/src/platform/paths.js, so the project root is three levels up.
const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')

/** A path inside the project's checkout (migrations/, docs/), wherever the process was started. */
export function projectPath(...segments: string[]): string {
  return join(PROJECT_ROOT, ...segments)
}
