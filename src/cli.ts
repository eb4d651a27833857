#!/usr/bin/env -S node --heap-growing-percent=50
// The flag (also in package.json's start script): under the searches, requests parked while a
// reader thread answers outlive young-generation collections and are promoted, and V8, finding
// its collections cheap, let the old generation grow fourfold before collecting it. Growing by
// half at most keeps the peak memory well down at the same throughput (docs/performance.md).
import { Command, Option } from 'commander';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Server } from 'node:http';
import { loadLists, openDeps, out, ready, UsageError, wholeNumber, type OpenOptions } from './cli/context.js';
import { dataCommand } from './cli/data.js';
import type { Deps } from './deps.js';
import { keepPrivate, readableByOthers } from './lib/private-files.js';
import type { AccountRow } from './modules/accounts/repo.js';
import { VERSION } from './version.js';

// The service's modules are imported by the commands that use them, so `--help` and `--version`
// answer without loading the HTTP server, the database drivers or the checks.
const runtime = () => import('./runtime.js');
const accountsRepo = () => import('./modules/accounts/repo.js');
const accountsService = () => import('./modules/accounts/service.js');
const passwords = () => import('./lib/passwords.js');
const jobsRepo = () => import('./jobs/repo.js');
const closeWithGrace = async () => (await import('close-with-grace')).default;

/** Opens the database, runs `fn`, and closes the database again (a command that keeps serving closes it on shutdown). */
async function withDeps(opts: OpenOptions & { keepOpen?: boolean }, fn: (deps: Deps) => Promise<void>): Promise<void> {
  const deps = await openDeps(opts);
  try {
    await fn(deps);
  } catch (err) {
    await deps.database.close().catch(() => undefined);
    throw err;
  }
  if (!opts.keepOpen) await deps.database.close();
}

/**
 * For commands that work on an existing database: it makes one only when asked. The schema is
 * brought up to date first, and the root account made (and its key printed) if it was not.
 */
const run = (fn: (deps: Deps, root: { rootId: string }) => Promise<void>, o: { createDatabase?: boolean }) =>
  withDeps({ create: Boolean(o.createDatabase), announce: true }, async (deps) => fn(deps, await ready(deps)));
/** An account by its id, or by its e-mail when exactly one account has that e-mail. */
async function accountNamed(deps: Deps, which: string): Promise<AccountRow> {
  const { accountsByEmail, findAccount } = await accountsRepo();
  if (!which.includes('@')) {
    const account = await findAccount(deps.db, which);
    if (!account) throw new UsageError(`account ${which} not found (\`guestscreen accounts list\` lists them)`);
    return account;
  }
  const found = await accountsByEmail(deps.db, which);
  if (found.length === 0) throw new UsageError(`no account has the e-mail ${which} (\`guestscreen accounts list\` lists them)`);
  if (found.length > 1) throw new UsageError(`${found.length} accounts have the e-mail ${which}: give one of their ids (${found.map((a) => a.id).join(', ')})`);
  return found[0]!;
}

const withDatabaseOption = (c: Command) => c.option('--create-database', 'make a new database when there is none where the configuration points (by default the command refuses)');

function listeningOn(server: Server): string {
  const address = server.address();
  return typeof address === 'object' && address ? `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}` : String(address);
}

