/** What the audit module offers the modules above it: they import nothing else of it. */
export { audit } from './repo.js';
