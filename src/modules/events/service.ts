import { withTx, type Tx } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import { enqueue } from '../../jobs/repo.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import { type WebhookKey, newWebhookSecret, findEnabledWebhookUrl, findWebhookUrl } from '../webhooks/index.js';
import * as repo from './repo.js';

export interface EventInput {
  accountId: string;
  /** e.g. reservation.created; sent in the webhook-event header. */
  type: string;
  subjectId: string | null;
  /**
   * The event's body, or a function that makes it: called only when the event goes somewhere
   * (most accounts have no webhook for most events, and a body may take reads to make).
   */
  body: unknown;
}

/**
 * Records an event and queues its delivery to each target, all in the caller's transaction:
 * the change, the event and the delivery job commit together or not at all.
 */
async function emit(db: Tx, deps: Deps, e: EventInput, targets: { target: string; url: string }[]): Promise<string | null> {
  if (targets.length === 0) return null;
  const body: unknown = typeof e.body === 'function' ? await (e.body as () => unknown)() : e.body;
  const now = iso(deps.clock());
  const eventId = newId('evt');
  await repo.insertEvent(db, { id: eventId, account_id: e.accountId, type: e.type, subject_id: e.subjectId, payload: JSON.stringify(body), created_at: now });
  for (const t of targets) {
    const deliveryId = newId('evt').replace('evt_', 'dlv_');
    await repo.insertDelivery(db, {
      id: deliveryId,
      event_id: eventId,
      account_id: e.accountId,
      target: t.target,
      url: t.url,
      state: 'pending',
      attempts: 0,
      last_status: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    });
    await enqueue(db, deps, 'webhook.deliver', { delivery_id: deliveryId });
  }
  deps.wakeWorker();
  return eventId;
}

/** Queues the event to the account's URL for this webhook key, if one is registered and enabled. */
export async function emitWebhook(db: Tx, deps: Deps, key: WebhookKey, e: EventInput): Promise<string | null> {
  const url = await findEnabledWebhookUrl(db, e.accountId, key);
  return emit(db, deps, e, url ? [{ target: key, url }] : []);
}

/** Queues the event to a per-request callback URL, signed like webhooks. */
export async function emitCallback(db: Tx, deps: Deps, url: string, e: EventInput): Promise<string | null> {
  return emit(db, deps, e, [{ target: 'callback', url }]);
}

/** Sends an event again to the target's current URL, as a new delivery with fresh attempts. */
export async function replayDelivery(deps: Deps, account: { id: string }, deliveryId: string) {
  const found = await repo.findDelivery(deps.db, deliveryId);
  if (!found || found.delivery.account_id !== account.id) throw notFound(`delivery ${deliveryId}`);
  const { delivery } = found;
  let url = delivery.url;
  if (delivery.target !== 'callback') {
    url = (await findWebhookUrl(deps.db, account.id, delivery.target)) ?? url;
  }
  const now = iso(deps.clock());
  const id = newId('evt').replace('evt_', 'dlv_');
  await withTx(deps.db, async (tx) => {
    await repo.insertDelivery(tx, { ...delivery, id, url, state: 'pending', attempts: 0, last_status: null, last_error: null, created_at: now, updated_at: now });
    await enqueue(tx, deps, 'webhook.deliver', { delivery_id: id });
  });
  deps.wakeWorker();
  return { message: `delivery ${deliveryId} queued again as ${id}`, id };
}

/** A new signing secret; the old one keeps signing alongside it for 24 hours. */
export async function rotateWebhookSecret(deps: Deps, account: Pick<repo.SigningSecrets, 'id' | 'webhook_secret_enc'>) {
  const now = iso(deps.clock());
  const { secret, sealed } = newWebhookSecret(deps, account.id);
  await withTx(deps.db, (tx) =>
    repo.saveSigningSecrets(tx, account.id, {
      webhook_secret_prev_enc: account.webhook_secret_enc,
      webhook_secret_enc: sealed,
      webhook_secret_rotated_at: now,
      updated_at: now,
    }),
  );
  deps.keyCache.clear();
  return { signing_secret: secret, previous_secret_valid_until: iso(new Date(deps.clock().getTime() + 24 * 3600_000)) };
}

export async function deliveriesView(deps: Deps, account: { id: string }, from: number, size: number) {
  const { total, rows, attempts } = await repo.listDeliveries(deps.db, account.id, from, size);
  return {
    from,
    size,
    total,
    items: rows.map((d) => ({
      id: d.id,
      event_id: d.event_id,
      event_type: d.event_type,
      subject_id: d.subject_id,
      target: d.target,
      url: d.url,
      state: d.state,
      attempts: attempts.filter((a) => a.delivery_id === d.id).map((a) => ({ attempt: a.attempt, status_code: a.status_code, latency_ms: a.latency_ms, error: a.error, at: a.created_at })),
      created_at: d.created_at,
      updated_at: d.updated_at,
    })),
  };
}
