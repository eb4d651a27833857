import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import en from '../src/i18n/catalogues/en.js';
import { hashPassword } from '../src/lib/passwords.js';
import { setOwnerPassword } from '../src/modules/users/service.js';
import { dbKind, type Tenant, type TestApp } from './harness.js';

/** Debian's Chromium, which .ci/run installs; the project never downloads a browser of its own. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);

/** Chromium as the tests drive it; `args` adds switches (a camera that shows a video file). */
export async function launchBrowser(args: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...args],
  });
}

/** The console password the browser tests give their hosts. */
export const PASSWORD = 'correct horse battery';

/** Where the console's screenshots go, desktop and phone, one folder per database (README, "Tests"). */
export const SCREENSHOTS = path.resolve('artifacts', 'screenshots', dbKind);

/** The tenant's first owner, with a console password, named and addressed as the account. */
export async function withPassword(t: TestApp, who: Tenant, password = PASSWORD) {
  return setOwnerPassword(t.deps, t.deps.db, who.account, await hashPassword(password), null);
}

const CATALOGUE_KEYS = Object.keys(en).filter((k) => k.includes('.'));

/**
 * The page speaks to people: none of its visible text is a catalogue key (`screen.AboutYou.title`)
 * or a word of the code (`id_card`, `IN_PROGRESS`). Code the page shows on purpose (in code, pre or
 * kbd, a CEL rule, an API name) is left out, as are form values.
 */
export async function assertPlainWords(page: Page, name: string) {
  const text = await page.evaluate(() => {
    const body = document.body.cloneNode(true) as HTMLElement;
    body.querySelectorAll('code, pre, kbd, samp, script, style, textarea, select, [data-code]').forEach((e) => e.remove());
    return body.innerText;
  });
  const keys = CATALOGUE_KEYS.filter((k) => text.includes(k));
  assert.deepEqual(keys, [], `${name} shows catalogue keys`);
  const words = [...new Set(text.match(/\b(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g) ?? [])];
  assert.deepEqual(words, [], `${name} shows words of the code`);
}

/** A screenshot of the page as it is, at desktop width and at a phone's 390 px; its words checked first. */
export async function snap(page: Page, name: string) {
  await assertPlainWords(page, name);
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-desktop.png`), fullPage: true });
  const size = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-phone.png`), fullPage: true });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 390, `${name} fits a phone: nothing scrolls sideways (the page is ${wide} px wide)`);
  if (size) await page.setViewportSize(size);
}

export async function signIn(page: Page, base: string, email: string, password = PASSWORD) {
  await page.goto(`${base}/console/sign-in`);
  await page.fill('#email', email);
  await page.fill('#password', password);
  await Promise.all([page.waitForLoadState(), page.click('button[type=submit]')]);
}
