/** What the accounts module offers the modules above it: they import nothing else of it. */
export { findAccount, type AccountRow } from './repo.js';
export { accountFor, createAccount } from './service.js';
