import { parsePhoneNumberFromString } from '../../../lib/phone.js';
import { DISPOSABLE, FREE_WEBMAIL } from '../lists.js';
import type { Check, Finding } from '../types.js';

const DAY = 86_400_000;

/** Signals of a fraudulent booking in the contact details, timing, size and frequency. */
export const fraudDetection: Check = (s) => {
  const r = s.reservation;
  const findings: Finding[] = [];
  const email = r.guest.email;
  if (email) {
    const domain = email.split('@')[1] ?? '';
    if (DISPOSABLE.has(domain)) {
      findings.push({
        code: 'fraud.disposable_email',
        text: `E-mail uses a disposable address domain (${domain})`,
        weight: 35,
        recommendation: 'Ask the guest for a permanent e-mail address.',
      });
    } else if (FREE_WEBMAIL.has(domain)) {
      findings.push({ code: 'fraud.free_webmail', text: `E-mail is a free webmail address (${domain}); normal for guests`, weight: 0 });
    }
  }
  if (r.guest.phone) {
    const phone = parsePhoneNumberFromString(r.guest.phone);
    if (!phone || !phone.isValid()) {
      findings.push({
        code: 'fraud.invalid_phone',
        text: `Phone number ${r.guest.phone} is not a valid number`,
        weight: 20,
        recommendation: 'Call or text the guest to confirm a working number.',
      });
    } else {
      const type = phone.getType();
      if (type === 'VOIP' || type === 'PREMIUM_RATE' || type === 'SHARED_COST') {
        findings.push({ code: 'fraud.phone_type', text: `Phone number is a ${type.toLowerCase().replace('_', ' ')} line`, weight: 10 });
      }
    }
  }
  if (r.check_in_date) {
    const lead = (Date.parse(`${r.check_in_date}T23:59:59Z`) - Date.parse(r.created_at)) / DAY;
    if (lead >= 0 && lead < 1) {
      findings.push({
        code: 'fraud.last_minute',
        text: 'Booked less than a day before check-in',
        weight: 15,
        recommendation: 'Last-minute bookings carry more risk: verify the guest before arrival.',
      });
    }
  }
  const h = s.history;
  if (r.nights !== null && h.medianNights !== null && h.reservations >= 5 && r.nights >= Math.max(28, h.medianNights * 4)) {
    findings.push({ code: 'fraud.long_stay', text: `${r.nights} nights, far longer than this account's usual ${h.medianNights}`, weight: 10 });
  }
  if (r.total_price !== null && h.medianTotalPrice !== null && h.reservations >= 5 && r.total_price >= h.medianTotalPrice * 4) {
    findings.push({
      code: 'fraud.expensive',
      text: `Total price ${r.total_price} is over four times this account's median (${h.medianTotalPrice})`,
      weight: 15,
    });
  }
  if (h.sameContactLast24h >= 3) {
    findings.push({
      code: 'fraud.velocity',
      text: `The same e-mail or phone made ${h.sameContactLast24h} other reservations in the last 24 hours`,
      weight: 30,
      recommendation: 'Several bookings from one contact in a day: check they are genuine.',
    });
  }
  for (const t of (s.ipThreats ?? []).slice(0, 3)) {
    findings.push({
      code: 'fraud.ip_threat',
      text: `A payment came from ${t.ip}, listed by ${t.source}${t.tags.length ? ` (${t.tags.join(', ')})` : ''}`,
      weight: 20,
      recommendation: 'The payment came through an anonymiser or a listed host: confirm the booking with the guest directly.',
    });
  }
  const risky = findings.filter((f) => f.weight > 0);
  const score = risky.reduce((n, f) => n + f.weight, 0);
  if (!email && !r.guest.phone) {
    return { status: 'INCOMPLETE', value: 'no e-mail or phone to check', help: 'Collect the guest\'s contact details.', findings };
  }
  return {
    status: score >= 35 ? 'FAIL' : score > 0 ? 'REVIEW' : 'PASS',
    value: risky.length ? `${risky.length} fraud signal${risky.length > 1 ? 's' : ''}` : 'no fraud signals',
    help: risky[0]?.recommendation ?? (risky.length ? 'Review the signals listed.' : 'No action needed.'),
    findings,
  };
};
