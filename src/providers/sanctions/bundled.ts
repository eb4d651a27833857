import type { Deps } from '../../deps.js';
import { packageFile } from '../../lib/packages.js';
import { sanctionsImported } from './index.js';
import { importSanctions } from './import.js';

/**
 * The OFAC lists that ship with the service (public domain; lists/SOURCES.md), loaded when a
 * database has no sanctions list yet, so a new install never answers a silent "clear" from an
 * empty list. `guestscreen data import sanctions` replaces each with a newer copy.
 */
export async function loadBundledLists(deps: Deps): Promise<{ source: string; date: string; imported: number }[]> {
  if (await sanctionsImported(deps)) return [];
  const file = (name: string) => packageFile(`lists/ofac/${name}`);
  const sdn = await importSanctions(deps, { primary: file('ofac_sdn_2024-05-03.csv') });
  const consolidated = await importSanctions(deps, {
    primary: file('ofac_cons_prim_2025-12.csv'),
    aliases: file('ofac_cons_alt_2025-12.csv'),
    addresses: file('ofac_cons_add_2025-12.csv'),
    comments: file('ofac_cons_comments_2025-12.csv'),
  });
  return [sdn, consolidated].map(({ source, date, imported }) => ({ source, date, imported }));
}
