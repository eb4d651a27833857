import { Command, Option } from 'commander';
import type { Deps } from '../deps.js';
import { out, UsageError } from './context.js';

type Run = (fn: (deps: Deps) => Promise<void>, opts: { createDatabase?: boolean }) => Promise<void>;

interface Report {
  imported: number;
  duplicates?: number;
  rejected: { line: number; problem: string }[];
}

function report(json: boolean, result: Report, what: string) {
  if (json) {
    out(JSON.stringify(result, null, 2));
    return;
  }
  out(`imported ${result.imported} ${what}${result.duplicates ? `; ${result.duplicates} already there, left as they were` : ''}`);
  for (const r of result.rejected.slice(0, 20)) out(`  skipped line ${r.line}: ${r.problem}`);
  if (result.rejected.length > 20) out(`  … and ${result.rejected.length - 20} more skipped lines`);
}

/** A progress bar on a terminal, never in JSON output. */
const progress = (json: boolean) => !json && Boolean(process.stderr.isTTY);

const jsonOption = () => new Option('--json', 'print the result as JSON');
const sourceOption = (what: string) => new Option('--source <name>', `the source's name: a new import of the same source replaces ${what}`);

/**
 * `guestscreen data import …`. Each importer is loaded for its command only, like the demo
 * seeder: `start` never needs them.
 */
