import countries from 'i18n-iso-countries';
import { IntlMessageFormat } from 'intl-messageformat';
import de from './catalogues/de.js';
import en, { type GuestPhrase } from './catalogues/en.js';
import es from './catalogues/es.js';
import fr from './catalogues/fr.js';
import it from './catalogues/it.js';
import pt from './catalogues/pt.js';

export type { GuestPhrase } from './catalogues/en.js';

/**
 * The guest's languages: every page a guest opens (the portal, its errors, the signup page) and
 * every message sent to one. The sentences live in the catalogues (ICU message format, read by
 * intl-messageformat); dates, numbers and country names come from `Intl` and i18n-iso-countries
 * in the same language. English is the catalogue every other one is checked against, and what a
 * missing sentence falls back to.
 */
export const LOCALES = ['en', 'es', 'fr', 'de', 'it', 'pt'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

export const CATALOGUES: Record<Locale, Partial<Record<GuestPhrase, string>>> = { en, es, fr, de, it, pt };

export const isLocale = (s: string | undefined | null): s is Locale => (LOCALES as readonly string[]).includes(s ?? '');

/** The language of a tag such as "pt-BR" or "es_419", when it is one of ours. */
export function localeOf(tag: string | null | undefined): Locale | undefined {
  const primary = tag?.trim().toLowerCase().split(/[-_]/)[0];
  return isLocale(primary) ? primary : undefined;
}

/** The best of our languages for an Accept-Language header, by its q-values; undefined when none fits. */
export function fromAcceptLanguage(header: string | undefined): Locale | undefined {
  if (!header) return undefined;
  const ranked = header
    .slice(0, 500)
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const weight = q ? Number(q.slice(2)) : 1;
      return { locale: localeOf(tag), weight: Number.isFinite(weight) ? weight : 0, i };
    })
    .filter((x) => x.locale && x.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.i - b.i);
  return ranked[0]?.locale;
}

/**
 * The guest's language: the one they chose with the switcher, else the booking's, else the
 * browser's, else English.
 */
export function chooseLocale(chosen: string | undefined, booking: string | null | undefined, acceptLanguage: string | undefined): Locale {
  return localeOf(chosen) ?? localeOf(booking) ?? fromAcceptLanguage(acceptLanguage) ?? DEFAULT_LOCALE;
}

const compiled = new Map<string, IntlMessageFormat>();

export type Values = Record<string, string | number>;

/** Everything a page or a message needs to speak the guest's language. */
export interface Translator {
  locale: Locale;
  /** A sentence of the catalogue with its values filled in (English when this language lacks it). */
  t(key: GuestPhrase, values?: Values): string;
  /** A day (YYYY-MM-DD) as people of this language write it: 14 March 2027, 14 de marzo de 2027. */
  date(day: string): string;
  /** Two days as a range: 10–14 March 2027. */
  range(from: string, to: string): string;
  /** A moment, with its time, in the time zone given (UTC by default). */
  dateTime(at: string, timeZone?: string): string;
  list(items: readonly string[]): string;
  /** Every country (ISO 3166-1) by its name in this language, sorted as this language sorts. */
  countries(): { code: string; name: string }[];
  countryName(code: string): string | undefined;
}

const utcDay = (day: string) => new Date(`${day}T00:00:00Z`);

const translators = new Map<Locale, Translator>();

/**
 * The translator of a language, made once per process: its `Intl` formatters are costly to make
 * (each holds ICU data outside the JavaScript heap), and a message or a page is composed per
 * request and per job.
 */
export function translator(locale: Locale): Translator {
  let made = translators.get(locale);
  if (!made) translators.set(locale, (made = makeTranslator(locale)));
  return made;
}

/**
 * What a name put in changes in the words before it, which the catalogue cannot know: Italian
 * writes the preposition a as ad before an a (ad Anna), French elides de and que before a vowel
 * (d’Anna, qu’Élodie).
 */
function beforeAVowel(locale: Locale, said: string): string {
  if (locale === 'it') return said.replace(/\ba (?=[aAàÀ])/g, 'ad ');
  if (locale === 'fr') return said.replace(/\b(d|qu)e (?=[aeiouyàâéèêîôûAEIOUYÀÂÉÈÊÎÔÛ])/g, '$1’');
  return said;
}

function makeTranslator(locale: Locale): Translator {
  // English as written in most of the world (14 March 2027), not the American default.
  const intl = locale === 'en' ? 'en-GB' : locale;
  const dayFormat = new Intl.DateTimeFormat(intl, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
  const listFormat = new Intl.ListFormat(intl, { style: 'long', type: 'conjunction' });
  const momentFormats = new Map<string, Intl.DateTimeFormat>();
  const momentFormat = (timeZone: string) => {
    let f = momentFormats.get(timeZone);
    if (!f) momentFormats.set(timeZone, (f = new Intl.DateTimeFormat(intl, { day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone, timeZoneName: 'short' })));
    return f;
  };
  let countryList: { code: string; name: string }[] | undefined;
  return {
    locale,
    t(key, values = {}) {
      const own = CATALOGUES[locale][key];
      const source = own ?? en[key];
      const id = `${own ? locale : 'en'}:${key}`;
      let m = compiled.get(id);
      if (!m) compiled.set(id, (m = new IntlMessageFormat(source, own ? locale : 'en')));
      const said = String(m.format(values));
      return own ? beforeAVowel(locale, said) : said;
    },
    date: (day) => (/^\d{4}-\d{2}-\d{2}$/.test(day) ? dayFormat.format(utcDay(day)) : day),
    range: (from, to) => dayFormat.formatRange(utcDay(from), utcDay(to)),
    dateTime: (at, timeZone = 'UTC') => momentFormat(timeZone).format(new Date(at)),
    list: (items) => listFormat.format(items),
    countries() {
      if (!countryList) {
        const collator = new Intl.Collator(locale);
        countryList = Object.entries(countries.getNames(locale, { select: 'official' }))
          .map(([code, name]) => ({ code, name }))
          .sort((a, b) => collator.compare(a.name, b.name));
      }
      return countryList;
    },
    countryName: (code) => countries.getName(code, locale, { select: 'official' }),
  };
}

/**
 * A country as a guest may give it: its ISO code (alpha-2 or alpha-3), or its name in any of
 * our languages, main or alternative, in any case, with or without its accents. The alpha-2 code, or undefined.
 */
export function countryCode(input: string): string | undefined {
  const v = input.trim();
  if (/^[A-Za-z]{2}$/.test(v) && countries.isValid(v.toUpperCase())) return v.toUpperCase();
  if (/^[A-Za-z]{3}$/.test(v)) {
    const code = countries.alpha3ToAlpha2(v.toUpperCase());
    if (code) return code;
  }
  return countryByName().get(folded(v));
}

/** A name as people type it on any keyboard: no accents (Espana for España), one case, single spaces. */
const folded = (name: string) => name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();

let byName: Map<string, string> | undefined;
/** Every country name of our languages, main and alternative, folded, to its code (made on first use). */
function countryByName(): Map<string, string> {
  if (!byName) {
    byName = new Map();
    for (const locale of LOCALES) {
      for (const [code, names] of Object.entries(countries.getNames(locale, { select: 'all' }))) {
        for (const n of Array.isArray(names) ? names : [names]) if (!byName.has(folded(n))) byName.set(folded(n), code);
      }
    }
  }
  return byName;
}
