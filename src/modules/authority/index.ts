/** What the authority module offers the modules above it: they import nothing else of it. */
export { SYSTEM_NAMES } from './establishments.js';
export { guestProblems, missingInWords } from './guests.js';
export { establishmentFor, markAlerted, reportsToAlert, type EstablishmentRow } from './repo.js';
export { ALERT_HOURS_BEFORE, followedBy, isFiled, isSettled, planReports, portalOpened, reportsView, stayZone, trackReports, type ReportView } from './reports.js';
