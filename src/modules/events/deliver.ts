import { withTx } from '../../db/connection.js';
import type { JobContext } from '../../jobs/worker.js';
import type { JobPayload } from '../../jobs/kinds.js';
import { PermanentJobError } from '../../jobs/worker.js';
import { iso } from '../../lib/time.js';
import { OutboundRefused, postOutbound } from '../../lib/outbound.js';
import { disableWebhook } from '../webhooks/index.js';
import * as repo from './repo.js';
import { signatureHeader } from './signing.js';

const ROTATION_OVERLAP_MS = 24 * 3600_000;

/**
 * One delivery attempt: POST the event body, signed, to the delivery's URL. 2xx ends it; 410
 * disables the webhook; anything else (3xx included: redirects are not followed) is retried
 * on the configured schedule until the attempts run out.
 */
export async function deliverWebhook(payload: JobPayload<'webhook.deliver'>, { deps, job }: JobContext): Promise<void> {
  const { delivery_id } = payload;
  const found = await repo.findDelivery(deps.db, delivery_id);
  if (!found) return; // erased with its subject
  const { delivery, event } = found;
  if (delivery.state !== 'pending') return;
  const account = await repo.findSigningSecrets(deps.db, delivery.account_id);
  if (!account) throw new PermanentJobError(`account ${delivery.account_id} is gone`);

  const secrets = [deps.secrets.open(account.webhook_secret_enc, `webhook_secret:${account.id}`)];
  if (account.webhook_secret_prev_enc && account.webhook_secret_rotated_at && deps.clock().getTime() - Date.parse(account.webhook_secret_rotated_at) < ROTATION_OVERLAP_MS) {
    secrets.push(deps.secrets.open(account.webhook_secret_prev_enc, `webhook_secret:${account.id}`));
  }
  const timestamp = Math.floor(deps.clock().getTime() / 1000);
  const headers = {
    'webhook-id': event.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, event.id, timestamp, event.payload),
    'webhook-event': event.type,
  };

  const now = () => iso(deps.clock());
  let status: number | null = null;
  let error: string | null = null;
  let latency = 0;
  const started = performance.now();
  try {
    const res = await postOutbound(delivery.url, event.payload, headers, { allowPrivate: deps.config.allowPrivateTargets, timeoutMs: 10_000 });
    status = res.status;
    latency = res.latencyMs;
    if (status < 200 || status >= 300) error = `HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`;
  } catch (err) {
    latency = Math.round(performance.now() - started);
    error = err instanceof Error ? err.message : String(err);
    if (err instanceof OutboundRefused) status = null;
  }

  const last = job.attempt >= job.max_attempts;
  const gone = status === 410;
  const state = error === null ? 'succeeded' : gone || last ? 'failed' : 'pending';
  deps.metrics.webhookDeliveries.observe({ target: delivery.target, outcome: state === 'pending' ? 'retrying' : state }, latency / 1000);
  // One transaction: nobody sees the delivery failed on a 410 while its webhook is still on.
  await withTx(deps.db, async (tx) => {
    await repo.recordAttempt(
      tx,
      delivery.id,
      { delivery_id: delivery.id, attempt: job.attempt, status_code: status, latency_ms: latency, error, created_at: now() },
      { state, attempts: job.attempt, last_status: status, last_error: error, updated_at: now() },
    );
    if (gone && delivery.target !== 'callback') {
      await disableWebhook(tx, account.id, delivery.target, delivery.url, now(), `the receiver answered 410 Gone to delivery ${delivery.id}`);
    }
  });
  if (error === null) return;
  if (gone) throw new PermanentJobError(`${delivery.url} answered 410 Gone; the webhook is disabled`);
  throw new Error(`delivery to ${delivery.url} failed: ${error}`);
}
