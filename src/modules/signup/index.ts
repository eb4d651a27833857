/** What the signup module offers the modules above it: they import nothing else of it. */
export { assertKnownPms } from './service.js';
