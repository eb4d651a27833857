import { parsePhoneNumberFromString } from '../../lib/phone.js';
import type { VendorConfig } from '../../config.js';
import { basic, callVendor, isObject, providerFailed, str, unexpected } from '../core.js';
import type { PhoneProvider } from './index.js';

const TYPES: Record<string, string> = {
  mobile: 'mobile',
  landline: 'landline',
  fixedVoip: 'voip',
  nonFixedVoip: 'voip',
  tollFree: 'toll_free',
  premium: 'premium_rate',
  sharedCost: 'shared_cost',
  personal: 'personal',
  pager: 'pager',
  uan: 'uan',
  voicemail: 'voicemail',
};

/** Twilio Lookup v2 with line type intelligence: today's carrier and line type. */
export function twilioPhone(vendor: VendorConfig): PhoneProvider {
  return {
    name: 'twilio',
    remote: true,
    async lookup(e164, ctx) {
      const label = 'Twilio Lookup';
      const a = await callVendor(ctx, 'twilio', label, `${vendor.url}/v2/PhoneNumbers/${encodeURIComponent(e164)}?Fields=line_type_intelligence`, {
        headers: { authorization: basic(vendor.secrets.ACCOUNT_SID ?? '', vendor.secrets.AUTH_TOKEN ?? '') },
      });
      if (a.status === 401 || a.status === 403) throw providerFailed(label, `refused the credentials (${isObject(a.json) ? str(a.json.message) : a.status})`);
      if (a.status !== 200 || !isObject(a.json)) throw unexpected(label, a);
      const body = a.json;
      const lti = isObject(body.line_type_intelligence) ? body.line_type_intelligence : {};
      const type = str(lti.type);
      const parsed = parsePhoneNumberFromString(str(body.phone_number) ?? e164);
      return {
        e164: str(body.phone_number) ?? e164,
        country: str(body.country_code),
        nationalFormat: str(body.national_format) ?? parsed?.formatNational() ?? e164,
        valid: body.valid === true,
        lineType: type ? (TYPES[type] ?? type) : null,
        carrier: str(lti.carrier_name),
        carrierIsCurrent: true,
        location: null,
        source: { name: 'Twilio Lookup v2', date: new Date(ctx.deps.clock()).toISOString(), url: 'https://www.twilio.com/docs/lookup/v2-api' },
      };
    },
  };
}
