/** What the users module offers the modules above it: they import nothing else of it. */
export { findUser, updateUser, type UserRow } from './repo.js';
export { setOwnerPassword, userActor } from './service.js';