export function dataCommand(run: Run, withDatabaseOption: (c: Command) => Command): Command {
  const data = new Command('data').description('import the data sets the checks read');
  const imports = data.command('import').description('import a file into the database (each replaces the earlier import of its source)');

  withDatabaseOption(
    imports
      .command('blocklist')
      .description("import blocklist entries into an account's blocklist from a CSV with the header name,email,phone,document_number,reason")
      .argument('<file>', 'the CSV file')
      .requiredOption('--account <id>', 'the account whose blocklist receives the entries')
      .addOption(jsonOption()),
  ).action((file: string, o: { account: string; json?: boolean; createDatabase?: boolean }) =>
    run(async (deps) => {
      const { findAccount } = await import('../modules/accounts/repo.js');
      if (!(await findAccount(deps.db, o.account))) throw new UsageError(`account ${o.account} not found`);
      const { importBlocklist } = await import('../modules/blocklist/import.js');
      report(Boolean(o.json), await importBlocklist(deps, o.account, file, { progress: progress(Boolean(o.json)) }), `blocklist entries into ${o.account}`);
    }, o),
  );

  withDatabaseOption(
    imports
      .command('ip-threats')
      .description('import an IP threat feed: FireHOL ipset/netset, lists of addresses or CIDR blocks, Tor exit lists')
      .argument('<file>', 'the feed')
      .addOption(sourceOption("this source's addresses"))
      .option('--title <text>', "the feed's title, shown in lookups")
      .option('--date <YYYY-MM-DD>', "the feed's date (default: read from the file, else today)")
      .option('--link <url>', "the feed's home page")
      .option('--tags <a,b>', 'tags given to every address of the feed, comma-separated')
      .addOption(jsonOption()),
  ).action((file: string, o: { source?: string; title?: string; date?: string; link?: string; tags?: string; json?: boolean; createDatabase?: boolean }) =>
    run(async (deps) => {
      const { importThreatFeed } = await import('../providers/ip-threats/import.js');
      const result = await importThreatFeed(deps, file, {
        source: o.source,
        title: o.title,
        date: o.date,
        link: o.link,
        tags: o.tags
          ?.split(',')
          .map((t) => t.trim())
          .filter(Boolean),
      });
      report(Boolean(o.json), result, `addresses and blocks of ${result.source} (data of ${result.date}), replacing its earlier import`);
    }, o),
  );

  // Two record corpora of one kind: a CSV, a source, a progress bar.
  const corpora = [
    {
      name: 'breaches',
      description: 'import a breach corpus from a CSV with the header email,name,domain,breach_date; addresses are kept only as keyed digests',
      what: 'breach records',
      importer: async () => (await import('../providers/breaches/import.js')).importBreaches,
    },
    {
      name: 'sex-offenders',
      description: 'import sex-offender registry records from a CSV (its columns are in docs/lookups.md)',
      what: 'registry records',
      importer: async () => (await import('../providers/sex-offender/import.js')).importSexOffenders,
    },
  ];
  for (const corpus of corpora) {
    withDatabaseOption(imports.command(corpus.name).description(corpus.description).argument('<file>', 'the CSV file').addOption(sourceOption("this source's records")).addOption(jsonOption())).action(
      (file: string, o: { source?: string; json?: boolean; createDatabase?: boolean }) =>
        run(async (deps) => {
          const result = await (await corpus.importer())(deps, file, { source: o.source, progress: progress(Boolean(o.json)) });
          report(Boolean(o.json), result, `${corpus.what} of ${result.source}, replacing its earlier import`);
        }, o),
    );
  }

  withDatabaseOption(
    imports
      .command('sanctions')
      .description(
        "import a sanctions list: OFAC's legacy CSV (SDN or consolidated, with its aliases and addresses files), the UN consolidated XML, the EU financial sanctions XML or the UK Sanctions List XML",
      )
      .argument('<file>', 'the list (for OFAC, its primary CSV: sdn.csv or cons_prim.csv)')
      .addOption(new Option('--format <format>', 'the list format (default: read from the file)').choices(['ofac', 'un', 'eu', 'uk']))
      .option('--aliases <file>', 'OFAC: the aliases file (alt.csv, cons_alt.csv)')
      .option('--addresses <file>', 'OFAC: the addresses file (add.csv, cons_add.csv)')
      .option('--comments <file>', 'OFAC: the remarks continued past the primary file (sdn_comments.csv)')
      .addOption(sourceOption("this list's names"))
      .option('--date <YYYY-MM-DD>', "the list's date (default: read from the file)")
      .addOption(jsonOption()),
  ).action(
    (file: string, o: { format?: 'ofac' | 'un' | 'eu' | 'uk'; aliases?: string; addresses?: string; comments?: string; source?: string; date?: string; json?: boolean; createDatabase?: boolean }) =>
      run(async (deps) => {
        const { importSanctions } = await import('../providers/sanctions/import.js');
        const result = await importSanctions(deps, { primary: file, format: o.format, aliases: o.aliases, addresses: o.addresses, comments: o.comments, source: o.source, date: o.date });
        report(Boolean(o.json), result, `names of ${result.entries} entries of ${result.source} (list of ${result.date}), replacing its earlier import`);
      }, o),
  );

  withDatabaseOption(
    imports
      .command('news')
      .description('import a news corpus for adverse media: one JSON article a line (url, title, snippet, published_at)')
      .argument('<file>', 'the JSON Lines file')
      .addOption(sourceOption("this source's articles"))
      .addOption(jsonOption()),
  ).action((file: string, o: { source?: string; json?: boolean; createDatabase?: boolean }) =>
    run(async (deps) => {
      const { importNews } = await import('../providers/adverse-media/import.js');
      const result = await importNews(deps, file, { source: o.source });
      report(Boolean(o.json), result, `articles of ${result.source}, replacing its earlier import`);
    }, o),
  );

  imports
    .command('es-municipalities')
    .description("install INE's register of Spain's municipalities (its yearly diccionario saved as CSV: CPRO, CMUN, NOMBRE) in place of the shipped one, for SES's municipality codes")
    .argument('<file>', 'the CSV file')
    .requiredOption('--date <YYYY-MM-DD>', "the register's date (INE's dictionary is of 1 January of its year)")
    .addOption(jsonOption())
    .action(async (file: string, o: { date: string; json?: boolean }) => {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(o.date)) throw new UsageError(`--date must be YYYY-MM-DD, not ${o.date}`);
      const [{ importMunicipalities }, { loadConfig }] = await Promise.all([import('../modules/authority/tables.js'), import('../config.js')]);
      const result = importMunicipalities(loadConfig().dataDir, file, o.date);
      report(Boolean(o.json), result, `municipalities of INE's register of ${result.as_of}; the service reads them from its next report`);
    });

  withDatabaseOption(
    imports
      .command('alloggiati-tables')
      .description(
        "install Alloggiati Web's code tables (places, document types): fetched from the service with an establishment's credentials (the one the service took last, or --account's), or read from the CSV files of its portal. The service fetches them itself when an establishment is saved, and weekly",
      )
      .option('--account <id>', 'fetch them with the Alloggiati Web establishment of this account')
      .option('--listing <id>', "with --account: that listing's establishment rather than the account's")
      .option('--places <file>', 'the Luoghi table as CSV (with --documents, instead of fetching them)')
      .option('--documents <file>', 'the Tipi_Documento table as CSV')
      .addOption(jsonOption()),
  ).action((o: { account?: string; listing?: string; places?: string; documents?: string; json?: boolean; createDatabase?: boolean }) =>
    run(async (deps) => {
      if (Boolean(o.places) !== Boolean(o.documents)) throw new UsageError('give both --places and --documents (the CSV files of the portal), or neither to fetch the tables from the service');
      const [{ importAlloggiatiFiles }, { refreshAlloggiatiTables }] = await Promise.all([import('../modules/authority/import.js'), import('../modules/authority/establishments.js')]);
      let result;
      try {
        result = o.places && o.documents ? importAlloggiatiFiles(deps, { places: o.places, documents: o.documents }) : await refreshAlloggiatiTables(deps, { account: o.account, listing: o.listing });
      } catch (err) {
        // The service's refusal, an outage, a file that is not the table: the operator's to act on, said without a stack.
        throw new UsageError(`Alloggiati Web's tables not installed: ${(err as Error).message}`);
      }
      if (o.json) out(JSON.stringify(result, null, 2));
      else out(`installed Alloggiati Web's tables of ${result.as_of}: ${result.places} places and ${result.documents} document types`);
    }, o),
  );

  imports
    .command('geoip')
    .description('install a newer DB-IP Lite, or a MaxMind GeoLite2 or GeoIP2 City database, in place of the embedded one (into the data directory)')
    .argument('<file>', 'the MMDB file')
    .action(async (file: string) => {
      const [{ importGeoipDatabase }, { loadConfig }] = await Promise.all([import('../providers/geoip/embedded.js'), import('../config.js')]);
      const installed = await importGeoipDatabase(loadConfig(), file);
      out(`installed ${installed.type} (built ${installed.built}) as ${installed.path}; the service uses it from its next lookup`);
    });

  return data;
}
