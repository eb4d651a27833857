/**
 * The bookings as stored: the reservations table and its reads (a booking by id or code, the
 * search, the screened ones, the listings they name). The reservations module writes them
 * through the API; screening, identity, messages, listings and the police reports read them
 * from here and never import the reservations module, which stands above them all.
 */
export * from './repo.js';
