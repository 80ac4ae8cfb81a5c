import { readFileSync } from 'node:fs'
import { projectPath } from './paths.js'

/** The version in package.json: the one the start-up line and the CLI report. */
export function serviceVersion(): string {
  return (JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string }).version
}
