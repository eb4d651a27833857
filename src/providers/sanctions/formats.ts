import { parse } from 'csv-parse';
import { XMLParser } from 'fast-xml-parser';
import countries from 'i18n-iso-countries';
import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { basename } from 'node:path';

/** One listed person, organisation, vessel or aircraft, as every list format reads into. */
export interface ListEntry {
  id: string;
  /** The primary name: "FAMILY, Given Middle" where the list says which is the family name, else as written. */
  name: string;
  aliases: string[];
  kind: 'individual' | 'entity' | 'vessel' | 'aircraft';
  programs: string[];
  birthYears: number[];
  /** ISO 3166 alpha-2: nationality, citizenship, addresses. */
  countries: string[];
  remarks: string | null;
}

export interface ListFile {
  /** The list's name as answers and decision records show it. */
  source: string;
  /** The date the publisher gave the file, when it says one. */
  date: string | null;
  entries: ListEntry[];
  rejected: { line: number; problem: string }[];
}

export type ListFormat = 'ofac' | 'un' | 'eu' | 'uk';
export const LIST_FORMATS: ListFormat[] = ['ofac', 'un', 'eu', 'uk'];

/**
 * Which format a file is in, from its first bytes: the UN's consolidated list (CONSOLIDATED_LIST),
 * the EU's financial sanctions file (export, namespace fsd), the UK Sanctions List (Designations),
 * else OFAC's legacy CSV.
 */
export async function detectFormat(file: string): Promise<ListFormat> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4096), 0, 4096, 0);
    const head = buffer.subarray(0, bytesRead).toString('utf8');
    if (!/^\uFEFF?\s*</.test(head)) return 'ofac';
    if (/<CONSOLIDATED_LIST\b/.test(head)) return 'un';
    if (/<export\b[^>]*fpi\/fsd|<sanctionEntity\b/.test(head)) return 'eu';
    if (/<Designations?\b/.test(head)) return 'uk';
    throw new Error('an XML file that is not the UN, EU or UK consolidated list (no CONSOLIDATED_LIST, export or Designations element)');
  } finally {
    await handle.close();
  }
}

/** A country as a list writes it ("Russian Federation", "Iran (Islamic Republic of)", "IQ"), as an ISO alpha-2 code. */
export function countryCode(text: string | null | undefined): string | null {
  const t = (text ?? '').trim();
  if (!t) return null;
  if (/^[A-Z]{2}$/.test(t)) return countries.isValid(t) ? t : null;
  for (const candidate of [t, t.replace(/\s*\(.*\)\s*$/, ''), t.replace(/^the\s+/i, '')]) {
    const code = countries.getAlpha2Code(candidate, 'en');
    if (code) return code;
  }
  return null;
}

const years = (from: number, to: number) => (from > 1800 && to >= from && to - from <= 20 ? Array.from({ length: to - from + 1 }, (_, i) => from + i) : []);
const yearOf = (text: string | null | undefined) => {
  const m = /\b(1[89]\d\d|20\d\d)\b/.exec(text ?? '');
  return m ? Number(m[1]) : null;
};
const sorted = <T>(xs: Iterable<T>) => [...new Set(xs)].sort();
const clean = (v: unknown): string | null => (typeof v === 'string' || typeof v === 'number' ? String(v).replace(/\s+/g, ' ').trim() || null : null);
const list = <T>(v: T | T[] | undefined | null): T[] => (v === undefined || v === null || v === '' ? [] : Array.isArray(v) ? v : [v]);
const joined = (...parts: (string | null | undefined)[]) => parts.map(clean).filter(Boolean).join(' ');

// Lists mark some aliases weak (UN "Low" quality, EU strong="false", UK "Weak"): a nickname or a
// kunya ("Rumuli", "Abu Mohammed") that names too many people to screen guests against; OFAC's
// guidance is that they do not alone make a match. The readers leave them out.

function finish(
  entry: Omit<ListEntry, 'aliases' | 'countries' | 'birthYears' | 'programs'> & {
    aliases: Iterable<string>;
    countries: Iterable<string | null>;
    birthYears: Iterable<number>;
    programs: Iterable<string>;
  },
): ListEntry {
  const primary = entry.name.toLowerCase();
  const aliases = [...new Set([...entry.aliases].filter((a) => a && a.toLowerCase() !== primary))];
  return {
    ...entry,
    aliases,
    countries: sorted([...entry.countries].filter((c): c is string => !!c)),
    birthYears: sorted(entry.birthYears),
    programs: [...new Set([...entry.programs].filter(Boolean))],
  };
}

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', removeNSPrefix: true, parseTagValue: false, parseAttributeValue: false, trimValues: true, processEntities: true });
type Node = Record<string, unknown>;
const node = (v: unknown): Node => (v && typeof v === 'object' ? (v as Node) : {});
const nodes = (v: unknown): Node[] => list(v as Node | Node[]).map(node);
const text = (n: Node, key: string) => clean(typeof n[key] === 'object' ? node(n[key])['#text'] : n[key]);

