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
  // Services decide and throw AppError (src/lib/errors.ts); only routes and their schemas speak HTTP.
  forbid(['src/modules/**'], ['**/http/**', '**/web/**', ...app], 'In a module only routes.ts and schemas.ts import src/http/; services throw AppError from src/lib/errors.ts.', [
    'src/modules/**/routes.ts',
    'src/modules/**/*-routes.ts',
    'src/modules/**/schemas.ts',
  ]),
  forbid(['src/modules/**/routes.ts', 'src/modules/**/*-routes.ts', 'src/modules/**/schemas.ts'], ['**/web/**', ...app], 'A route answers JSON; pages live in src/web/.'),
  // The HTTP layer maps and guards; it reads the key's account and nothing else of the domain.
  forbid(['src/http/**'], [...modulesButAccounts, '**/providers/**', '**/web/**', ...app], 'src/http/ maps errors and guards requests; it reads only the accounts module.'),
  // The queue is storage for jobs; only the handler list knows the modules that run them.
  forbid(['src/jobs/**'], ['**/modules/**', '**/providers/**', '**/http/**', '**/web/**', ...app], 'src/jobs/ runs jobs; only handlers.ts names the modules that handle them.', [
    'src/jobs/handlers.ts',
  ]),
  // Screening judges a reservation; the reservations module and the portal ask it to, never the reverse.
  forbid(
    ['src/modules/screening/**'],
    ['**/modules/reservations/**', '**/modules/portal/**'],
    'Screening sits below reservations: it reads rows through its own repo.ts and types from src/db/schema.ts.',
  ),

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
