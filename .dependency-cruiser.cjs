/** Boundaries of the house (README "Layout", ARCHITECTURE.md). `npm run lint:boundaries` checks them. */
const DOMAINS = '(analytics|inventory|locations|ordering|pos|recipes|settings|webhooks)'

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'platform-imports-no-domain',
      comment: 'src/platform/ holds shared mechanisms; it never imports a domain (domains plug in by declaration merging or injection).',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: `^src/${DOMAINS}/` },
    },
    {
      name: 'front-door-only',
      comment:
        "A room is entered by its front door: other domains, platform and the wiring import src/<domain>/index.ts, never the domain's other files " +
        '(services, repositories, tables and sub-folders are its inside). The CLI (src/cli/) is let in: its pos commands drive pos\'s own tools, ' +
        'the vendor simulators and the sales CSV import.',
      severity: 'error',
      from: { path: '^src/([^/.]+)', pathNot: '^src/cli/' },
      to: { path: `^src/${DOMAINS}/`, pathNot: ['^src/$1/', `^src/${DOMAINS}/index[.][jt]s$`] },
    },
    {
      name: 'front-door-hides-repository-and-tables',
      comment: "A front door publishes functions named by intent and types of the domain's own, never its repository or table files.",
      severity: 'error',
      from: { path: `^src/${DOMAINS}/index[.][jt]s$` },
      to: { path: '[.](repository|tables)[.][jt]s$' },
    },
    {
      name: 'only-wiring-imports-analytics',
      comment: 'Analytics observes the other domains; only the wiring (src/app.ts, src/workers.ts, src/event-registry.ts, src/cli/) imports it.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/analytics/', '^src/(app|workers|event-registry)[.][jt]s$', '^src/cli/'] },
      to: { path: '^src/analytics/' },
    },
    {
      name: 'no-arrow-up',
      comment:
        'Domains are layered: settings, locations and webhooks import no domain; inventory may import settings and locations; recipes inventory too; ' +
        'ordering and pos the ones below them (pos also recipes); analytics any. An arrow the other way runs back up: inject it at the wiring (as countObserver).',
      severity: 'error',
      from: { path: '^src/(settings|locations|webhooks)/' },
      to: { path: `^src/${DOMAINS}/`, pathNot: '^src/$1/' },
    },
    {
      name: 'no-arrow-up-from-inventory',
      comment: 'See no-arrow-up.',
      severity: 'error',
      from: { path: '^src/inventory/' },
      to: { path: '^src/(recipes|ordering|pos|webhooks|analytics)/' },
    },
    {
      name: 'no-arrow-up-from-recipes',
      comment: 'See no-arrow-up.',
      severity: 'error',
      from: { path: '^src/recipes/' },
      to: { path: '^src/(ordering|pos|webhooks|analytics)/' },
    },
    {
      name: 'no-arrow-up-from-ordering-or-pos',
      comment: 'See no-arrow-up. Ordering and pos stand side by side and import neither each other nor webhooks.',
      severity: 'error',
      from: { path: '^src/(ordering|pos)/' },
      to: { path: '^src/(ordering|pos|webhooks|analytics)/', pathNot: '^src/$1/' },
    },
    {
      name: 'no-cycles',
      comment: 'No import cycles (type-only imports included: they still tie the rooms together).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
}
