import { createHmac, timingSafeEqual } from 'node:crypto';
import type { VendorConfig } from '../../config.js';
import { basic, callVendor, isObject, providerFailed, str, unexpected, type LookupContext, type VendorAnswer } from '../core.js';

/** The person a background check invites to Checkr's hosted flow, where they consent and give what Checkr needs. */
export interface CheckrCandidate {
  firstName: string;
  middleName?: string | null | undefined;
  lastName: string;
  email: string;
  /** ISO alpha-2; with state and city, where the work (the stay) takes place. */
  country?: string | null | undefined;
  state?: string | null | undefined;
  city?: string | null | undefined;
}

export interface CheckrOrder {
  candidateId: string;
  invitationId: string;
}

/** Where an order stands: still with the guest or Checkr, over without a report, or reported. */
export type CheckrProgress =
  | { state: 'waiting'; reportId: string | null; detail: string }
  | { state: 'expired' | 'canceled'; reportId: string | null }
  | { state: 'complete'; reportId: string; result: 'clear' | 'consider'; package: string | null; completedAt: string | null; adjudication: string | null };

const LABEL = 'Checkr';

function refused(a: VendorAnswer): never {
  const why = isObject(a.json) ? (str(a.json.error) ?? (Array.isArray(a.json.errors) ? a.json.errors.filter((e) => typeof e === 'string').join('; ') : null)) : null;
  if (a.status === 401 || a.status === 403) throw providerFailed(LABEL, 'refused the API key');
  if (a.status === 400 || a.status === 404 || a.status === 409 || a.status === 422) throw providerFailed(LABEL, `refused the request: ${why ?? a.text.slice(0, 200)}`);
  throw unexpected(LABEL, a);
}

const auth = (vendor: VendorConfig) => ({ authorization: basic(vendor.secrets.API_KEY ?? '', '') });

/**
 * Creates the candidate and Checkr's invitation for the account's package (`POST /candidates`,
 * `POST /invitations`). Each carries an idempotency key made of the check's id, so a job that
 * is retried after a crash between the two does not invite the guest twice.
 */
export async function inviteCandidate(ctx: LookupContext, vendor: VendorConfig, checkId: string, c: CheckrCandidate): Promise<CheckrOrder> {
  const post = (path: string, body: unknown, step: string) =>
    callVendor(ctx, 'checkr', LABEL, `${vendor.url}${path}`, {
      method: 'POST',
      headers: { ...auth(vendor), 'content-type': 'application/json', 'idempotency-key': `${checkId}:${step}` },
      body: JSON.stringify(body),
    });
  const candidate = await post(
    '/candidates',
    { first_name: c.firstName, last_name: c.lastName, email: c.email, ...(c.middleName ? { middle_name: c.middleName } : { no_middle_name: true }) },
    'candidate',
  );
  if ((candidate.status !== 200 && candidate.status !== 201) || !isObject(candidate.json)) refused(candidate);
  const candidateId = str(candidate.json.id);
  if (!candidateId) throw unexpected(LABEL, candidate);
  const location = c.country ? [{ country: c.country, ...(c.state ? { state: c.state } : {}), ...(c.city ? { city: c.city } : {}) }] : undefined;
  const invitation = await post('/invitations', { candidate_id: candidateId, package: vendor.secrets.PACKAGE, ...(location ? { work_locations: location } : {}) }, 'invitation');
  if ((invitation.status !== 200 && invitation.status !== 201) || !isObject(invitation.json)) refused(invitation);
  const invitationId = str(invitation.json.id);
  if (!invitationId) throw unexpected(LABEL, invitation);
  return { candidateId, invitationId };
}

/**
 * Reads the invitation (`pending`, `completed`, `expired`), then the report it led to:
 * `complete` with `clear` or `consider`, `canceled`, or still under way (`pending`,
 * `suspended` while Checkr waits on the guest, `paused`, `dispute`).
 */
export async function checkrProgress(ctx: LookupContext, vendor: VendorConfig, order: { invitationId: string; reportId: string | null }): Promise<CheckrProgress> {
  const get = (path: string) => callVendor(ctx, 'checkr', LABEL, `${vendor.url}${path}`, { headers: auth(vendor) });
  let reportId = order.reportId;
  if (!reportId) {
    const inv = await get(`/invitations/${encodeURIComponent(order.invitationId)}`);
    if (inv.status !== 200 || !isObject(inv.json)) refused(inv);
    const status = str(inv.json.status);
    reportId = str(inv.json.report_id);
    if (status === 'expired') return { state: 'expired', reportId: null };
    if (!reportId) return { state: 'waiting', reportId: null, detail: `invitation ${status ?? 'pending'}` };
  }
  const rep = await get(`/reports/${encodeURIComponent(reportId)}`);
  if (rep.status !== 200 || !isObject(rep.json)) refused(rep);
  const status = str(rep.json.status);
  const result = str(rep.json.result);
  if (status === 'canceled') return { state: 'canceled', reportId };
  if (status === 'complete' && (result === 'clear' || result === 'consider')) {
    return { state: 'complete', reportId, result, package: str(rep.json.package), completedAt: str(rep.json.completed_at), adjudication: str(rep.json.adjudication) };
  }
  return { state: 'waiting', reportId, detail: `report ${status ?? 'pending'}` };
}

/** Checkr signs a webhook with the hex HMAC-SHA256 of its raw body, keyed with the API key (`X-Checkr-Signature`). */
export function validCheckrSignature(apiKey: string, rawBody: string, signature: string | undefined): boolean {
  if (!signature || !/^[0-9a-f]{64}$/i.test(signature)) return false;
  const expected = createHmac('sha256', apiKey).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}