async function readXml(file: string, root: string): Promise<Node> {
  const doc = node(xml.parse(await readFile(file, 'utf8')));
  if (!(root in doc)) throw new Error(`not the expected list: no ${root} element`);
  return node(doc[root]);
}

/** The UN Security Council's consolidated list (consolidated.xml): INDIVIDUALS and ENTITIES. */
export async function readUn(file: string): Promise<ListFile> {
  const root = await readXml(file, 'CONSOLIDATED_LIST');
  const entries: ListEntry[] = [];
  const rejected: ListFile['rejected'] = [];
  const people = nodes(node(root.INDIVIDUALS).INDIVIDUAL).map((n) => ({ n, kind: 'individual' as const, prefix: 'INDIVIDUAL' }));
  const bodies = nodes(node(root.ENTITIES).ENTITY).map((n) => ({ n, kind: 'entity' as const, prefix: 'ENTITY' }));
  [...people, ...bodies].forEach(({ n, kind, prefix }, i) => {
    const id = text(n, 'REFERENCE_NUMBER') ?? text(n, 'DATAID');
    const name = joined(text(n, 'FIRST_NAME'), text(n, 'SECOND_NAME'), text(n, 'THIRD_NAME'), text(n, 'FOURTH_NAME'));
    if (!id || !name) {
      rejected.push({ line: i + 1, problem: `${prefix} without REFERENCE_NUMBER or FIRST_NAME` });
      return;
    }
    const aliases = nodes(n[`${prefix}_ALIAS`])
      .map((a) => ({ name: text(a, 'ALIAS_NAME'), weak: text(a, 'QUALITY') === 'Low' }))
      .filter((a): a is { name: string; weak: boolean } => !!a.name && !a.weak)
      .map((a) => a.name);
    const original = text(n, 'NAME_ORIGINAL_SCRIPT');
    const born = nodes(n.INDIVIDUAL_DATE_OF_BIRTH).flatMap((d) => {
      const from = yearOf(text(d, 'FROM_YEAR'));
      const to = yearOf(text(d, 'TO_YEAR'));
      if (from && to) return years(from, to);
      return [yearOf(text(d, 'DATE')) ?? yearOf(text(d, 'YEAR')) ?? yearOf(text(d, 'NOTE'))].filter((y): y is number => y !== null);
    });
    entries.push(
      finish({
        id,
        name,
        kind,
        aliases: original ? [...aliases, original] : aliases,
        programs: [text(n, 'UN_LIST_TYPE') ?? ''],
        birthYears: born,
        countries: [...list(node(n.NATIONALITY).VALUE).map((v) => countryCode(clean(v))), ...nodes(n[`${prefix}_ADDRESS`]).map((a) => countryCode(text(a, 'COUNTRY')))],
        remarks: text(n, 'COMMENTS1'),
      }),
    );
  });
  return { source: 'UN Security Council Consolidated', date: clean(root['@dateGenerated'])?.slice(0, 10) ?? null, entries, rejected };
}

/** The EU's consolidated financial sanctions file (FSF XML 1.1): sanctionEntity with nameAlias, birthdate, citizenship. */
export async function readEu(file: string): Promise<ListFile> {
  const root = await readXml(file, 'export');
  const entries: ListEntry[] = [];
  const rejected: ListFile['rejected'] = [];
  nodes(root.sanctionEntity).forEach((n, i) => {
    const id = clean(n['@euReferenceNumber']) ?? clean(n['@logicalId']);
    const names = nodes(n.nameAlias).flatMap((a) => {
      const family = clean(a['@lastName']);
      const given = joined(clean(a['@firstName']), clean(a['@middleName']));
      const whole = clean(a['@wholeName']);
      const name = family && given ? `${family}, ${given}` : whole;
      return name ? [{ name, weak: a['@strong'] === 'false' }] : [];
    });
    const primary = names.find((x) => !x.weak) ?? names[0];
    if (!id || !primary) {
      rejected.push({ line: i + 1, problem: 'sanctionEntity without euReferenceNumber or a nameAlias' });
      return;
    }
    const code = clean(node(n.subjectType)['@code'])?.toLowerCase();
    entries.push(
      finish({
        id,
        name: primary.name,
        kind: code === 'person' ? 'individual' : 'entity',
        aliases: names.filter((x) => x !== primary && !x.weak).map((x) => x.name),
        programs: nodes(n.regulation).map((r) => clean(r['@programme']) ?? ''),
        birthYears: nodes(n.birthdate).flatMap((b) => [yearOf(clean(b['@year'])) ?? yearOf(clean(b['@birthdate']))].filter((y): y is number => y !== null)),
        countries: [...nodes(n.citizenship), ...nodes(n.address)].map((c) => countryCode(clean(c['@countryIso2Code']) ?? clean(c['@countryDescription']))),
        remarks: list(n.remark).map(clean).filter(Boolean).join(' ') || null,
      }),
    );
  });
  return { source: 'EU Financial Sanctions (consolidated)', date: clean(root['@generationDate'])?.slice(0, 10) ?? null, entries, rejected };
}

