import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, createTestAppWithWorker, dbKind, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { operatorWords } from '../../../test/host-language.js';
import { packageFile } from '../../lib/packages.js';
import { importNews } from '../../providers/adverse-media/import.js';
import { importSanctions } from '../../providers/sanctions/import.js';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

interface Guest {
  title: string;
  body: Record<string, unknown>;
  query?: string;
  payments?: Record<string, unknown>[];
  expect: { status: string; color: string; risk?: RegExp; recommendation?: RegExp; details?: Record<string, string>; values?: Record<string, RegExp> };
}

// Each guest gets contact details of their own, so no golden case trips the repeat-booking check.
let n = 0;
const base = (guest: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  listing_nickname: 'Harbour Loft',
  check_in_date: day(30),
  check_out_date: day(34),
  total_price: 600,
  guest: { first_name: 'Maria', last_name: 'Santos', email: `maria.santos.${++n}@gmail.com`, phone: `+351 912 345 ${String(100 + n)}`, ...guest },
  identification: { first_name: 'Maria', last_name: 'Santos', document_number: 'P1234567', birth_date: '1988-04-02', expiry_date: '2031-01-01' },
  ...extra,
});

/** A guest whose passport says who they are, with the contact details of their own base() gives. */
const person = (first: string, last: string, id: Record<string, unknown> = {}, guest: Record<string, unknown> = {}) =>
  base(
    { first_name: first, last_name: last, ...guest },
    { identification: { first_name: first, last_name: last, document_number: `D${n}77`, birth_date: '1985-06-15', expiry_date: '2032-01-01', ...id } },
  );
const payment = (id: string, over: Record<string, unknown>) => ({
  event_source: 'stripe',
  event_id: id,
  event_type: 'authorization',
  event_status: 'succeeded',
  card_country: 'PT',
  billing_country_code: 'PT',
  ...over,
});

