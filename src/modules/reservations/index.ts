/** What the reservations module offers the modules above it: they import nothing else of it. */
export { paymentsView } from './payments.js';
export type { CreateInput } from './schemas.js';
export { buildReservation, creationNote } from './service.js';
export { guestNameOf, toReservationView } from './views.js';
