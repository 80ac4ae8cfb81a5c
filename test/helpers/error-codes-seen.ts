import { appendFileSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

/**
 * `npm test` names a fresh directory in this variable; every answer a test app gives (context.ts wraps its
 * `inject`) appends the error codes it carries there, one file per test process. After all shards,
 * test/platform/error-codes-seen.ts checks that each code of the catalogue was answered at least once.
 */
export const ERROR_CODES_DIR_VARIABLE = 'BARSTOCK_TEST_ERROR_CODES_DIR'

interface Answer {
  statusCode: number
  body: string
}

/**
 * The codes an answer carries: an error's `error.code`, and the codes of a batch's refused updates
 * (`data.failed[].error.code`, answered with 200). Nothing else: /openapi.json spells every code in its
 * examples, and counting those would let the check pass without any test provoking them.
 */
export function errorCodesOf(answer: Answer): string[] {
  let body: { error?: { code?: unknown }; data?: { failed?: { error?: { code?: unknown } }[] } }
  try {
    body = JSON.parse(answer.body) as typeof body
  } catch {
    return []
  }
  if (body === null || typeof body !== 'object') return []
  if (answer.statusCode >= 400) return typeof body.error?.code === 'string' ? [body.error.code] : []
  const failed = Array.isArray(body.data?.failed) ? body.data.failed : []
  return failed.flatMap((line) => (typeof line?.error?.code === 'string' ? [line.error.code] : []))
}

/** Appends the answer's error codes to this process's file, when `npm test` is collecting them. */
export function recordErrorCodes(answer: Answer): void {
  const directory = process.env[ERROR_CODES_DIR_VARIABLE]
  if (!directory) return
  const codes = errorCodesOf(answer)
  if (codes.length > 0) appendFileSync(join(resolve(directory), `${process.pid}.codes`), `${codes.join('\n')}\n`)
}

/** Every code recorded in `directory` by any process of the run. */
export function recordedErrorCodes(directory: string): Set<string> {
  const files = readdirSync(directory).filter((name) => name.endsWith('.codes'))
  return new Set(files.flatMap((name) => readFileSync(join(directory, name), 'utf8').split('\n').filter(Boolean)))
}
