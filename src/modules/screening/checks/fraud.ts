import { parsePhoneNumberFromString } from '../../../lib/phone.js';
import { DISPOSABLE, FREE_WEBMAIL } from '../lists.js';
import { say } from '../../../lib/host-messages.js';
import type { Check, Finding } from '../types.js';
import { outcome } from './outcome.js';

const DAY = 86_400_000;

/**
 * Signals of a fraudulent booking in the contact details, timing, size and frequency. Each is
 * weak on its own (guests book late, stay long, use internet phones) except a throwaway e-mail
 * and a burst of bookings from one contact, which are moderate; free webmail is context only.
 */
export const fraudDetection: Check = (s) => {
  const r = s.reservation;
  const findings: Finding[] = [];
  const email = r.guest.email;
  if (email) {
    const domain = email.split('@')[1] ?? '';
    if (DISPOSABLE.has(domain)) {
      findings.push({
        code: 'fraud.disposable_email',
        text: say('fraud.disposable_email', { domain }),
        strength: 'moderate',
        recommendation: say('fraud.disposable_email.do'),
      });
    } else if (FREE_WEBMAIL.has(domain)) {
      findings.push({ code: 'fraud.free_webmail', text: say('fraud.free_webmail', { domain }), strength: 'context' });
    }
  }
  if (r.guest.phone) {
    const phone = parsePhoneNumberFromString(r.guest.phone);
    if (!phone || !phone.isValid()) {
      findings.push({
        code: 'fraud.invalid_phone',
        text: say('fraud.invalid_phone', { phone: r.guest.phone }),
        strength: 'weak',
        recommendation: say('fraud.invalid_phone.do'),
      });
    } else {
      const type = phone.getType();
      if (type === 'VOIP' || type === 'PREMIUM_RATE' || type === 'SHARED_COST') {
        findings.push({ code: 'fraud.phone_type', text: say('fraud.phone_type', { type: type.toLowerCase() }), strength: 'weak' });
      }
    }
  }
  if (r.check_in_date) {
    const lead = (Date.parse(`${r.check_in_date}T23:59:59Z`) - Date.parse(r.created_at)) / DAY;
    if (lead >= 0 && lead < 1) {
      findings.push({
        code: 'fraud.last_minute',
        text: say('fraud.last_minute'),
        strength: 'weak',
        recommendation: say('fraud.last_minute.do'),
      });
    }
  }
  const h = s.history;
  if (r.nights !== null && h.medianNights !== null && h.reservations >= 5 && r.nights >= Math.max(28, h.medianNights * 4)) {
    findings.push({ code: 'fraud.long_stay', text: say('fraud.long_stay', { nights: r.nights, usual: h.medianNights }), strength: 'weak' });
  }
  if (r.total_price !== null && h.medianTotalPrice !== null && h.reservations >= 5 && r.total_price >= h.medianTotalPrice * 4) {
    findings.push({
      code: 'fraud.expensive',
      text: say('fraud.expensive', { price: r.total_price, usual: h.medianTotalPrice }),
      strength: 'weak',
    });
  }
  if (h.sameContactLast24h >= 3) {
    findings.push({
      code: 'fraud.velocity',
      text: say('fraud.velocity', { count: h.sameContactLast24h }),
      strength: 'moderate',
      recommendation: say('fraud.velocity.do'),
    });
  }
  if (s.ipThreats?.length) {
    findings.push({ code: 'fraud.ip_threat', text: say('fraud.ip_threat', { ip: s.ipThreats[0]!.ip }), strength: 'weak', recommendation: say('fraud.ip_threat.do') });
  }
  if (!email && !r.guest.phone) {
    return { status: 'INCOMPLETE', value: say('fraud.no_contact.value'), help: say('fraud.no_contact.help'), findings };
  }
  const signals = findings.filter((f) => f.strength !== 'context').length;
  return outcome(findings, { value: say('fraud.none.value') }, { value: say('fraud.some.value', { count: signals }), help: say('fraud.help.review') });
};
