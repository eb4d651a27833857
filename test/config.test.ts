import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { ConfigError, ENV_VARIABLES, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8080);
    assert.equal(c.publicUrl, 'http://localhost:8080');
    assert.equal(c.databaseUrl, undefined);
    assert.deepEqual(c.webhookRetrySchedule, [5, 300, 1800, 7200, 18000, 36000, 36000]);
    assert.equal(c.pmsNames[0], 'api');
    assert.equal(c.allowPrivateTargets, false);
  });

  it('lists every problem at once', () => {
    assert.throws(
      () =>
        loadConfig({
          PORT: 'eighty',
          GUESTSCREEN_SECRET: 'short',
          GUESTSCREEN_ALLOW_PRIVATE_TARGETS: 'yes',
          DATABASE_URL: 'mysql://x',
          GUESTSCREEN_WEBHOOK_RETRY_SCHEDULE: '5,abc',
        }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        const text = err.problems.join('\n');
        for (const name of ['PORT', 'GUESTSCREEN_SECRET', 'GUESTSCREEN_ALLOW_PRIVATE_TARGETS', 'DATABASE_URL', 'GUESTSCREEN_WEBHOOK_RETRY_SCHEDULE']) {
          assert.ok(text.includes(name), `${name} is named in:\n${text}`);
        }
        return true;
      },
    );
  });

  it('requires a shared secret when running on PostgreSQL', () => {
    assert.throws(() => loadConfig({ DATABASE_URL: 'postgres://localhost/x' }), /GUESTSCREEN_SECRET: required when DATABASE_URL is set/);
  });

  it('reads trusted proxies as addresses, CIDR blocks or range names, and names a bad one', () => {
    assert.deepEqual(loadConfig({ GUESTSCREEN_TRUSTED_PROXIES: '10.0.0.0/8, ::1,loopback' }).trustedProxies, ['10.0.0.0/8', '::1', 'loopback']);
    assert.throws(() => loadConfig({ GUESTSCREEN_TRUSTED_PROXIES: '10.0.0.0/33,proxy.example' }), /'10\.0\.0\.0\/33' is not an IP address.*\n.*'proxy\.example' is not an IP address/);
  });

  it('reads PMS names and puts api first', () => {
    assert.deepEqual(loadConfig({ GUESTSCREEN_PMS_NAMES: 'hostaway,guesty' }).pmsNames, ['api', 'hostaway', 'guesty']);
  });
});

describe('the configuration reference', () => {
  it('documents every variable the service reads, in docs/configuration.md and .env.example', () => {
    const docs = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
    const example = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');
    // Vendor variables are documented by pattern (GUESTSCREEN_<VENDOR>_URL and its keys) in docs/lookups.md.
    const own = ENV_VARIABLES.filter(
      (v) => !/^GUESTSCREEN_(TWILIO|HIBP|SEON|PDL|MAXMIND|ABUSEIPDB|OFFENDERS_IO|GREYNOISE|NEWSAPI|NOMINATIM|GDELT|RDAP|YENTE|WATCHMAN|PELIAS|IPINFO|CLEARBIT|CHECKR|WHOIS)_/.test(v),
    );
    assert.deepEqual(
      own.filter((v) => !docs.includes(v)),
      [],
      'missing in docs/configuration.md',
    );
    assert.deepEqual(
      own.filter((v) => !new RegExp(`^#?${v}=`, 'm').test(example)),
      [],
      'missing in .env.example',
    );
  });
  it('never shows a secret, a key, a token or a password in a configuration error', () => {
    const canary = 'Canary7x';
    const secretish = ENV_VARIABLES.filter((n) => /(SECRET|_KEY|_TOKEN|_SID)$/.test(n));
    const urls = ENV_VARIABLES.filter((n) => /_URLS?$/.test(n));
    assert.ok(secretish.includes('GUESTSCREEN_SECRET') && secretish.includes('GUESTSCREEN_ROOT_KEY') && secretish.includes('GUESTSCREEN_METRICS_TOKEN'));
    assert.ok(urls.includes('GUESTSCREEN_SMTP_URL') && urls.includes('GUESTSCREEN_SMS_URL') && urls.includes('DATABASE_URL'));
    // Values each setting refuses, every one carrying the canary: too short, badly formed, a URL
    // of the wrong scheme or address with a password and a token in it.
    const bad: Record<string, string[]> = {};
    for (const n of secretish) bad[n] = [`${canary}`, `${canary}${'x'.repeat(23)}`, `${canary} with spaces`];
    for (const n of urls) bad[n] = [`ftp://host:${canary}@example.org/x?token=${canary}`, `https://user:${canary}@127.0.0.1/feed?key=${canary}`, `user:${canary}@host`];
    for (const [name, values] of Object.entries(bad)) {
      for (const value of values) {
        let text = '';
        try {
          loadConfig({ [name]: value, ...(name === 'DATABASE_URL' ? { GUESTSCREEN_SECRET: 'a'.repeat(32) } : {}) });
        } catch (err) {
          assert.ok(err instanceof ConfigError, String(err));
          text = err.message;
        }
        assert.ok(!text.includes(canary), `${name}=${value} is shown back:\n${text}`);
      }
    }
    // What is wrong is still said: the length, with the setting named.
    assert.throws(() => loadConfig({ GUESTSCREEN_SECRET: 'x'.repeat(31) }), /GUESTSCREEN_SECRET: .*32.*31 characters, not shown/);
    assert.throws(() => loadConfig({ GUESTSCREEN_SMTP_URL: `http://u:${canary}@mail.example.org:25` }), /GUESTSCREEN_SMTP_URL: .*"http:\/\/…@mail\.example\.org:25"/);
  });
});
