/** What the users module offers the modules above it: they import nothing else of it. */
export { findUser, type UserRow } from './repo.js';
export { setOwnerPassword, userActor } from './service.js';
