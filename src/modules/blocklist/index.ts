/** What the blocklist module offers the modules above it: they import nothing else of it. */
export { entriesById, type EntryRow } from './repo.js';
export { buildEntry, candidates, insertEntries, normaliseDocument, normaliseEmail, normalisePhone } from './service.js';
