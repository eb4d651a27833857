#!/usr/bin/env -S node --heap-growing-percent=50
// The flag (also in package.json's start script): under the searches, requests parked while a
// reader thread answers outlive young-generation collections and are promoted, and V8, finding
// its collections cheap, let the old generation grow fourfold before collecting it. Growing by
// half at most keeps the peak memory well down at the same throughput (docs/performance.md).
import closeWithGrace from 'close-with-grace';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import type { Deps } from './deps.js';
import { findAccount, updateAccount } from './modules/accounts/repo.js';
import { createAccount, toAccountView } from './modules/accounts/service.js';
import { hashPassword } from './lib/passwords.js';
import { randomBytes } from 'node:crypto';
import { listJobs, retryJob } from './jobs/repo.js';
import { createDeps, prepare, startServer, startWorker } from './runtime.js';

const USAGE = `guestscreen <command>

Commands:
  start                  API and worker in one process (the default deployment)
  serve                  HTTP API, guest portal, signup pages and docs only
  worker                 background jobs only
  migrate                bring the database schema up to date and exit
  accounts create --name N --email E [--reseller] [--parent ID] [--password P] [--json]
                         create an account and print it with its API key
  accounts password ID   set or reset an account's password (read from standard input)
  data import blocklist FILE --account ID [--json]
                         import blocklist entries from CSV (name,email,phone,document_number,reason)
  data import ip-threats FILE [--source S] [--title T] [--date D] [--link URL] [--tags a,b] [--json]
                         import an IP threat feed (FireHOL ipset/netset, IP or CIDR lists, Tor exit lists)
  data import breaches FILE [--source S] [--json]
                         import a breach corpus from CSV (email,name,domain,breach_date)
  data import sex-offenders FILE [--source S] [--json]
                         import registry records from CSV (see docs/lookups.md for the columns)
  data import sanctions FILE [--format ofac|un|eu|uk] [--aliases ALT.csv] [--addresses ADD.csv] [--comments C.csv] [--source S] [--date D] [--json]
                         import a sanctions list: OFAC's legacy CSV (SDN or consolidated, with its aliases and
                         addresses files), the UN consolidated XML, the EU financial sanctions XML or the UK
                         Sanctions List XML (the format is read from the file unless given)
  data import news FILE.jsonl [--source S] [--json]
                         import a news corpus for adverse media (one JSON article a line: url, title, snippet, published_at)
  data import geoip FILE.mmdb
                         replace the embedded DB-IP Lite database with another MMDB city database
  jobs list [--failed] [--json]
                         queued, running and failed background jobs
  jobs retry ID          put a failed job back in line
  demo [--accounts N] [--reservations N] [--per-account N] [--seed S] [--unscreened] [--json]
                         seed a demo reseller, accounts, reservations and payment events
                         (--unscreened: queue none of them for screening, for load tests)

Configuration is read from environment variables; see the README.`;

const out = (line: string) => process.stdout.write(`${line}\n`);

/** On a database without sanctions lists, the ones that ship with the service (providers/sanctions/bundled.ts). */
async function loadLists(deps: Deps, opts: { quiet?: boolean } = {}): Promise<void> {
  const { loadBundledLists } = await import('./providers/sanctions/bundled.js');
  for (const l of await loadBundledLists(deps))
    if (!opts.quiet) out(`Sanctions list loaded: ${l.source} of ${l.date} (${l.imported} names with aliases); \`guestscreen data import sanctions\` replaces it with a newer copy`);
}

