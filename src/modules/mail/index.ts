/** What the mail module offers the modules above it: they import nothing else of it. */
export { messageHtml, messageText, type MessageParts } from './email.js';
export { eraseFromOutbox, outboxFile, sendEmail, sendPeopleEmail, sendSms, type Via } from './transports.js';
