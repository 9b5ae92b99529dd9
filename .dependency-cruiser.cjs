// The layering of docs/ARCHITECTURE.md, checked by `npm run lint` (STYLE habit 7: arrows point down only).
// From the top: main.ts; app.ts and deps.ts (the wiring); ops/, jobs/, audit/, demo/; surfaces/; http/; domain/;
// net/; db/ (with the names the tables store, db/vocabulary.ts). A module may import its own layer or any below it,
// never one above, and no module may come back to itself through others. Tests beside the code are left out of the
// layer rules (they may drive a rule through the layers above it) but not out of the circle rule.
const TESTS = '\\.test\\.ts$';

/** A rule forbidding `from` to import any of `to`, for the source files (not tests) of `from`. */
const above = (name, comment, from, to) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from, pathNot: TESTS },
  to: { path: to },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A module that comes back to itself through others: the layers are no longer an order.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    above('nothing-imports-main', 'main.ts is the command; nothing is below it.', '^src/', '^src/main\\.ts$'),
    above(
      'wiring-is-the-top',
      'app.ts and deps.ts assemble everything; only main.ts (and each other) may import them.',
      '^src/(?!main\\.ts$|app\\.ts$|deps\\.ts$)',
      '^src/(app|deps)\\.ts$',
    ),
    above(
      'surfaces-below-processes',
      'The surfaces answer requests; the processes that run beside them (jobs, ops, audit, demo) sit above.',
      '^src/surfaces/',
      '^src/(jobs|ops|audit|demo)/',
    ),
    above('http-below-surfaces', 'http/ is what every surface shares; it knows none of them.', '^src/http/', '^src/(surfaces|jobs|ops|audit|demo)/'),
    above(
      'domain-below-http',
      'The domain knows no transport: its errors carry a code, and http/ maps them to statuses.',
      '^src/domain/',
      '^src/(http|surfaces|jobs|ops|audit|demo)/',
    ),
    above('i18n-at-the-bottom', 'i18n/ is the catalog of words every layer formats; it imports nothing of src/.', '^src/i18n/', '^src/(?!i18n/)'),
    above('net-below-domain', 'net/ makes outbound requests for the domain; it knows nothing of it.', '^src/net/', '^src/(?!net/)'),
    above(
      'db-at-the-bottom',
      'db/ is the client, the tables and their stored names; it imports nothing above it (migrations included).',
      '^src/db/',
      '^src/(?!db/)',
    ),
    above(
      'config-below-domain',
      'Every layer is handed the Config; config.ts checks key settings with the transparency log\'s pure parsers, and nothing else above it.',
      '^src/config\\.ts$',
      '^src/(?!config\\.ts$|domain/transparency/(note|cosignature|merkle)\\.ts$)',
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
