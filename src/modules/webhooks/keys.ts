/** The webhook kinds of DESIGN.md section 6, one URL each per account. */
export const WEBHOOK_KEYS = [
  'screening_webhook_url',
  'guest_portal_webhook_url',
  'reservation_webhook_url',
  'stargate_webhook_url',
  'listing_webhook_url',
  'account_webhook_url',
  'background_check_webhook_url',
] as const;

export type WebhookKey = (typeof WEBHOOK_KEYS)[number];
