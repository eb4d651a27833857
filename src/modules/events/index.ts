/** What the events module offers the modules above it: they import nothing else of it. */
export { emitCallback, emitWebhook } from './service.js';
