import { createRequire } from 'node:module';
import type { PhoneNumber } from 'libphonenumber-js/max';

let lib: typeof import('libphonenumber-js/max') | undefined;

/**
 * libphonenumber-js with its full metadata, loaded with the first phone number it parses
 * rather than at start, which most requests never need.
 */
export function parsePhoneNumberFromString(text: string): PhoneNumber | undefined {
  lib ??= createRequire(import.meta.url)('libphonenumber-js/max') as typeof import('libphonenumber-js/max');
  return lib.parsePhoneNumberFromString(text);
}
