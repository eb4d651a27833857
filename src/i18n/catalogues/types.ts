import type { GuestPhrase } from './en.js';

/**
 * A translation: the English catalogue's keys, each a sentence in ICU message format with the
 * same arguments. Partial, so a missing sentence shows in English rather than failing the build;
 * the catalogue test names every key a language lacks.
 */
export type Catalogue = Partial<Record<GuestPhrase, string>>;
