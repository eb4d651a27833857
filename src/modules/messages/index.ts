/** What the messages module offers the modules above it: they import nothing else of it. */
export { planCheckIn, releaseTime } from './check-in.js';
export { cancelQueuedMessages, queueGuestMessages, stargateView, withdrawPortalMessages } from './service.js';
