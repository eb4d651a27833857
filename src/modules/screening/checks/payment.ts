import { matchName, SAME_PERSON } from '../../../lib/names/match.js';
import type { Check, Finding } from '../types.js';

/** What the payment events say: failures, 3-D Secure, country mismatches, whose card it is. */
export const paymentVerification: Check = (s) => {
  const events = s.payments;
  if (events.length === 0) {
    return { status: 'INCOMPLETE', value: 'no payment events yet', help: 'Send payment events to include the payment in the screening.', findings: [] };
  }
  const findings: Finding[] = [];
  const failures = events.filter((e) => e.event_status === 'failed');
  if (failures.length >= 2) {
    findings.push({ code: 'payment.repeated_failures', text: `${failures.length} failed payment attempts`, weight: 25, recommendation: 'Several failed payments: confirm the card with the guest.' });
  } else if (failures.length === 1) {
    findings.push({ code: 'payment.failure', text: `A payment attempt failed: ${failures[0]!.processor_message ?? failures[0]!.event_type}`, weight: 10 });
  }
  if (events.some((e) => e.three_d_secure === 'failed')) {
    findings.push({ code: 'payment.3ds_failed', text: '3-D Secure authentication failed', weight: 40, recommendation: 'The card holder failed 3-D Secure: do not accept this card.' });
  }
  const mismatch = events.find((e) => e.card_country && e.billing_country_code && e.card_country !== e.billing_country_code);
  if (mismatch) {
    findings.push({
      code: 'payment.country_mismatch',
      text: `Card issued in ${mismatch.card_country} but billing country is ${mismatch.billing_country_code}`,
      weight: 15,
      recommendation: 'Ask why the card and billing countries differ.',
    });
  }
  for (const e of events) {
    const at = s.ipCountries?.find((c) => c.ip === e.ip_address);
    const known = [e.card_country, e.billing_country_code].filter((c): c is string => Boolean(c)).map((c) => c.toUpperCase());
    if (at?.country && known.length && !known.includes(at.country)) {
      findings.push({
        code: 'payment.ip_country_mismatch',
        text: `Payment made from ${at.ip} in ${at.country}; card issued in ${e.card_country ?? 'an unknown country'}, billing country ${e.billing_country_code ?? 'unknown'}`,
        weight: 10,
        recommendation: 'The payer was elsewhere than the card: confirm the booking with the guest.',
      });
      break;
    }
  }
  const guest = [s.reservation.guest.first_name, s.reservation.guest.last_name].filter(Boolean).join(' ');
  const named = events.find((e) => e.name_on_card);
  if (named?.name_on_card && guest) {
    // Cards write a name as embossed (JOHN A SMITH, J SMITH): the last word is the family name.
    if (matchName(guest, named.name_on_card).score < SAME_PERSON) {
      findings.push({
        code: 'payment.name_mismatch',
        text: `Name on card (${named.name_on_card}) differs from the guest (${guest})`,
        weight: 15,
        recommendation: 'Someone else\'s card: confirm the card holder knows about the booking.',
      });
    }
  }
  const score = findings.reduce((n, f) => n + f.weight, 0);
  return {
    status: score >= 40 ? 'FAIL' : score > 10 ? 'REVIEW' : 'PASS',
    value: findings.length ? findings[0]!.text : 'payments look normal',
    help: findings.find((f) => f.recommendation)?.recommendation ?? 'No action needed.',
    findings,
  };
};
