/**
 * The dependency rule of docs/ARCHITECTURE.md, checked by `npm run deps` (part of `npm run lint`):
 *
 *   fronts (rest/, resolvers/, src/oidc/, src/auth/bearer.ts, src/server.ts, src/cli.ts)
 *     → src/services/<family>/
 *       → src/core/, src/auth/ (permissions, keys and keystores, passwords, realm-keys), src/representations/, src/loaders/
 *         → src/db/   (and src/keycloak/, src/logging/, src/config/ anywhere)
 *
 * A lower layer never imports a higher one, Keycloak's catalogues never import services or the
 * database, and there are no import cycles (type-only imports count too).
 */
const FRONTS = '^(rest|resolvers)/|^src/(oidc/|server\\.ts|cli\\.ts|auth/bearer\\.ts)';
const CORE = '^src/(core|representations|loaders)/|^src/auth/(permissions|keys|keystores|keystore-types|jks|passwords|realm-keys)\\.ts';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle: move the shared part down a layer (see docs/ARCHITECTURE.md).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'services-not-fronts',
      severity: 'error',
      comment: 'Services are called by the fronts, never the other way round.',
      from: { path: '^src/services/' },
      to: { path: FRONTS },
    },
    {
      name: 'core-not-services',
      severity: 'error',
      comment: 'The shared core, representations and loaders serve every family and import none of them.',
      from: { path: CORE },
      to: { path: `^src/services/|${FRONTS}` },
    },
    {
      name: 'db-is-the-floor',
      severity: 'error',
      comment: 'Models and migrations import nothing above the database layer.',
      from: { path: '^src/db/' },
      to: { path: `^src/(services|core|representations|loaders|auth|oidc|keycloak)/|^(rest|resolvers)/` },
    },
    {
      name: 'catalogues-are-data',
      severity: 'error',
      comment: "Keycloak's catalogues are data: no services, no database, no fronts.",
      from: { path: '^src/keycloak/' },
      to: { path: `^src/(services|core|loaders|db|auth|oidc)/|^(rest|resolvers)/` },
    },
    {
      name: 'base-libraries',
      severity: 'error',
      comment: 'Logging, metrics and configuration are the base every layer uses; they use nothing of the server.',
      from: { path: '^src/(logging|metrics|config)/' },
      to: { path: `^src/(services|core|representations|loaders|db|auth|oidc|keycloak)/|^(rest|resolvers)/` },
    },
    {
      name: 'rest-not-graphql',
      severity: 'error',
      comment: 'The two fronts are siblings: each calls services, neither calls the other.',
      from: { path: '^rest/' },
      to: { path: '^resolvers/' },
    },
    {
      name: 'graphql-not-rest',
      severity: 'error',
      from: { path: '^resolvers/' },
      to: { path: '^rest/' },
    },
    {
      name: 'no-test-code-in-the-server',
      severity: 'error',
      from: { path: '^(src|rest|resolvers)/' },
      to: { path: '^(test|bench|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
