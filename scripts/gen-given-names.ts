/**
 * Writes src/lib/names/given-names.json: every given name of faker's name lists (all its
 * locales), as the name matcher's tokens (transliterated, folded), so a shared common given name
 * counts for less than a shared family name. Run again after upgrading @faker-js/faker.
 */
import { allLocales } from '@faker-js/faker';
import { writeFileSync } from 'node:fs';
import { nameTokens } from '../src/lib/names/names.js';

const flat = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : v && typeof v === 'object' ? Object.values(v).flatMap(flat) : []);
const tokens = new Set<string>();
for (const locale of Object.values(allLocales as unknown as Record<string, { person?: { first_name?: unknown } }>)) {
  for (const name of flat(locale.person?.first_name)) for (const t of nameTokens(name)) if (t.length >= 2) tokens.add(t);
}
const sorted = [...tokens].sort();
writeFileSync(new URL('../src/lib/names/given-names.json', import.meta.url), `${JSON.stringify(sorted)}\n`);
process.stdout.write(`${sorted.length} given-name tokens\n`);