const UK_KINDS: Record<string, ListEntry['kind']> = { individual: 'individual', entity: 'entity', ship: 'vessel' };
/** dd/mm/yyyy, as the UK list writes dates (00 for an unknown day or month), as yyyy-mm-dd. */
const ukDate = (d: string | null) => {
  const m = /^(\d\d)\/(\d\d)\/(\d{4})$/.exec(d ?? '');
  return m ? `${m[3]}-${m[2]}-${m[1]}` : null;
};

/** The UK Sanctions List (FCDO, UK_Sanctions_List.xml): Designation with Names, IndividualDetails, Addresses. */
export async function readUk(file: string): Promise<ListFile> {
  const root = await readXml(file, 'Designations');
  const entries: ListEntry[] = [];
  const rejected: ListFile['rejected'] = [];
  let latest: string | null = null;
  nodes(root.Designation).forEach((n, i) => {
    const id = text(n, 'UniqueID');
    const kind = UK_KINDS[(text(n, 'IndividualEntityShip') ?? '').toLowerCase()] ?? 'entity';
    const names = nodes(node(n.Names).Name).flatMap((x) => {
      const family = text(x, 'Name6');
      const given = joined(text(x, 'Name1'), text(x, 'Name2'), text(x, 'Name3'), text(x, 'Name4'), text(x, 'Name5'));
      const name = kind === 'individual' && family && given ? `${family}, ${given}` : joined(given, family);
      return name ? [{ name, primary: /^primary name$/i.test(text(x, 'NameType') ?? ''), weak: /weak|low/i.test(text(x, 'AliasStrength') ?? '') }] : [];
    });
    const primary = names.find((x) => x.primary) ?? names[0];
    if (!id || !primary) {
      rejected.push({ line: i + 1, problem: 'Designation without UniqueID or a Name' });
      return;
    }
    const updated = ukDate(text(n, 'LastUpdated'));
    if (updated && (!latest || updated > latest)) latest = updated;
    const people = nodes(node(n.IndividualDetails).Individual);
    entries.push(
      finish({
        id,
        name: primary.name,
        kind,
        aliases: [...names.filter((x) => x !== primary && !x.weak).map((x) => x.name), ...nodes(node(n.NonLatinNames).NonLatinName).map((x) => text(x, 'NameNonLatinScript') ?? '')],
        programs: [text(n, 'RegimeName') ?? ''],
        birthYears: people.flatMap((p) =>
          list(node(p.DOBs).DOB)
            .map((d) => yearOf(clean(d)))
            .filter((y): y is number => y !== null),
        ),
        countries: [
          ...people.flatMap((p) => list(node(p.Nationalities).Nationality).map((c) => countryCode(clean(c)))),
          ...nodes(node(n.Addresses).Address).map((a) => countryCode(text(a, 'AddressCountry'))),
        ],
        remarks: text(n, 'OtherInformation'),
      }),
    );
  });
  const generated = ukDate(text(root, 'DateGenerated')) ?? clean(root['@DateGenerated'])?.slice(0, 10) ?? null;
  return { source: 'UK Sanctions List', date: generated ?? latest, entries, rejected };
}

/** Rows of an OFAC legacy CSV: no header, "-0- " for empty, a Ctrl-Z line at the end. */
async function* ofacRows(file: string): AsyncGenerator<(string | null)[]> {
  const parser = createReadStream(file).pipe(parse({ relax_quotes: true, relax_column_count: true, skip_empty_lines: true, trim: true }));
  for await (const row of parser as AsyncIterable<string[]>) {
    if (row.length === 1 && (row[0] ?? '').replace(/\x1a/g, '').trim() === '') continue;
    yield row.map((v) => (v === '-0-' || v === '' ? null : v));
  }
}

const OFAC_KINDS: Record<string, ListEntry['kind']> = { individual: 'individual', vessel: 'vessel', aircraft: 'aircraft' };

