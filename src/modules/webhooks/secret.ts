import { randomBytes } from 'node:crypto';
import type { Deps } from '../../deps.js';

/** The signing secret of an account's webhooks, sealed to the account it belongs to. */
const aad = (accountId: string) => `webhook_secret:${accountId}`;

/** A new signing secret and its sealed form, as the accounts row keeps it. */
export function newWebhookSecret(deps: Deps, accountId: string): { secret: string; sealed: string } {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  return { secret, sealed: deps.secrets.seal(secret, aad(accountId)) };
}

export function webhookSecret(deps: Deps, account: { id: string; webhook_secret_enc: string }): string {
  return deps.secrets.open(account.webhook_secret_enc, aad(account.id));
}
