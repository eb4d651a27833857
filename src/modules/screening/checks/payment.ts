import { say } from '../../../lib/host-messages.js';
import { matchName, SAME_PERSON } from '../../../lib/names/match.js';
import type { Check, Finding, Snapshot } from '../types.js';
import { outcome } from './outcome.js';

/** The payment events in the order they happened (a stable sort: arrival order among equals). */
const inTimeOrder = (payments: Snapshot['payments']) => [...payments].sort((a, b) => a.occurred_at.localeCompare(b.occurred_at));

/** The 3-D Secure outcomes that say something (authenticated, attempted, failed), oldest first. */
const secured = (payments: Snapshot['payments']) => inTimeOrder(payments).filter((e) => e.three_d_secure && e.three_d_secure !== 'not_supported' && e.three_d_secure !== 'not_attempted');

/** Whether the newest 3-D Secure outcome failed: a later authenticated payment overturns an earlier failure. */
export const threeDSecureFailed = (payments: Snapshot['payments']) => secured(payments).at(-1)?.three_d_secure === 'failed';

/**
 * What the payment events say: failures, 3-D Secure, country mismatches, whose card it is.
 * Later evidence of a kind supersedes earlier: the newest 3-D Secure outcome is the one that
 * counts, and failed attempts followed by a successful one are context, not a risk.
 */
export const paymentVerification: Check = (s) => {
  const events = inTimeOrder(s.payments);
  if (events.length === 0) {
    return { status: 'INCOMPLETE', value: say('payment.none.value'), help: say('payment.none.help'), findings: [] };
  }
  const findings: Finding[] = [];

  const lastSuccess = events.findLastIndex((e) => e.event_status === 'succeeded' && e.event_type !== 'refund' && e.event_type !== 'void');
  const failures = events.filter((e) => e.event_status === 'failed');
  const open = events.slice(lastSuccess + 1).filter((e) => e.event_status === 'failed');
  if (open.length >= 2) {
    findings.push({ code: 'payment.repeated_failures', text: say('payment.repeated_failures', { count: open.length }), strength: 'moderate', recommendation: say('payment.repeated_failures.do') });
  } else if (open.length === 1) {
    findings.push({ code: 'payment.failure', text: say('payment.failure', { message: open[0]!.processor_message ?? open[0]!.event_type }), strength: 'weak' });
  } else if (failures.length) {
    findings.push({ code: 'payment.failure_recovered', text: say('payment.failure_recovered', { count: failures.length }), strength: 'context' });
  }

  if (threeDSecureFailed(events)) {
    findings.push({ code: 'payment.3ds_failed', text: say('payment.3ds_failed'), strength: 'strong', recommendation: say('payment.3ds_failed.do') });
  } else if (secured(events).some((e) => e.three_d_secure === 'failed')) {
    findings.push({ code: 'payment.3ds_recovered', text: say('payment.3ds_recovered'), strength: 'context' });
  }

  const mismatch = events.findLast((e) => e.card_country && e.billing_country_code && e.card_country !== e.billing_country_code);
  if (mismatch) {
    findings.push({
      code: 'payment.country_mismatch',
      text: say('payment.country_mismatch', { card: mismatch.card_country!, billing: mismatch.billing_country_code! }),
      strength: 'weak',
      recommendation: say('payment.country_mismatch.do'),
    });
  }
  for (const e of events) {
    const at = s.ipCountries?.find((c) => c.ip === e.ip_address);
    const known = [e.card_country, e.billing_country_code].filter((c): c is string => Boolean(c)).map((c) => c.toUpperCase());
    if (at?.country && known.length && !known.includes(at.country)) {
      findings.push({
        code: 'payment.ip_country_mismatch',
        text: say('payment.ip_country_mismatch', { ip: at.ip, at: at.country, card: e.card_country ?? 'an unknown country', billing: e.billing_country_code ?? 'unknown' }),
        strength: 'weak',
        recommendation: say('payment.ip_country_mismatch.do'),
      });
      break;
    }
  }
  const guest = [s.reservation.guest.first_name, s.reservation.guest.last_name].filter(Boolean).join(' ');
  const named = events.findLast((e) => e.name_on_card);
  // Cards write a name as embossed (JOHN A SMITH, J SMITH): the last word is the family name.
  if (named?.name_on_card && guest && matchName(guest, named.name_on_card).score < SAME_PERSON) {
    findings.push({
      code: 'payment.name_mismatch',
      text: say('payment.name_mismatch', { card: named.name_on_card, guest }),
      strength: 'weak',
      recommendation: say('payment.name_mismatch.do'),
    });
  }
  return outcome(findings, { value: say('payment.ok.value') }, { help: say('payment.help.review') });
};
