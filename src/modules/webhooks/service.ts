import { withTx } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { iso } from '../../lib/time.js';
import { assertPublicHost } from '../../lib/outbound.js';
import { outboundUrlProblem } from '../../lib/urls.js';
import type { AccountRow } from '../../db/schema.js';
import { webhookSecret } from './secret.js';
import type { WebhookKey } from './keys.js';
import * as repo from './repo.js';

export async function registerWebhook(deps: Deps, account: AccountRow, key: WebhookKey, url: string) {
  const problem = outboundUrlProblem(url);
  if (problem) throw badRequest(`body.webhook_url: ${problem}`);
  try {
    await assertPublicHost(url, { allowPrivate: deps.config.allowPrivateTargets });
  } catch (err) {
    throw badRequest(`body.webhook_url: ${(err as Error).message}`);
  }
  await withTx(deps.db, (tx) => repo.upsertWebhook(tx, account.id, key, url, iso(deps.clock())));
  return { message: `${key} registered` };
}

export async function unregisterWebhook(deps: Deps, account: AccountRow, key: WebhookKey, url: string | undefined) {
  const current = (await repo.listWebhooks(deps.db, account.id)).find((w) => w.webhook_key === key);
  if (!current || (url !== undefined && current.url !== url)) throw notFound(`webhook ${key}${url ? ` for ${url}` : ''}`);
  await repo.deleteWebhook(deps.db, account.id, key);
  return { message: `${key} unregistered` };
}

/** Where the account's webhook of this kind goes, when one is registered and not disabled. */
export async function enabledWebhookUrl(deps: Deps, account: AccountRow, key: WebhookKey): Promise<string | undefined> {
  return repo.findEnabledWebhookUrl(deps.db, account.id, key);
}

export async function describeWebhooks(deps: Deps, account: AccountRow) {
  const rows = await repo.listWebhooks(deps.db, account.id);
  return {
    signing_secret: webhookSecret(deps, account),
    webhooks: rows.map((r) => ({
      webhook_key: r.webhook_key,
      webhook_url: r.url,
      enabled: r.disabled_at === null,
      disabled_reason: r.disabled_reason,
      created_at: r.created_at,
      updated_at: r.updated_at,
    })),
  };
}
