/** What the listings module offers the modules above it: they import nothing else of it. */
export { CHECK_IN_FIELDS, readCheckIn, type CheckInDetails } from './check-in.js';
export { effectiveProfile, termsVersion, type HostProfile } from './profile.js';
