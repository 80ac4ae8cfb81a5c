import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { test } from 'node:test'
import { projectPath } from '../../src/platform/paths.js'

/**
 * The boundary rules (.dependency-cruiser.cjs, run by `npm run lint`) are checked against a fixture house
 * whose every file but the wiring breaks one of them: a rule that does not fire there would let the real
 * src/ drift unnoticed.
 */
const FIXTURE = projectPath('test', 'fixtures', 'boundaries')

interface Violation {
  from: string
  to: string
  rule: { name: string }
}

async function violationsInFixture(): Promise<Violation[]> {
  const cli = projectPath('node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs')
  const config = projectPath('.dependency-cruiser.cjs')
  // Exit code 1 means "violations found", which is what this fixture is for: read the report either way.
  const { stdout } = await promisify(execFile)(process.execPath, [cli, 'src', '--config', config, '--output-type', 'json'], { cwd: FIXTURE }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
  )
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations
}

test('every boundary rule reports its deliberate violation in the fixture, and the wiring breaks none', async () => {
  const violations = await violationsInFixture()
  const reported = violations.map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`).sort()
  assert.deepEqual(reported, [
    'front-door-hides-repository-and-tables: src/inventory/index.js → src/inventory/inventory.repository.js',
    'front-door-only: src/analytics/report.js → src/pos/auto-map/matcher.js',
    'front-door-only: src/ordering/orders.service.js → src/inventory/inventory.service.js',
    'no-arrow-up-from-inventory: src/inventory/inventory.service.js → src/analytics/index.js',
    'no-arrow-up-from-ordering-or-pos: src/pos/sales.service.js → src/ordering/index.js',
    'no-arrow-up-from-recipes: src/recipes/recipes.service.js → src/pos/index.js',
    'no-arrow-up: src/locations/locations.routes.js → src/inventory/index.js',
    'no-cycles: src/inventory/cycle-a.js → src/inventory/cycle-b.js',
    'only-wiring-imports-analytics: src/inventory/inventory.service.js → src/analytics/index.js',
    'platform-imports-no-domain: src/platform/leak.js → src/inventory/index.js',
  ])
})