const GOLDEN: Guest[] = [
  {
    title: 'a guest with a webmail address, a real mobile number and a valid passport is verified',
    body: base({}),
    expect: {
      status: 'verified',
      color: 'green',
      details: {
        identification_document: 'PASS',
        fraud_detection: 'PASS',
        general_risk: 'PASS',
        sanctions: 'PASS',
        adverse_media: 'PASS',
        background_check: 'INCOMPLETE',
        credit_check: 'INCOMPLETE',
        social_verification: 'INCOMPLETE',
      },
      values: { sanctions: /^No match on OFAC SDN of 3 May 2024$/, background_check: /^Not checked: no criminal-records source is connected$/, adverse_media: /^No article names the guest$/ },
    },
  },
  {
    title: 'a disposable e-mail address sends the booking to review',
    body: base({ email: 'maria@mailinator.com' }),
    expect: { status: 'review', color: 'orange', risk: /throwaway address \(mailinator\.com\)/, recommendation: /permanent e-mail/, details: { fraud_detection: 'REVIEW' } },
  },
  {
    title: 'a guest under the minimum age is declined',
    body: base({}, { identification: { first_name: 'Maria', last_name: 'Santos', birth_date: day(-16 * 365), expiry_date: '2031-01-01', document_number: 'X1' } }),
    expect: { status: 'declined', color: 'red', risk: /under your minimum age of 18/, details: { identification_document: 'FAIL' } },
  },
  {
    title: 'a passport that expires during the stay needs review',
    body: base({}, { identification: { first_name: 'Maria', last_name: 'Santos', birth_date: '1988-04-02', expiry_date: day(32), document_number: 'X2' } }),
    expect: { status: 'review', color: 'orange', risk: /expires .* before check-out/, details: { identification_document: 'FAIL' } },
  },
  {
    title: "someone else's passport needs review",
    body: base({}, { identification: { first_name: 'John', last_name: 'Whitaker', birth_date: '1979-01-01', expiry_date: '2031-01-01', document_number: 'X3' } }),
    expect: { status: 'review', color: 'orange', risk: /does not match the guest/, details: { identification_document: 'REVIEW' } },
  },
  {
    title: 'an invalid phone number alone is noted but does not hold the booking',
    body: base({ phone: '+1 555 0100' }),
    expect: { status: 'verified', color: 'yellow', risk: /not a number that can be called/, details: { fraud_detection: 'REVIEW' } },
  },
  {
    title: 'a last-minute booking alone is noted but does not hold the booking',
    body: base({}, { check_in_date: day(0), check_out_date: day(2) }),
    expect: { status: 'verified', color: 'yellow', risk: /less than a day before check-in/ },
  },
  {
    title: 'a failed 3-D Secure check on a foreign card needs review',
    body: base({}),
    payments: [
      {
        event_source: 'stripe',
        event_id: 'a1',
        event_type: 'authorization',
        event_status: 'failed',
        three_d_secure: 'failed',
        card_country: 'NG',
        billing_country_code: 'PT',
        processor_message: 'authentication failed',
      },
    ],
    expect: { status: 'review', color: 'orange', risk: /failed the bank’s identity check/, details: { payment_verification: 'FAIL' } },
  },
  {
    title: 'a disposable address, an invalid phone, a last-minute booking and a failed 3-D Secure are declined',
    body: base({ email: 'x@mailinator.com', phone: '+1 555 0100' }, { check_in_date: day(0), check_out_date: day(1) }),
    payments: [{ event_source: 'stripe', event_id: 'b1', event_type: 'authorization', event_status: 'failed', three_d_secure: 'failed' }],
    expect: { status: 'declined', color: 'red', risk: /failed the bank’s identity check/, details: { general_risk: 'FAIL' } },
  },
  {
    title: 'a passport whose machine-readable zone checks out is accepted',
    body: base(
      { first_name: 'Anna', last_name: 'Eriksson' },
      {
        identification: {
          first_name: 'Anna Maria',
          last_name: 'Eriksson',
          document_number: 'L898902C3',
          birth_date: '1974-08-12',
          expiry_date: '2035-04-15',
          mrz: 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10',
        },
      },
    ),
    expect: { status: 'verified', color: 'green', details: { identification_document: 'PASS' } },
  },
  {
    title: 'a machine-readable zone with a wrong check digit needs review',
    body: base(
      { first_name: 'Anna', last_name: 'Eriksson' },
      {
        identification: {
          first_name: 'Anna',
          last_name: 'Eriksson',
          document_number: 'L898902C3',
          birth_date: '1974-08-12',
          expiry_date: '2035-04-15',
          mrz: 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C37UTO7408122F1204159ZE184226B<<<<<10',
        },
      },
    ),
    expect: { status: 'review', color: 'orange', risk: /check digits of the document do not add up \(document number and the whole line\)/, details: { identification_document: 'FAIL' } },
  },
  {
    title: 'a guest who has not completed the portal stays pending',
    body: base({}),
    query: '',
    expect: { status: 'pending', color: 'green', details: { house_rules: 'INCOMPLETE', general_risk: 'INCOMPLETE' } },
  },
  {
    title: 'a card in another name needs a look only together with other signals',
    body: base({}),
    payments: [{ event_source: 'stripe', event_id: 'c1', event_type: 'authorization', event_status: 'succeeded', name_on_card: 'PETER NOVAK', card_country: 'PT', billing_country_code: 'PT' }],
    expect: { status: 'verified', color: 'yellow', risk: /Name on card \(PETER NOVAK\) differs/, details: { payment_verification: 'REVIEW' } },
  },
  {
    title: 'a guest without identification or contact details is verified with the checks that could run, and says what is missing',
    body: { check_in_date: day(30), check_out_date: day(31), guest: { first_name: 'Ana', last_name: 'Silva' } },
    expect: { status: 'verified', color: 'green', details: { identification_document: 'INCOMPLETE', fraud_detection: 'INCOMPLETE', payment_verification: 'INCOMPLETE' } },
  },

  // Sanctions: what besides the name agrees decides (docs/verdicts.md).
  {
    title: 'a guest whose name and passport date of birth match an SDN entry is declined: the strongest signal there is',
    body: person('Oleg', 'Deripaska', { birth_date: '1968-01-02', nationality: 'RUS' }),
    expect: { status: 'declined', color: 'red', risk: /name and date of birth match “DERIPASKA, Oleg Vladimirovich” on OFAC SDN/, recommendation: /Decline/, details: { sanctions: 'FAIL' } },
  },
  {
    title: 'a guest whose name and passport number match an SDN entry is declined',
    body: person('Mohammad Shawqi', 'Islambouli', { document_number: '304555', birth_date: undefined }),
    expect: { status: 'declined', color: 'red', risk: /name and document number match “ISLAMBOULI, Mohammad Shawqi”/, details: { sanctions: 'FAIL' } },
  },
  {
    title: 'a guest whose name and year of birth match an entry that gives only the year needs review',
    body: person('Nayif', 'Hawatma', { birth_date: '1933-03-03' }),
    expect: { status: 'review', color: 'orange', risk: /name and year of birth match “HAWATMA, Nayif”/, details: { sanctions: 'FAIL' } },
  },
  {
    title: 'a guest who shares only a name with a listed person, no date of birth known, is a possible match that needs review and asks for the date of birth, not a decline',
    body: person('Oleg', 'Deripaska', { birth_date: undefined }),
    expect: {
      status: 'review',
      color: 'orange',
      risk: /Possible match: the guest's name is the same as “DERIPASKA, Oleg Vladimirovich”.*no date of birth from the guest/,
      recommendation: /Ask the guest for their date of birth/,
      details: { sanctions: 'REVIEW' },
    },
  },
  {
    title: 'a namesake born the same year but on another day than the list says is accepted, with a note',
    body: person('Oleg', 'Deripaska', { birth_date: '1968-07-21' }),
    expect: { status: 'verified', color: 'yellow', risk: /the list gives another date of birth/, details: { sanctions: 'REVIEW' } },
  },

  // The account's blocklist: the same e-mail or document declines; a phone or a name needs a look.
  {
    title: 'a guest whose e-mail is on the blocklist is declined',
    body: base({ email: 'blocked.guest@example.com' }),
    expect: { status: 'declined', color: 'red', risk: /e-mail matches your blocklist entry \(damaged the flat\)/, details: { blacklist: 'FAIL' } },
  },
  {
    title: 'a guest whose passport number is on the blocklist is declined',
    body: base({}, { identification: { first_name: 'Maria', last_name: 'Santos', document_number: 'BLK998877', birth_date: '1988-04-02', expiry_date: '2031-01-01' } }),
    expect: { status: 'declined', color: 'red', risk: /document number matches your blocklist entry/, details: { blacklist: 'FAIL' } },
  },
  {
    title: 'a guest whose phone number is on the blocklist needs review: numbers change hands',
    body: base({ phone: '+351 912 000 999' }),
    expect: { status: 'review', color: 'orange', risk: /phone number matches your blocklist entry .*phone numbers change hands/, details: { blacklist: 'FAIL' } },
  },
  {
    title: 'a guest with a blocklisted name (listed family name first) needs review, the name said to be the same',
    body: person('Zbigniew', 'Kowalczyk'),
    expect: { status: 'review', color: 'orange', risk: /name is the same as your blocklist entry “Kowalczyk, Zbigniew”/, details: { blacklist: 'REVIEW' } },
  },

  // Adverse media reads the article.
  {
    title: 'a guest named in a headline about Treasury sanctions needs review',
    body: person('Viktor', 'Brandt'),
    expect: { status: 'review', color: 'orange', risk: /News names the guest near words of sanctions \(“sanctions”\)/, details: { adverse_media: 'REVIEW' } },
  },
  {
    title: 'a guest named in an article about bribes needs review',
    body: person('Tomasz', 'Lewandowski'),
    expect: { status: 'review', color: 'orange', risk: /near words of corruption \(“bribes”\)/, details: { adverse_media: 'REVIEW' } },
  },
  {
    title: 'a guest named in an article about a money-laundering trial needs review',
    body: person('Henrik', 'Dahlgren'),
    expect: { status: 'review', color: 'orange', risk: /money laundering/, details: { adverse_media: 'REVIEW' } },
  },
  {
    title: 'a guest named only in a harmless article is accepted',
    body: person('Lucia', 'Ferraro'),
    expect: { status: 'verified', color: 'green', details: { adverse_media: 'PASS' }, values: { adverse_media: /^1 article names the guest, none about wrongdoing$/ } },
  },

  // Payments: later evidence of a kind supersedes earlier.
  {
    title: 'a failed 3-D Secure followed by a successful, authenticated payment is accepted',
    body: base({}),
    payments: [
      payment('d1', { event_status: 'failed', three_d_secure: 'failed', processor_message: 'authentication failed', timestamp: '2026-11-20T09:00:00Z' }),
      payment('d2', { three_d_secure: 'authenticated', timestamp: '2026-11-20T09:04:00Z' }),
    ],
    expect: { status: 'verified', color: 'green', details: { payment_verification: 'PASS' } },
  },
  {
    title: 'a failed 3-D Secure after an earlier successful one needs review',
    body: base({}),
    payments: [
      payment('e1', { three_d_secure: 'authenticated', timestamp: '2026-11-20T09:00:00Z' }),
      payment('e2', { event_status: 'failed', three_d_secure: 'failed', timestamp: '2026-11-21T09:00:00Z' }),
    ],
    expect: { status: 'review', color: 'orange', risk: /failed the bank’s identity check/, recommendation: /Do not accept this card/, details: { payment_verification: 'FAIL' } },
  },
  {
    title: 'two failed payments and no success since need review',
    body: base({}),
    payments: [payment('f1', { event_status: 'failed', processor_message: 'card declined' }), payment('f2', { event_id: 'f2', event_status: 'failed', processor_message: 'insufficient funds' })],
    expect: { status: 'review', color: 'orange', risk: /2 failed payment attempts/, details: { payment_verification: 'REVIEW' } },
  },
  {
    title: 'a declined card followed by a successful payment is accepted',
    body: base({}),
    payments: [payment('g1', { event_status: 'failed', processor_message: 'card declined', timestamp: '2026-11-20T09:00:00Z' }), payment('g2', { timestamp: '2026-11-20T09:02:00Z' })],
    expect: { status: 'verified', color: 'green', details: { payment_verification: 'PASS' } },
  },
  {
    title: 'a card issued in another country than the billing address is noted but accepted',
    body: base({}),
    payments: [payment('h1', { card_country: 'BR' })],
    expect: { status: 'verified', color: 'yellow', risk: /Card issued in BR but billing country is PT/, details: { payment_verification: 'REVIEW' } },
  },

  // Identity documents, said in words.
  {
    title: 'machine-readable lines that cannot be read need review, said in words and not as an error message',
    body: person('Anna', 'Eriksson', { mrz: 'P<UTOERIKSSON<<ANNA\nL898' }),
    expect: { status: 'review', color: 'orange', risk: /cannot be read \(they are not the length a passport or ID card has\)/, details: { identification_document: 'REVIEW' } },
  },
  {
    title: 'a document number that differs from the machine-readable lines needs review',
    body: person('Anna', 'Eriksson', {
      document_number: 'L898902C4',
      birth_date: '1974-08-12',
      expiry_date: '2035-04-15',
      mrz: 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10',
    }),
    expect: { status: 'review', color: 'orange', risk: /Document number L898902C4 differs from the one printed/, details: { identification_document: 'REVIEW' } },
  },
  {
    title: "a passport that expires during the stay and is someone else's still needs review, not a decline: one check, one concern",
    body: base({}, { identification: { first_name: 'John', last_name: 'Whitaker', birth_date: '1979-01-01', expiry_date: day(31), document_number: 'X5' } }),
    expect: { status: 'review', color: 'orange', details: { identification_document: 'FAIL' } },
  },

  // Fraud signals and how independent signals add up.
  {
    title: 'an internet (VoIP) phone line alone is noted but accepted',
    body: base({ phone: '+44 56 1234 5678' }),
    expect: { status: 'verified', color: 'yellow', risk: /an internet \(VoIP\) line/, details: { fraud_detection: 'REVIEW' } },
  },
  {
    title: 'an invalid phone and a card from another country than the billing, two independent weak signals, need review',
    body: base({ phone: '+1 555 0142' }),
    payments: [payment('i1', { card_country: 'BR' })],
    expect: { status: 'review', color: 'orange', details: { fraud_detection: 'REVIEW', payment_verification: 'REVIEW' } },
  },
  {
    title: "a throwaway e-mail and someone else's passport need review",
    body: base({ email: 'guest@mailinator.com' }, { identification: { first_name: 'Peter', last_name: 'Novak', birth_date: '1979-01-01', expiry_date: '2031-01-01', document_number: 'X6' } }),
    expect: { status: 'review', color: 'orange', details: { fraud_detection: 'REVIEW', identification_document: 'REVIEW' } },
  },
  {
    title: "a failed 3-D Secure and someone else's passport are declined: two independent concerns, one strong",
    body: base({}, { identification: { first_name: 'Peter', last_name: 'Novak', birth_date: '1979-01-01', expiry_date: '2031-01-01', document_number: 'X7' } }),
    payments: [payment('j1', { event_status: 'failed', three_d_secure: 'failed' })],
    expect: { status: 'declined', color: 'red', details: { payment_verification: 'FAIL', identification_document: 'REVIEW' } },
  },
  {
    title: 'a payment made from another country than the card and billing ones is noted but accepted',
    body: base({}),
    payments: [payment('k1', { ip_address: '81.2.69.142' })],
    expect: { status: 'verified', color: 'yellow', risk: /Payment made from 81\.2\.69\.142 in GB; card issued in PT, billing country PT/, details: { payment_verification: 'REVIEW' } },
  },
  {
    title: 'a guest with a throwaway e-mail who has not completed the portal stays pending, with the concern already shown',
    body: base({ email: 'later@mailinator.com' }),
    query: '',
    expect: { status: 'pending', color: 'orange', risk: /throwaway address/, details: { general_risk: 'INCOMPLETE', fraud_detection: 'REVIEW' } },
  },
  {
    title: 'a last-minute booking with an internet phone line, two weak signals of one check, is noted but accepted',
    body: base({ phone: '+31 85 123 4567' }, { check_in_date: day(0), check_out_date: day(2) }),
    expect: { status: 'verified', color: 'yellow', details: { fraud_detection: 'REVIEW' } },
  },
];

