// The linter holds the structure in place (docs/architecture.md, "Import rules") and catches the
// promise mistakes the type checker lets through. Formatting is Prettier's (`npm run format`).
import eslintConfigPrettier from 'eslint-config-prettier/flat';
import { readdirSync } from 'node:fs';
import tseslint from 'typescript-eslint';

/** Imports a layer may not make: gitignore-style patterns over the import's path. */
const forbid = (files, groups, message, ignores = []) => ({
  files,
  ignores: ['**/*.test.ts', '**/*.test.tsx', ...ignores],
  rules: { 'no-restricted-imports': ['error', { patterns: [{ group: groups, message }] }] },
});

const app = ['**/app.js', '**/runtime.js', '**/openapi.js', '**/cli.js', '**/cli/**'];
/** Every module but accounts, whose key look-up the HTTP layer's authentication reads. */
const modulesButAccounts = readdirSync(new URL('./src/modules', import.meta.url))
  .filter((m) => m !== 'accounts')
  .map((m) => `**/modules/${m}/**`);

/**
 * The modules in their order, lowest first (docs/architecture.md, "The modules in order"): a
 * module imports only modules of a lower tier, and of them only their index.ts. A reaction
 * that must run the other way is an event (jobs/kinds.ts). Every folder of src/modules is in one.
 */
const MODULE_TIERS = [
  ['audit', 'bookings', 'guests', 'lookups', 'mail', 'notes', 'system', 'webhooks'],
  ['events', 'users'],
  ['accounts'],
  ['authority', 'background-checks', 'blocklist', 'settings', 'signup'],
  ['identity', 'listings'],
  ['screening'],
  ['messages', 'rules'],
  ['reservations'],
  ['alerts', 'demo', 'portal'],
];
const allModules = readdirSync(new URL('./src/modules', import.meta.url));
const tiered = MODULE_TIERS.flat();
for (const m of allModules) if (!tiered.includes(m)) throw new Error(`eslint.config.js: put the module ${m} in a tier of MODULE_TIERS`);
const routeFiles = ['routes.ts', '*-routes.ts', 'schemas.ts'];

/** Per module: no import of its own tier or above, no import past another module's index.ts, and HTTP only in its routes. */
function moduleRules() {
  const either = (names) => `(${names.join('|')})`;
  return MODULE_TIERS.flatMap((tier, i) =>
    tier.flatMap((m) => {
      const files = [`src/modules/${m}/**`];
      const ignores = ['**/*.test.ts', '**/*.test.tsx'];
      const notBelow = MODULE_TIERS.slice(i)
        .flat()
        .filter((n) => n !== m);
      const others = allModules.filter((n) => n !== m);
      const order = [
        ...(notBelow.length
          ? [
              {
                regex: `^(\\.\\./)+${either(notBelow)}/`,
                message: `${m} may import only modules below it (MODULE_TIERS in eslint.config.js); a reaction of a module above is an event (docs/architecture.md, "Events").`,
              },
            ]
          : []),
        {
          regex: `^(\\.\\./)+${either(others)}/(?!index\\.js$)`,
          message: 'Another module is imported through its index.ts only: what it offers. Export what you need there, or call a service that does.',
        },
      ];
      const pages = { group: ['**/web/**', ...app], message: 'A module answers JSON; pages live in src/web/.' };
      const http = { group: ['**/http/**'], message: 'In a module only routes.ts and schemas.ts import src/http/; services throw AppError from src/lib/errors.ts.' };
      return [
        { files, ignores, rules: { 'no-restricted-imports': ['error', { patterns: [pages, http, ...order] }] } },
        { files: routeFiles.map((f) => `src/modules/${m}/**/${f}`), ignores, rules: { 'no-restricted-imports': ['error', { patterns: [pages, ...order] }] } },
      ];
    }),
  );
}

const inTransaction = [
  {
    selector: "CallExpression[callee.name='withTx'] > :function MemberExpression[object.name='deps'][property.name='db']",
    message: 'Inside withTx use the transaction handle it passes; deps.db is the pool, outside the transaction.',
  },
];
const sqlOutsideRepositories = [
  ...['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto'].map((method) => ({
    selector: `CallExpression > MemberExpression.callee[property.name='${method}']`,
    message: `${method}: SQL belongs in a repository (the module's repo.ts, a data set's store.ts) or src/db/.`,
  })),
  { selector: "TaggedTemplateExpression[tag.name='sql'], MemberExpression[object.name='sql']", message: 'sql: SQL belongs in a repository (repo.ts, store.ts) or src/db/.' },
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'artifacts/', 'public/', 'examples/**/generated/'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Type-aware: a promise nobody awaits loses its error; an async function where a callback
      // expects none loses its rejection.
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },

  // Storage knows nothing of the domain above it.
  forbid(
    ['src/db/**'],
    ['**/modules/**', '**/providers/**', '**/http/**', '**/web/**', '**/jobs/**', ...app, '**/deps.js', '**/config.js'],
    'src/db/ holds storage only: nothing in it imports a module, a provider, the HTTP layer or the pages.',
  ),
  // Helpers know nothing of anything.
  forbid(['src/lib/**'], ['**/db/**', '**/modules/**', '**/providers/**', '**/http/**', '**/web/**', '**/jobs/**', ...app, '**/deps.js', '**/config.js'], 'src/lib/ imports only src/lib/.'),
  // Providers answer lookups in their own terms; the domain calls them, never the other way.
  forbid(['src/providers/**'], ['**/modules/**', '**/http/**', '**/web/**', ...app], 'A provider imports no module, no HTTP layer and no page.'),
  // The HTTP layer maps and guards; it reads the key's account and nothing else of the domain.
  forbid(['src/http/**'], [...modulesButAccounts, '**/providers/**', '**/web/**', ...app], 'src/http/ maps errors and guards requests; it reads only the accounts module.'),
  // The queue is storage for jobs; only the handler list knows the modules that run them.
  forbid(['src/jobs/**'], ['**/modules/**', '**/providers/**', '**/http/**', '**/web/**', ...app], 'src/jobs/ runs jobs; only handlers.ts names the modules that handle them.', [
    'src/jobs/handlers.ts',
  ]),
  // The modules in their order (MODULE_TIERS): each imports only from lower tiers, and only their index.ts.
  ...moduleRules(),

  // Inside a transaction the pool is out of reach: its work goes through the callback's handle.
  { files: ['src/**/*.ts', 'src/**/*.tsx'], rules: { 'no-restricted-syntax': ['error', ...inTransaction] } },
  // SQL lives in repositories (a module's repo.ts, a data set's store.ts) and below them in src/db/.
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/db/**', '**/repo.ts', '**/*-repo.ts', '**/store.ts', '**/*.test.ts', '**/*.test.tsx'],
    rules: { 'no-restricted-syntax': ['error', ...inTransaction, ...sqlOutsideRepositories] },
  },
  eslintConfigPrettier,
);