async function serve(command: 'start' | 'serve', deps: Deps) {
  // The root key, if this start made the root account, comes last, under the banner.
  const rootKeyLines: string[] = [];
  await ready(deps, (line) => rootKeyLines.push(line));
  await loadLists(deps);
  const { beginShutdown, killWhenStuck, startMetricsListener, startServer, startWorker } = await runtime();
  const app = await startServer(deps);
  const metrics = await startMetricsListener(deps);
  const worker = command === 'start' ? startWorker(deps) : undefined;
  // A stop signal is handled from here on: before the banner says the service listens (a
  // supervisor may stop it the moment it reads that line) and before the warnings below read the data sources.
  killWhenStuck(deps.config.shutdownDelayMs + deps.config.shutdownGraceMs);
  (await closeWithGrace())({ delay: deps.config.shutdownDelayMs + deps.config.shutdownGraceMs }, async ({ err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    await beginShutdown(deps);
    await app.close();
    metrics?.close();
    // The jobs' share of the grace period: what is left is the database's close and the exit.
    await worker?.stop(Math.max(1000, deps.config.shutdownGraceMs - 5000));
    await deps.database.close();
  });
  const listening = listeningOn(app.server);
  out(`guestscreen ${VERSION} ${command === 'start' ? 'API and worker' : 'API'} listening on ${listening} (${deps.database.description})`);
  out(`Public URL: ${deps.config.publicUrl}`);
  out(`API reference: ${deps.config.publicUrl}/docs`);
  out(`Host console: ${deps.config.publicUrl}/console`);
  if (metrics) out(`Metrics: ${listeningOn(metrics)}/metrics`);
  rootKeyLines.forEach(out);
  if (!deps.config.databaseUrl) {
    const exposed = readableByOthers(deps.config.dataDir);
    // Said on the console, whatever the log level: guests' identities and the key are in there.
    if (exposed.length)
      out(
        `Warning: other accounts of this machine can read ${exposed.length} of the data directory's files (${exposed
          .slice(0, 3)
          .map((f) => `${path.basename(f.path)} ${f.mode}`)
          .join(', ')}): run chmod -R go-rwx ${deps.config.dataDir}`,
      );
  }
  const { dataSources, sanctionsListAges, staleListWarning } = await import('./modules/system/sources.js');
  const lists = await sanctionsListAges(deps);
  if (lists.length) out(`Sanctions lists: ${lists.map((l) => `${l.source} of ${l.dataDate}`).join('; ')}`);
  for (const l of lists) if (l.stale) out(`Warning: ${staleListWarning(deps, l)}`);
  for (const source of await dataSources(deps, lists))
    if (!source.installed) app.log.warn({ source: source.name }, `no ${source.name}: the checks that read them answer "Not checked"; ${source.detail.replace(/^none: /, '')}`);
}

/** The first line of standard input: where a password comes from, so it stays out of the shell's history and the process list. */
async function firstLineOfInput(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

function program(): Command {
  const p = new Command('guestscreen')
    .description('Self-hostable guest screening for short-term rentals. Configuration comes from environment variables (docs/configuration.md, .env.example).')
    .version(VERSION, '-V, --version', 'print the version')
    .showHelpAfterError('(add --help for usage)')
    .configureHelp({ showGlobalOptions: true })
    .addHelpText('after', '\nEvery command takes --help. Docs: docs/cli.md, docs/deployment.md.');

  p.command('start')
    .description('run the API and the background worker in one process (the default deployment); makes the database on first start')
    .action(() => withDeps({ create: true, announce: false, keepOpen: true }, (deps) => serve('start', deps)));
  p.command('serve')
    .description('run the HTTP API, guest portal, console, signup pages and docs without the worker (with `guestscreen worker` elsewhere)')
    .action(() => withDeps({ create: true, announce: false, keepOpen: true }, (deps) => serve('serve', deps)));
  p.command('worker')
    .description('run background jobs only: webhook and callback deliveries, guest messages, re-screening')
    .action(() =>
      withDeps({ create: true, announce: false, keepOpen: true }, async (deps) => {
        await ready(deps, out);
        await loadLists(deps);
        const { killWhenStuck, startJobThreads, startMetricsListener, startWorker } = await runtime();
        const worker = startWorker(deps, 'dedicated');
        const count = deps.config.workerThreads;
        const threads = count > 1 ? await startJobThreads(count - 1, process.env) : undefined;
        const metrics = await startMetricsListener(deps);
        // The stop signal's handler first, as for serve: the banner may be what a supervisor waits for.
        killWhenStuck(deps.config.shutdownGraceMs);
        (await closeWithGrace())({ delay: deps.config.shutdownGraceMs }, async ({ err }) => {
          if (err) deps.log?.error({ err }, 'shutting down after an error');
          metrics?.close();
          await Promise.all([worker.stop(Math.max(1000, deps.config.shutdownGraceMs - 5000)), threads?.stop()]);
          await deps.database.close();
        });
        out(`guestscreen ${VERSION} worker ${worker.id} started with ${count} job ${count === 1 ? 'thread' : 'threads'} (${deps.database.description})`);
        if (metrics) out(`Metrics: ${listeningOn(metrics)}/metrics`);
      }),
    );
  p.command('migrate')
    .description('make the database, or bring its schema up to date, and exit (every serving command does this too)')
    .action(() =>
      withDeps({ create: true, announce: false }, async (deps) => {
        await ready(deps, out);
        await loadLists(deps);
        out(`database is up to date (${deps.database.description})`);
      }),
    );

  const accounts = p.command('accounts').description('create accounts and set their console passwords');
  withDatabaseOption(
    accounts
      .command('create')
      .description('create an account (a child of the root unless --parent) and print it with its API key')
      .requiredOption('--name <name>', "the account's name")
      .requiredOption('--email <email>', "the account's e-mail address")
      .option('--reseller', 'the account may create and manage accounts of its own')
      .option('--parent <id>', 'the parent account (default: the root account)')
      .option('--password <password>', 'a console password (better: set it with `accounts password`, which reads it from standard input)')
      .option('--json', 'print the account and key as JSON'),
  ).action((o: { name: string; email: string; reseller?: boolean; parent?: string; password?: string; json?: boolean; createDatabase?: boolean }) =>
    run(async (deps, { rootId }) => {
      const [{ findAccount }, { createAccount, toAccountView }, { hashPassword }] = await Promise.all([accountsRepo(), accountsService(), passwords()]);
      const parent = await findAccount(deps.db, o.parent ?? rootId);
      if (!parent) throw new UsageError(`parent account ${o.parent} not found`);
      const reseller = Boolean(o.reseller);
      const { account, apiKey } = await createAccount(
        deps,
        deps.db,
        { parent, name: o.name, email: o.email, isReseller: reseller, passwordHash: o.password ? await hashPassword(o.password) : null },
        null,
      );
      if (o.json) out(JSON.stringify({ account: toAccountView(account), api_key: apiKey }, null, 2));
      else out(`created account ${account.id} (${account.name}, ${account.email})${reseller ? ' as a reseller' : ''}\napi key: ${apiKey}`);
    }, o),
  );
  accounts
    .command('list')
    .description('list every account: id, name, e-mail, whether it is a reseller, its state and its parent')
    .option('--json', 'print the accounts as JSON')
    .action((o: { json?: boolean }) =>
      run(async (deps) => {
        const [{ allAccounts }, { toAccountView }] = await Promise.all([accountsRepo(), accountsService()]);
        const rows = await allAccounts(deps.db);
        if (o.json) return void out(JSON.stringify(rows.map(toAccountView), null, 2));
        const state = (a: AccountRow) => (!a.is_active ? 'disabled' : a.is_suspended ? 'suspended' : 'active');
        for (const a of rows) out(`${a.id}  ${a.name}  <${a.email}>  ${a.is_reseller ? 'reseller' : 'host'}  ${state(a)}${a.parent_id ? `  parent ${a.parent_id}` : '  (root)'}`);
      }, {}),
    );
  accounts
    .command('password')
    .description(
      "set or reset the console password of an account's first owner (made from the account when it has no people yet), read from the first line of standard input: printf '%s\\n' \"$PW\" | guestscreen accounts password ID-OR-EMAIL",
    )
    .argument('<account>', "the account's id, or its e-mail when one account has it")
    .action((which: string) =>
      run(async (deps) => {
        const account = await accountNamed(deps, which);
        if (process.stdin.isTTY) process.stderr.write(`New password for ${account.name} (${account.email}), then Enter: `);
        const password = await firstLineOfInput();
        if (password.length < 8 || password.length > 256) throw new UsageError('the password must be 8 to 256 characters');
        const [{ setOwnerPassword }, { hashPassword }, { OPERATOR }] = await Promise.all([import('./modules/users/service.js'), passwords(), import('./lib/actor.js')]);
        const owner = await setOwnerPassword(deps, deps.db, account, await hashPassword(password), OPERATOR);
        out(`password set for account ${account.id} (${account.name}, ${account.email}): its owner ${owner.name} <${owner.email}> signs in with it`);
      }, {}),
    );

  p.command('keys')
    .description('API keys')
    .command('generate')
    .description("print a new API key in the service's format, for GUESTSCREEN_ROOT_KEY (opens no database)")
    .action(async () => void out((await import('./lib/api-keys.js')).generateApiKey()));

  p.addCommand(dataCommand(run, withDatabaseOption));

  const jobs = p.command('jobs').description('the background job queue');
  jobs
    .command('list')
    .description('list queued, running and failed jobs with their last error')
    .option('--failed', 'failed jobs only')
    .option('--json', 'print the jobs as JSON')
    .action((o: { failed?: boolean; json?: boolean }) =>
      run(async (deps) => {
        const list = await (await jobsRepo()).listJobs(deps.db, { failed: Boolean(o.failed) });
        if (o.json) {
          out(
            JSON.stringify(
              list.map((j) => ({ ...j, payload: JSON.parse(j.payload) as unknown })),
              null,
              2,
            ),
          );
          return;
        }
        if (list.length === 0) out(o.failed ? 'no failed jobs' : 'no jobs');
        for (const j of list) {
          out(`${j.id}  ${j.kind.padEnd(16)} ${j.state.padEnd(9)} attempt ${j.attempt}/${j.max_attempts}  run at ${j.run_at}${j.last_error ? `  last error: ${j.last_error}` : ''}`);
        }
      }, {}),
    );
  jobs
    .command('retry')
    .description('put a failed job back in line with fresh attempts')
    .argument('<id>', 'the job')
    .action((id: string) =>
      run(async (deps) => {
        if (!(await (await jobsRepo()).retryJob(deps.db, id, deps.clock))) throw new UsageError(`job ${id} is not a failed job`);
        out(`job ${id} queued again`);
      }, {}),
    );

  p.command('backup')
    .description('write a backup of the embedded database and its data directory to FILE (gzipped tar) while the service runs; on PostgreSQL, prints the pg_dump command')
    .argument('<file>', 'the backup file to write (must not exist)')
    .action(async (file: string) => {
      const [{ loadConfig }, { backup }] = await Promise.all([import('./config.js'), import('./cli/backup.js')]);
      const config = loadConfig();
      const made = await backup(config, file);
      out(`backup of ${config.dataDir} written to ${made.file} (${(made.bytes / 1e6).toFixed(1)} MB: ${made.files.join(', ')})`);
    });
  p.command('restore')
    .description('unpack a backup made by `guestscreen backup` into the data directory, which must be empty or missing')
    .argument('<file>', 'the backup file')
    .option('--data-dir <dir>', 'where to restore it (default: GUESTSCREEN_DATA_DIR, else ./data)')
    .action(async (file: string, o: { dataDir?: string }) => {
      const [{ loadConfig }, { restore }, { createDeps }, { findRootAccount }, { webhookSecret }] = await Promise.all([
        import('./config.js'),
        import('./cli/backup.js'),
        runtime(),
        accountsRepo(),
        import('./modules/webhooks/secret.js'),
      ]);
      const config = loadConfig(o.dataDir ? { ...process.env, GUESTSCREEN_DATA_DIR: o.dataDir } : process.env);
      const restored = await restore(config, file, async () => {
        // The encrypted fields open only with the secret of the installation that wrote them:
        // a generated one travels in the backup, a configured one must be set again.
        const deps = createDeps(config);
        try {
          const root = await findRootAccount(deps.db);
          if (root) webhookSecret(deps, root);
        } catch {
          throw new UsageError(
            `the restored data's encrypted fields do not open with this GUESTSCREEN_SECRET: set the secret the backed-up installation used, or unset it if that one generated its own (secret.key in the backup)`,
          );
        } finally {
          await deps.database.close();
        }
      });
      out(`restored ${restored.files.join(', ')} into ${restored.dataDir} (schema at ${restored.lastMigration ?? 'no migration'}); \`guestscreen start\` brings the schema up to date and serves it`);
    });

  withDatabaseOption(
    p
      .command('demo')
      .description(
        "seed a demo reseller, accounts, reservations and payment events, every reservation queued for screening, and print the accounts' keys and a console sign-in; makes the database when there is none",
      )
      .addOption(new Option('--accounts <n>', 'accounts under the demo reseller').argParser(wholeNumber(1)).default(3))
      .addOption(new Option('--reservations <n>', "the first account's reservations").argParser(wholeNumber(0)).default(500))
      .addOption(new Option('--per-account <n>', "each other account's reservations").argParser(wholeNumber(0)).default(50))
      .addOption(new Option('--seed <n>', 'the random seed: the same seed gives the same guests').argParser(wholeNumber(0)).default(42))
      .option('--unscreened', 'queue none of them for screening (load tests of the API alone)')
      .option('--json', 'print the seeded accounts as JSON'),
  ).action((o: { accounts: number; reservations: number; perAccount: number; seed: number; unscreened?: boolean; json?: boolean }) =>
    // The demo's purpose is a database to look around in: it makes one where there is none.
    withDeps({ create: true, announce: true }, (deps) => demo(deps, o)),
  );
  return p;
}

async function demo(deps: Deps, o: { accounts: number; reservations: number; perAccount: number; seed: number; unscreened?: boolean; json?: boolean }) {
  const { rootId } = await ready(deps);
  // The demo's listed guests come from the lists: install the bundled ones first on a new database.
  await loadLists(deps, o.json ? null : out);
  const started = Date.now();
  // faker and its locales are large: loaded for `demo` only, not in every service process.
  const { seedDemo } = await import('./modules/demo/seed.js');
  // One console password for this run's demo accounts, new each run, printed below.
  const password = randomBytes(9).toString('base64url');
  const unscreened = Boolean(o.unscreened);
  const { hashPassword } = await passwords();
  const result = await seedDemo(deps, rootId, { accounts: o.accounts, reservations: o.reservations, perAccount: o.perAccount, seed: o.seed, unscreened, passwordHash: await hashPassword(password) });
  if (o.json) {
    out(JSON.stringify(result, null, 2));
    return;
  }
  out(
    `seeded ${result.reservations} reservations and ${result.payment_events} payment events in ${result.accounts.length} accounts (${((Date.now() - started) / 1000).toFixed(1)} s); ${unscreened ? 'none queued for screening' : "`guestscreen start` screens them (some guests are on the sanctions lists, three on the first account's blocklist)"}`,
  );
  out(`reseller ${result.reseller.id}: ${result.reseller.api_key}`);
  for (const a of result.accounts) out(`account ${a.id} (${a.name}, ${a.reservations} reservations): ${a.api_key}`);
  const first = result.accounts[0];
  out(`\nhost console: ${deps.config.publicUrl}/console`);
  if (first) out(`  sign in as ${first.email} (${first.name}) with the password ${password}`);
  out(`  or as the reseller, ${result.reseller.email}, with the same password`);
  if (first) {
    out(`\ntry:\n  curl -H 'x-api-key: ${first.api_key}' '${deps.config.publicUrl}/v1/reservations?size=5'`);
    out(`  curl -H 'x-api-key: ${first.api_key}' '${deps.config.publicUrl}/v1/reservations?search=maria&active=1'`);
  }
}

/** Errors the operator can act on are shown as their message; anything else is a bug, shown with its stack. */
function explain(err: unknown): string {
  // ConfigError by its name: config.ts is not loaded for --help.
  if (err instanceof UsageError || (err instanceof Error && err.name === 'ConfigError')) return err.message;
  if (err instanceof Error && (err.constructor === Error || typeof (err as { code?: unknown }).code === 'string')) return err.message;
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

// Before any command opens or makes a file: the data directory is its owner's alone (lib/private-files.ts).
keepPrivate();
try {
  // Commander prints its own errors (an unknown command or option, a missing argument) and exits with 1.
  await program().parseAsync(process.argv);
} catch (err) {
  process.stderr.write(`guestscreen: ${explain(err)}\n`);
  process.exitCode = 1;
}