describe(`golden set: verdicts a host would agree with (${dbKind})`, () => {
  let t: TestApp;
  let me: Tenant;
  const said: string[] = [];
  before(async () => {
    t = await createTestAppWithWorker();
    me = await tenant(t);
    await importSanctions(t.deps, { primary: packageFile('lists/ofac/ofac_sdn_2024-05-03.csv') });
    const news = path.join(t.deps.config.dataDir, 'news.jsonl');
    const articles = [
      { url: 'https://news.example/treasury-brandt', title: 'Treasury sanctions shipping magnate Viktor Brandt over oil sales', published_at: '2026-10-02' },
      { url: 'https://news.example/mayor-bribes', title: 'Former mayor Tomasz Lewandowski accused of taking bribes from developers', published_at: '2026-09-14' },
      { url: 'https://news.example/dahlgren-trial', title: 'Henrik Dahlgren goes on trial for laundering money through car dealerships', published_at: '2026-08-01' },
      { url: 'https://news.example/ferraro-bakery', title: 'Lucia Ferraro opens a bakery in Porto', published_at: '2026-07-20' },
    ];
    writeFileSync(news, articles.map((a) => JSON.stringify(a)).join('\n'));
    await importNews(t.deps, news, { source: 'golden' });
    for (const entry of [
      { email: 'blocked.guest@example.com', reason: 'damaged the flat' },
      { document_number: 'BLK998877', reason: 'party in breach of house rules' },
      { phone: '+351912000999', reason: 'no-show twice' },
      { name: 'Kowalczyk, Zbigniew', reason: 'unpaid damage' },
    ]) {
      const r = await call(t, 'POST', '/v1/blocklist', { key: me.key, body: entry });
      assert.equal(r.status, 200, r.body);
    }
  });
  after(() => t.close());

  it(`holds at least 40 described guests (${GOLDEN.length})`, () => assert.ok(GOLDEN.length >= 40));

  for (const g of GOLDEN) {
    it(g.title, async () => {
      const query = g.query ?? 'skip_gp=1';
      let r = await call(t, 'POST', `/v1/reservations?sync=1&${query}`, { key: me.key, body: g.body });
      assert.equal(r.status, 200, r.body);
      const id = r.json.id as string;
      for (const p of g.payments ?? []) {
        const e = await call(t, 'POST', `/v1/reservations/${id}/payment-event`, { key: me.key, body: p });
        assert.equal(e.status, 200, e.body);
      }
      if (g.payments) {
        r = await call(t, 'POST', `/v1/reservations/${id}/screen?sync=1`, { key: me.key });
        assert.equal(r.status, 200);
      }
      const summary = (await call(t, 'GET', `/v1/reservations/${id}/summary`, { key: me.key })).json;
      const status = (await call(t, 'GET', `/v1/reservations/${id}/status`, { key: me.key })).json;
      const context = JSON.stringify({ summary, status }, null, 1);
      assert.equal(summary.verification_status, g.expect.status, context);
      assert.equal(status.status, g.expect.status);
      assert.equal(summary.risk_color, g.expect.color, context);
      if (g.expect.risk) assert.match(summary.top_risks.join(' | '), g.expect.risk, context);
      if (g.expect.recommendation) assert.match(summary.top_recommendations.join(' | '), g.expect.recommendation, context);
      for (const [check, expected] of Object.entries(g.expect.details ?? {})) assert.equal(summary.details[check].status, expected, `${check}: ${context}`);
      for (const [check, expected] of Object.entries(g.expect.values ?? {})) assert.match(summary.details[check].value, expected, `${check}: ${context}`);
      said.push(summary.verification_status_reason, ...summary.top_risks, ...summary.top_recommendations);
      for (const d of Object.values<{ value?: string; help?: string; findings?: string[] }>(summary.details)) said.push(d.value ?? '', d.help ?? '', ...(d.findings ?? []));
      if (g.expect.status !== 'verified' && g.expect.status !== 'pending') assert.ok(summary.top_risks.length > 0, 'a held booking says why');
      assert.ok(!summary.top_risks.some((x: string) => /webmail/.test(x)), 'free webmail is never a risk');

      // Every top risk traces to a check finding in the decision record.
      const decisions = (await call(t, 'GET', `/v1/reservations/${id}/decisions`, { key: me.key })).json;
      const latest = decisions[0];
      assert.equal(latest.verdict.status, g.expect.status);
      for (const risk of summary.top_risks) {
        const trace = latest.verdict.trace.find((x: { risk: string }) => x.risk === risk);
        assert.ok(trace, `${risk} is traced`);
        assert.ok(latest.checks[trace.check].findings.some((f: { code: string }) => f.code === trace.code));
      }
    });
  }

  it('speaks to the host: no summary names a command, a setting, a library or an algorithm', () => {
    assert.ok(said.length > 500, `${said.length} strings`);
    const slips = said.filter((x) => operatorWords.test(x));
    assert.deepEqual([...new Set(slips)], []);
  });

  it('is deterministic: the same inputs give the same digest and verdict', async () => {
    const { id } = (await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: me.key, body: base({ email: 'det@mailinator.com' }) })).json;
    await call(t, 'POST', `/v1/reservations/${id}/screen?sync=1`, { key: me.key });
    const [second, first] = (await call(t, 'GET', `/v1/reservations/${id}/decisions`, { key: me.key })).json;
    assert.equal(first.trigger, 'created');
    assert.equal(second.trigger, 'manual');
    assert.deepEqual(second.verdict, first.verdict);
    assert.deepEqual(second.checks, first.checks);
  });

  it('moves thresholds with the risk tolerance', async () => {
    const strict = await tenant(t);
    const put = await call(t, 'PUT', '/v1/accounts/screening-settings', { key: strict.key, body: { risk_tolerance: 'low' } });
    assert.deepEqual(put.json, { risk_tolerance: 'low', minimum_age: 18, disabled_checks: [], name_match_threshold: 0.9, accepted_documents: ['passport', 'id_card'], document_photo_days: 30 });
    const body = base({ phone: '+1 555 0123' });
    const lenient = await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: me.key, body });
    const tight = await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: strict.key, body });
    assert.equal((await call(t, 'GET', `/v1/reservations/${lenient.json.id}/status`, { key: me.key })).json.status, 'verified');
    assert.equal((await call(t, 'GET', `/v1/reservations/${tight.json.id}/status`, { key: strict.key })).json.status, 'review');
  });

  it('uses the account minimum age and shows disabled checks as DISABLED', async () => {
    const bar = await tenant(t);
    await call(t, 'PUT', '/v1/accounts/screening-settings', { key: bar.key, body: { minimum_age: 25, disabled_checks: ['payment_verification'] } });
    const body = base({}, { identification: { first_name: 'Maria', last_name: 'Santos', birth_date: day(-22 * 365), expiry_date: '2031-01-01', document_number: 'X9' } });
    const { id } = (await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: bar.key, body })).json;
    const summary = (await call(t, 'GET', `/v1/reservations/${id}/summary`, { key: bar.key })).json;
    assert.match(summary.top_risks[0], /under your minimum age of 25/);
    assert.equal(summary.details.payment_verification.status, 'DISABLED');
    const bad = await call(t, 'PUT', '/v1/accounts/screening-settings', { key: bar.key, body: { risk_tolerance: 'reckless' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error, 'body.risk_tolerance: must be one of low, balanced, high');
    const bad2 = await call(t, 'PUT', '/v1/accounts/screening-settings', { key: bar.key, body: { disabled_checks: ['general_risk'] } });
    assert.equal(bad2.status, 400);
  });

  it('flags the same e-mail booking again and again within a day', async () => {
    const acct = await tenant(t);
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 4; i++) last = await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: acct.key, body: base({ email: 'busy.guest@gmail.com' }) });
    const summary = (await call(t, 'GET', `/v1/reservations/${last!.json.id}/summary`, { key: acct.key })).json;
    assert.match(summary.top_risks.join(' | '), /made 3 other reservations in the last 24 hours/);
    assert.equal(summary.verification_status, 'review');
  });

  it("compares the price with the account's recent bookings, the newest and the repriced included", async () => {
    const acct = await tenant(t);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: acct.key, body: base({}, { total_price: 400 }) })).json.id);
    const pricey = (await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: acct.key, body: base({}, { total_price: 2000 }) })).json.id;
    let summary = (await call(t, 'GET', `/v1/reservations/${pricey}/summary`, { key: acct.key })).json;
    assert.match(summary.top_risks.join(' | '), /Total price 2000 is over four times your usual booking \(400\)/);
    // The earlier bookings are repriced: the same booking, screened again, is no longer unusual.
    for (const id of ids) assert.equal((await call(t, 'PUT', `/v1/reservations/${id}?skip_gp=1`, { key: acct.key, body: { total_price: 1000 } })).status, 200);
    await call(t, 'POST', `/v1/reservations/${pricey}/screen?sync=1`, { key: acct.key });
    summary = (await call(t, 'GET', `/v1/reservations/${pricey}/summary`, { key: acct.key })).json;
    assert.ok(!summary.top_risks.some((x: string) => /usual booking/.test(x)), summary.top_risks.join(' | '));
    const [latest] = (await call(t, 'GET', `/v1/reservations/${pricey}/decisions`, { key: acct.key })).json;
    assert.equal(latest.trigger, 'manual');
  });
});
