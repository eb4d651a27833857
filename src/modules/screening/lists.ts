import { disposableEmailBlocklistSet } from 'disposable-email-domains-js';

/**
 * Disposable e-mail domains, built once: the package's own isDisposableEmailDomain() rebuilds
 * a set of thousands of domains on every call.
 */
export const DISPOSABLE: ReadonlySet<string> = disposableEmailBlocklistSet();

/**
 * Free webmail domains (the big providers). Using one is normal for guests: recorded, never a
 * risk on its own. `guestscreen` also knows disposable domains from disposable-email-domains-js.
 */
export const FREE_WEBMAIL = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'yahoo.co.uk',
  'yahoo.fr',
  'outlook.com',
  'hotmail.com',
  'hotmail.co.uk',
  'live.com',
  'msn.com',
  'icloud.com',
  'me.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  'mail.ru',
  'yandex.ru',
  'qq.com',
  '163.com',
  'orange.fr',
  'libero.it',
  'uol.com.br',
  'bol.com.br',
]);
