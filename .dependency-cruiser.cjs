/**
 * Module boundaries, checked by `npm run lint` (docs/architecture.md, "Layers and boundaries").
 * A new cycle or an import that reaches past a boundary fails the lint.
 */
const ROOTS = '^src/(app|worker|main|cli|server|config|import-kinds|schema|messages)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'Cycles make load order matter and hide which side owns a rule.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'lower-layers-import-no-module',
      severity: 'error',
      comment: 'db, infra, http and i18n serve every module; they import none, nor a composition root.',
      from: { path: '^src/(db|infra|http|i18n)/' },
      to: { path: ['^src/modules/', '^src/demo/', ROOTS] },
    },
    {
      name: 'only-roots-import-roots',
      severity: 'error',
      comment:
        'app.ts, worker.ts, main.ts, the import-kinds registry and the table types and messages (schema.ts, messages.ts) know every module; nothing below them may import them.',
      from: { path: '^src/', pathNot: ROOTS },
      to: { path: '^src/(app|worker|main|cli|server|import-kinds|schema|messages)\\.ts$' },
    },
    {
      name: 'modules-declare-their-own-config',
      severity: 'error',
      comment: 'A module reads the config section it declares (its .config.ts), not the whole Config.',
      from: { path: '^src/modules/' },
      to: { path: '^src/config\\.ts$' },
    },
    {
      name: 'modules-meet-through-index',
      severity: 'error',
      comment: "Another module's files are reached only through its index.ts, its public surface.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/([^/]+)/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'http-stays-in-routes',
      severity: 'error',
      comment: 'Only route files (and their plugins) speak HTTP: services, repositories and the rest take plain input.',
      from: { path: '^src/(modules|demo|db|infra/(jobs|mail|import))/', pathNot: ['\\.routes\\.ts$', '\\.plugin\\.ts$'] },
      to: { path: '^fastify$|node_modules/fastify/|^@fastify/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    exclude: { path: '^dist/' },
  },
};