async function run(deps: Deps, command: string, args: string[]): Promise<boolean> {
  switch (command) {
    case 'start':
    case 'serve': {
      const { rootKey } = await prepare(deps);
      await loadLists(deps);
      const app = await startServer(deps);
      const worker = command === 'start' ? startWorker(deps) : undefined;
      const address = app.server.address();
      const listening = typeof address === 'object' && address ? `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}` : String(address);
      out(`guestscreen ${command === 'start' ? 'API and worker' : 'API'} listening on ${listening} (${deps.database.description})`);
      out(`Public URL: ${deps.config.publicUrl}`);
      out(`API reference: ${deps.config.publicUrl}/docs`);
      out(`Host console: ${deps.config.publicUrl}/console`);
      const { dataSources } = await import('./modules/system/sources.js');
      for (const source of await dataSources(deps))
        if (!source.installed) app.log.warn({ source: source.name }, `no ${source.name}: the checks that read them answer "Not checked"; ${source.detail.replace(/^none: /, '')}`);
      if (rootKey) out(`Root account created. Its API key, shown only now:\n  ${rootKey}`);
      closeWithGrace({ delay: 15_000 }, async ({ err }) => {
        if (err) app.log.error({ err }, 'shutting down after an error');
        await app.close();
        await worker?.stop(10_000);
        await deps.database.close();
      });
      return true;
    }
    case 'worker': {
      await prepare(deps);
      await loadLists(deps);
      const worker = startWorker(deps, 'dedicated');
      out(`guestscreen worker ${worker.id} started (${deps.database.description})`);
      closeWithGrace({ delay: 15_000 }, async ({ err }) => {
        if (err) deps.log?.error({ err }, 'shutting down after an error');
        await worker.stop(10_000);
        await deps.database.close();
      });
      return true;
    }
    case 'jobs':
      await jobsCommand(deps, args);
      return false;
    case 'migrate': {
      const { rootKey } = await prepare(deps);
      await loadLists(deps);
      out(`database is up to date (${deps.database.description})`);
      if (rootKey) out(`Root account created. Its API key, shown only now:\n  ${rootKey}`);
      return false;
    }
    case 'accounts':
      await accountsCommand(deps, args);
      return false;
    case 'data':
      await dataCommand(deps, args);
      return false;
    case 'demo':
      await demoCommand(deps, args);
      return false;
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

class UsageError extends Error {}

/** The first line of standard input: where a password comes from, so it stays out of the shell's history and the process list. */
async function firstLineOfInput(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

async function accountsCommand(deps: Deps, args: string[]) {
  const [sub, ...rest] = args;
  if (sub === 'password') {
    const [id, ...extra] = rest;
    if (!id || extra.length) throw new UsageError('usage: accounts password ID (the new password is read from the first line of standard input)');
    await prepare(deps);
    const account = await findAccount(deps.db, id);
    if (!account) throw new UsageError(`account ${id} not found`);
    if (process.stdin.isTTY) process.stderr.write(`New password for ${account.name} (${account.email}), then Enter: `);
    const password = await firstLineOfInput();
    if (password.length < 8 || password.length > 256) throw new UsageError('the password must be 8 to 256 characters');
    await updateAccount(deps.db, account.id, { password_hash: await hashPassword(password), updated_at: deps.clock().toISOString() });
    out(`password set for account ${account.id} (${account.name}, ${account.email})`);
    return;
  }
  if (sub !== 'create') throw new UsageError(`unknown accounts command '${sub ?? ''}'`);
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      email: { type: 'string' },
      parent: { type: 'string' },
      password: { type: 'string' },
      reseller: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!values.name || !values.email) throw new UsageError('accounts create needs --name and --email');
  const { rootId } = await prepare(deps);
  const parent = await findAccount(deps.db, values.parent ?? rootId);
  if (!parent) throw new UsageError(`parent account ${values.parent} not found`);
  const { account, apiKey } = await createAccount(
    deps,
    deps.db,
    {
      parent,
      name: values.name,
      email: values.email,
      isReseller: values.reseller,
      passwordHash: values.password ? await hashPassword(values.password) : null,
    },
    null,
  );
  if (values.json) out(JSON.stringify({ account: toAccountView(account), api_key: apiKey }, null, 2));
  else out(`created account ${account.id} (${account.name}, ${account.email})${values.reseller ? ' as a reseller' : ''}\napi key: ${apiKey}`);
}

const DATA_USAGE = 'usage: data import blocklist|ip-threats|breaches|sex-offenders|sanctions|news|geoip FILE [options]';

async function dataCommand(deps: Deps, args: string[]) {
  const [sub, kind, file, ...rest] = args;
  if (sub !== 'import' || !kind || !file) throw new UsageError(DATA_USAGE);
  const progress = (json: boolean) => !json && Boolean(process.stderr.isTTY);
  const report = (json: boolean, result: { imported: number; rejected: { line: number; problem: string }[] }, what: string) => {
    if (json) {
      out(JSON.stringify(result, null, 2));
      return;
    }
    out(`imported ${result.imported} ${what}`);
    for (const r of result.rejected.slice(0, 20)) out(`  skipped line ${r.line}: ${r.problem}`);
    if (result.rejected.length > 20) out(`  … and ${result.rejected.length - 20} more skipped lines`);
  };
  // Each importer is loaded for its command only, like the demo seeder below: `start` never needs them.
  switch (kind) {
    case 'blocklist': {
      const { values } = parseArgs({ args: rest, options: { account: { type: 'string' }, json: { type: 'boolean', default: false } }, strict: true });
      if (!values.account) throw new UsageError('data import blocklist needs --account ID');
      await prepare(deps);
      if (!(await findAccount(deps.db, values.account))) throw new UsageError(`account ${values.account} not found`);
      const { importBlocklist } = await import('./modules/blocklist/import.js');
      report(values.json, await importBlocklist(deps, values.account, file, { progress: progress(values.json) }), `blocklist entries into ${values.account}`);
      return;
    }
    case 'ip-threats': {
      const { values } = parseArgs({
        args: rest,
        options: { source: { type: 'string' }, title: { type: 'string' }, date: { type: 'string' }, link: { type: 'string' }, tags: { type: 'string' }, json: { type: 'boolean', default: false } },
        strict: true,
      });
      await prepare(deps);
      const { importThreatFeed } = await import('./providers/ip-threats/import.js');
      const result = await importThreatFeed(deps, file, {
        ...values,
        tags: values.tags
          ?.split(',')
          .map((t) => t.trim())
          .filter(Boolean),
      });
      report(values.json, result, `addresses and blocks of ${result.source} (data of ${result.date}), replacing its earlier import`);
      return;
    }
    case 'breaches':
    case 'sex-offenders': {
      const { values } = parseArgs({ args: rest, options: { source: { type: 'string' }, json: { type: 'boolean', default: false } }, strict: true });
      await prepare(deps);
      if (kind === 'breaches') {
        const { importBreaches } = await import('./providers/breaches/import.js');
        const result = await importBreaches(deps, file, { source: values.source, progress: progress(values.json) });
        report(values.json, result, `breach records of ${result.source}, replacing its earlier import`);
      } else {
        const { importSexOffenders } = await import('./providers/sex-offender/import.js');
        const result = await importSexOffenders(deps, file, { source: values.source, progress: progress(values.json) });
        report(values.json, result, `registry records of ${result.source}, replacing its earlier import`);
      }
      return;
    }
    case 'sanctions': {
      const { values } = parseArgs({
        args: rest,
        options: {
          format: { type: 'string' },
          aliases: { type: 'string' },
          addresses: { type: 'string' },
          comments: { type: 'string' },
          source: { type: 'string' },
          date: { type: 'string' },
          json: { type: 'boolean', default: false },
        },
        strict: true,
      });
      const { LIST_FORMATS } = await import('./providers/sanctions/formats.js');
      const format = LIST_FORMATS.find((f) => f === values.format);
      if (values.format !== undefined && !format) throw new UsageError(`--format must be one of ${LIST_FORMATS.join(', ')}`);
      await prepare(deps);
      const { importSanctions } = await import('./providers/sanctions/import.js');
      const result = await importSanctions(deps, { primary: file, ...values, format });
      report(values.json, result, `names of ${result.entries} entries of ${result.source} (list of ${result.date}), replacing its earlier import`);
      return;
    }
    case 'news': {
      const { values } = parseArgs({ args: rest, options: { source: { type: 'string' }, json: { type: 'boolean', default: false } }, strict: true });
      await prepare(deps);
      const { importNews } = await import('./providers/adverse-media/import.js');
      const result = await importNews(deps, file, { source: values.source });
      report(values.json, result, `articles of ${result.source}, replacing its earlier import`);
      return;
    }
    case 'geoip': {
      const { importGeoipDatabase } = await import('./providers/geoip/embedded.js');
      const installed = await importGeoipDatabase(deps.config, file);
      out(`installed ${installed.type} (built ${installed.built}) as ${installed.path}; restart the service to use it`);
      return;
    }
    default:
      throw new UsageError(`unknown data kind '${kind}'; ${DATA_USAGE}`);
  }
}

async function jobsCommand(deps: Deps, args: string[]) {
  const [sub, ...rest] = args;
  await prepare(deps);
  if (sub === 'list') {
    const { values } = parseArgs({ args: rest, options: { failed: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } }, strict: true });
    const jobs = await listJobs(deps.db, { failed: values.failed });
    if (values.json) {
      out(
        JSON.stringify(
          jobs.map((j) => ({ ...j, payload: JSON.parse(j.payload) as unknown })),
          null,
          2,
        ),
      );
      return;
    }
    if (jobs.length === 0) out(values.failed ? 'no failed jobs' : 'no jobs');
    for (const j of jobs) {
      out(`${j.id}  ${j.kind.padEnd(16)} ${j.state.padEnd(9)} attempt ${j.attempt}/${j.max_attempts}  run at ${j.run_at}${j.last_error ? `  last error: ${j.last_error}` : ''}`);
    }
    return;
  }
  if (sub === 'retry') {
    const [id] = rest;
    if (!id) throw new UsageError('jobs retry needs a job id');
    if (!(await retryJob(deps.db, id, deps.clock))) throw new UsageError(`job ${id} is not a failed job`);
    out(`job ${id} queued again`);
    return;
  }
  throw new UsageError(`unknown jobs command '${sub ?? ''}'`);
}

async function demoCommand(deps: Deps, args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      accounts: { type: 'string', default: '3' },
      reservations: { type: 'string', default: '500' },
      'per-account': { type: 'string', default: '50' },
      seed: { type: 'string', default: '42' },
      unscreened: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const num = (name: string, v: string, min: number) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number of at least ${min}`);
    return n;
  };
  const opts = {
    accounts: num('accounts', values.accounts, 1),
    reservations: num('reservations', values.reservations, 0),
    perAccount: num('per-account', values['per-account'], 0),
    seed: num('seed', values.seed, 0),
    unscreened: values.unscreened,
  };
  const { rootId } = await prepare(deps);
  // The demo's listed guests come from the lists: install the bundled ones first on a new database.
  await loadLists(deps, { quiet: values.json });
  const started = Date.now();
  // faker and its locales are large: loaded for `demo` only, not in every service process.
  const { seedDemo } = await import('./modules/demo/seed.js');
  // One console password for this run's demo accounts, new each run, printed below.
  const password = randomBytes(9).toString('base64url');
  const result = await seedDemo(deps, rootId, { ...opts, passwordHash: await hashPassword(password) });
  if (values.json) {
    out(JSON.stringify(result, null, 2));
    return;
  }
  out(
    `seeded ${result.reservations} reservations and ${result.payment_events} payment events in ${result.accounts.length} accounts (${((Date.now() - started) / 1000).toFixed(1)} s); ${opts.unscreened ? 'none queued for screening' : "`guestscreen start` screens them (some guests are on the sanctions lists, three on the first account's blocklist)"}`,
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

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    out(USAGE);
    return;
  }
  let deps: Deps | undefined;
  try {
    deps = createDeps(loadConfig());
    const keepRunning = await run(deps, command, args);
    if (!keepRunning) await deps.database.close();
  } catch (err) {
    await deps?.database.close().catch(() => undefined);
    if (err instanceof ConfigError) process.stderr.write(`guestscreen: ${err.message}\n`);
    else if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`guestscreen: ${(err as Error).message}\n\n${USAGE}\n`);
    } else process.stderr.write(`guestscreen: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  }
}

await main();
