/** What the webhooks module offers the modules above it: they import nothing else of it. */
export type { WebhookKey } from './keys.js';
export { disableWebhook, findEnabledWebhookUrl, findWebhookUrl } from './repo.js';
export { newWebhookSecret } from './secret.js';
