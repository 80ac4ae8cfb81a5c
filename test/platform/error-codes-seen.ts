import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { test } from 'node:test'
import '../../src/app.js'
import { errorCatalogue } from '../../src/platform/errors.js'
import { ERROR_CODES_DIR_VARIABLE, recordedErrorCodes } from '../helpers/error-codes-seen.js'

/**
 * Run by `npm test` after all shards (not a *.test.ts file, so no shard runs it): every error code of the
 * catalogue was the answer to some test's request in this run. The codes come from the answers themselves
 * (helpers/error-codes-seen.ts), not from the tests' text.
 */
/**
 * Codes that cannot be answered on one kind of database, and why. On the embedded one every transaction
 * runs on its one connection, one after the other, so a duplicate request never finds its key still held.
 */
const UNREACHABLE_ON: Record<string, { database: 'embedded' | 'postgres'; why: string }> = {
  idempotency_in_progress: { database: 'embedded', why: 'requests never hold an idempotency key at the same time' },
  imports_busy: { database: 'embedded', why: 'a sales import waits for its turn there as long as it takes' },
}

test('every error code of the catalogue was answered to some test request in this run', () => {
  const directory = process.env[ERROR_CODES_DIR_VARIABLE]
  assert.ok(directory, `${ERROR_CODES_DIR_VARIABLE} is not set: run this check through npm test, after the suite`)
  assert.ok(readdirSync(directory).length > 0, `no test process recorded an answer in ${directory}`)
  const seen = recordedErrorCodes(directory)
  const catalogue = [...errorCatalogue().keys()]
  assert.ok(catalogue.length > 40, `the catalogue holds ${catalogue.length} codes: the domains' errors were not loaded`)
  const database = process.env.DATABASE_URL ? 'postgres' : 'embedded'
  const expected = catalogue.filter((code) => UNREACHABLE_ON[code]?.database !== database)
  const unseen = expected.filter((code) => !seen.has(code))
  assert.deepEqual(unseen, [], `no test received an answer with these codes: ${unseen.join(', ')}`)
})
