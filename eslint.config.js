// The linter: typescript-eslint's type-checked recommendations (why this one and not Biome's linter:
// ARCHITECTURE.md, "Development"). Formatting is Biome's (biome.json); boundaries are dependency-cruiser's
// (.dependency-cruiser.cjs); unused exports and dependencies are knip's (knip.json).
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'clients/typescript/src/schema.ts', 'test/fixtures/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] }],
      // Fastify plugins and hooks, job handlers and observers are async by their interface even when a body
      // happens not to await: the rule would have them rewritten to return Promise.resolve by hand.
      '@typescript-eslint/require-await': 'off',
      // A binding a cleanup hook reads before the test assigns it must stay `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Each domain adds its event kinds to the platform's empty EventCatalog by declaration merging, and
      // its events interfaces extend a base without adding members: both on purpose.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'always' }],
      // It reads `keyof T & string` (the string keys of T) as redundant: it is the idiom, not a mistake.
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      // Decimals (big.js) and query strings print what they hold.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        {
          allow: [
            { from: 'package', package: 'big.js', name: 'Big' },
            { from: 'lib', name: 'URLSearchParams' },
          ],
          allowNumber: true,
          allowBoolean: true,
          allowNullish: true,
        },
      ],
    },
  },
  {
    // The vendor simulators read query and body values typed unknown and stringify them as the vendor does.
    files: ['src/pos/vendors/**/*.simulat*.ts'],
    rules: { '@typescript-eslint/no-base-to-string': 'off' },
  },
  {
    // The console's form handlers are async and report their own failures (try/catch, submission.submit):
    // a Preact handler may return the promise.
    files: ['console/src/**/*.tsx'],
    rules: { '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }] },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // Tests and benchmarks read response bodies as `any` (json()) and check their shape with assertions at
      // run time: a type for each body would add casts, not safety. The rules stay on for src/.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      // A cast of a parsed body to the shape under test reads better than a type argument.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // Test servers take async handlers: a failure there ends the test process loudly, as a test wants.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
    },
  },
  {
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
)