/** Years of birth in OFAC remarks: "DOB 10 Dec 1948", "DOB 1946", "DOB circa 1960", "DOB 1960 to 1962". */
export function birthYears(remarks: string | null): number[] {
  const found = new Set<number>();
  for (const m of (remarks ?? '').matchAll(/DOB ([^;]*)/g)) for (const y of (m[1] ?? '').matchAll(/\b(1[89]\d\d|20\d\d)\b/g)) found.add(Number(y[1]));
  return [...found].sort();
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * Full dates of birth (YYYY-MM-DD) and identity-document numbers in an entry's remarks: OFAC
 * writes "DOB 02 Jan 1968; alt. DOB 03 Feb 1969" and "Passport 100034 (Russia); National ID No.
 * 12345"; the other readers write "DOB 1968-01-02". What a listed person shares with a guest
 * beyond the name, when both sides give it, is what makes a match certain.
 */
export function identifiers(remarks: string | null): { birthDates: string[]; documents: string[] } {
  const text = remarks ?? '';
  const dates = new Set<string>();
  for (const m of text.matchAll(/DOB (\d{1,2}) ([A-Za-z]{3})[a-z]* (\d{4})/g)) {
    const month = MONTHS.indexOf((m[2] ?? '').toLowerCase()) + 1;
    if (month > 0) dates.add(`${m[3]}-${String(month).padStart(2, '0')}-${(m[1] ?? '').padStart(2, '0')}`);
  }
  for (const m of text.matchAll(/DOB (\d{4}-\d{2}-\d{2})/g)) dates.add(m[1]!);
  const documents = new Set<string>();
  for (const m of text.matchAll(/(?:Passport|National ID No\.|Identification Number|Personal ID Card|Cedula No\.|Identity Card No\.)\s+([A-Z0-9][A-Z0-9 -]{3,}?[A-Z0-9])(?=\s*\(|;|\.|,|$)/gi))
    documents.add(m[1]!);
  return { birthDates: [...dates].sort(), documents: [...documents] };
}

/** Countries named as nationality or citizenship in OFAC remarks. */
function remarkCountries(remarks: string | null): (string | null)[] {
  return [...(remarks ?? '').matchAll(/(?:nationality|citizen) ([A-Z][A-Za-z ,.'-]+?)(?:;|\.|$)/g)].map((m) => countryCode(m[1]));
}

export interface OfacFiles {
  /** The primary records (OFAC sdn.csv or cons_prim.csv). */
  primary: string;
  /** Aliases (alt.csv), addresses (add.csv) and remarks continued (sdn_comments.csv). */
  aliases?: string | undefined;
  addresses?: string | undefined;
  comments?: string | undefined;
}

/** An OFAC list in the legacy CSV format (SDN or consolidated), with its aliases, addresses and remarks when given. */
export async function readOfac(files: OfacFiles): Promise<ListFile> {
  const found = new Map<string, { name: string; kind: ListEntry['kind']; programs: string[]; remarks: string | null; countries: (string | null)[]; aliases: string[] }>();
  const rejected: ListFile['rejected'] = [];
  let line = 0;
  for await (const r of ofacRows(files.primary)) {
    line++;
    const [id, name, type, program] = r;
    if (!id || !name || !/^\d+$/.test(id)) {
      rejected.push({ line, problem: 'not an OFAC record (ent_num, name, type, program, ...)' });
      continue;
    }
    found.set(id, {
      name,
      kind: OFAC_KINDS[type ?? ''] ?? 'entity',
      programs: (program ?? '').split(/\]\s*\[|;/).map((p) => p.replace(/[[\]]/g, '').trim()),
      remarks: r[11] ?? null,
      countries: [],
      aliases: [],
    });
  }
  if (files.comments) {
    for await (const [id, more] of ofacRows(files.comments)) {
      const e = id ? found.get(id) : undefined;
      if (e && more) e.remarks = `${e.remarks ?? ''}${more}`;
    }
  }
  if (files.addresses) {
    for await (const r of ofacRows(files.addresses)) {
      const e = r[0] ? found.get(r[0]) : undefined;
      if (e) e.countries.push(countryCode(r[4]));
    }
  }
  if (files.aliases) {
    for await (const [id, , , alias] of ofacRows(files.aliases)) found.get(id ?? '')?.aliases.push(alias ?? '');
  }
  const entries = [...found].map(([id, e]) => finish({ id, ...e, countries: [...e.countries, ...remarkCountries(e.remarks)], birthYears: birthYears(e.remarks) }));
  return { source: /cons/i.test(basename(files.primary)) ? 'OFAC Consolidated (non-SDN)' : 'OFAC SDN', date: null, entries, rejected };
}
