import { withTx } from '../../db/connection.js';
import type { JobContext } from '../../jobs/worker.js';
import type { JobPayload } from '../../jobs/kinds.js';
import { iso } from '../../lib/time.js';
import { emitWebhook } from '../events/index.js';
import { findById } from '../bookings/index.js';
import { compositeStatus } from '../screening/index.js';
import * as repo from './repo.js';
import { checkInToSend, CHECK_IN_TAG } from './check-in.js';
import { stargateView } from './service.js';
import { eraseFromOutbox, sendEmail, sendSms } from '../mail/index.js';

/** Sends one queued guest message, unless the reservation no longer needs it. */
export async function sendGuestMessage(payload: JobPayload<'message.send'>, { deps }: JobContext): Promise<void> {
  const { message_id } = payload;
  const m = await repo.findMessage(deps.db, message_id);
  if (!m || m.state !== 'queued') return;
  const r = await findById(deps.db, m.account_id, m.reservation_id);
  const now = () => iso(deps.clock());
  const portalMessage = m.tag === 'invitation' || m.tag === 'reminder';
  if (!r || r.status === 'CANCELED' || (m.tag === 'reminder' && r.guestportal_completed) || (portalMessage && compositeStatus(r) === 'declined')) {
    await repo.cancelMessage(deps.db, m.id, now());
    return;
  }
  // Check-in details are composed as they go, from the listing's instructions as they stand,
  // and only if the booking is still verified; what is stored has the secrets masked.
  const checkIn = m.tag === CHECK_IN_TAG ? await checkInToSend(deps, r) : undefined;
  if (checkIn === null) return;
  const content = checkIn?.real ?? m;
  const out = { id: m.id, to: { email: m.email, phone: m.phone }, subject: content.subject, text: content.text, html: content.html };
  let via;
  try {
    via = m.method === 'email' ? await sendEmail(deps.config, out) : await sendSms(deps.config, out);
  } catch (err) {
    await repo.recordSendError(deps.db, m.id, err instanceof Error ? err.message : String(err), now());
    throw err;
  }
  await withTx(deps.db, async (tx) => {
    await repo.markSent(tx, m.id, via, now(), checkIn?.shown);
    const sent = (await stargateView({ ...deps, db: tx }, r)).find((x) => x.id === m.id);
    await emitWebhook(tx, deps, 'stargate_webhook_url', { accountId: m.account_id, type: 'guest_message.sent', subjectId: r.id, body: sent });
  });
}

/**
 * The `message.erase` job, queued by an erasure in its transaction: the outbox's copies of the
 * erased reservation's messages go too. A send already past its check of the message when the
 * erasure committed writes its file before this job runs (it waits five seconds).
 */
export async function eraseSentCopies(payload: JobPayload<'message.erase'>, { deps }: JobContext): Promise<void> {
  const { message_ids } = payload;
  await eraseFromOutbox(deps.config, message_ids);
}
