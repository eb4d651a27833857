import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type Tenant, type TestApp } from '../../../test/harness.js';

const FIRST = ['Maria', 'João', 'Aisha', 'Chen', 'Oliver', 'Sofía', 'Liam', 'Yuki', 'Ingrid', 'Mateus', 'Fatima', 'Noah'];
const LAST = ['Santos', 'Okafor', 'Müller', 'Nakamura', 'García', 'Johansson', "O'Brien", 'Kowalski', 'Haddad', 'Smith'];
const SOURCES = ['Airbnb', 'Booking.com', 'Vrbo', 'Direct'];
const STATUSES = ['CONFIRMED', 'CANCELED', 'INQUIRY'];
const N = 2000;

interface Made {
  id: string;
  full: string;
  email: string;
  phone: string;
  code: string;
  nick: string;
  source: string;
  status: string;
  listing: string;
  checkIn: string;
  checkOut: string;
}

const day = (offset: number) => new Date(Date.UTC(2026, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);

describe(`reservation search over ${N} reservations (${dbKind})`, () => {
  let t: TestApp;
  let me: Tenant;
  const made: Made[] = [];

  before(async () => {
    t = await createTestApp();
    t.deps.clock = () => new Date('2026-06-01T12:00:00.000Z');
    me = await tenant(t);
    for (let i = 0; i < N; i++) {
      const first = FIRST[i % FIRST.length]!;
      const last = LAST[(i * 7) % LAST.length]!;
      const m: Made = {
        id: '',
        full: `${first} ${last}`,
        email: `${first}.${last}.${i}@mail${i % 5}.example`.toLowerCase().replace(/[^a-z0-9.@]/g, ''),
        phone: `+1 555 ${String(1000 + i).padStart(4, '0')}`,
        code: `CODE-${String(i).padStart(5, '0')}`,
        nick: `Villa ${['Azul', 'Verde', 'Rosa', 'Sol'][i % 4]} ${i % 50}`,
        source: SOURCES[i % SOURCES.length]!,
        status: STATUSES[i % 7 === 0 ? 1 : i % 11 === 0 ? 2 : 0]!,
        listing: `L${i % 30}`,
        checkIn: day(i % 300),
        checkOut: day((i % 300) + 1 + (i % 6)),
      };
      const r = await call(t, 'POST', '/v1/reservations', {
        key: me.key,
        body: {
          confirmation_code: m.code,
          source: m.source,
          status: m.status,
          listing_id: m.listing,
          listing_nickname: m.nick,
          check_in_date: m.checkIn,
          check_out_date: m.checkOut,
          guest: { first_name: first, last_name: last, email: m.email, phone: m.phone },
        },
      });
      assert.equal(r.status, 200, r.body);
      m.id = r.json.id;
      made.push(m);
    }
    // A stranger's reservations must never show up.
    const other = await tenant(t);
    await call(t, 'POST', '/v1/reservations', { key: other.key, body: { guest: { first_name: 'Maria', last_name: 'Santos' } } });
  });
  after(() => t.close());

  async function all(query: string): Promise<string[]> {
    const ids: string[] = [];
    for (let from = 0; ; from += 100) {
      const r = await call(t, 'GET', `/v1/reservations?${query}&from=${from}&size=100`, { key: me.key });
      assert.equal(r.status, 200, r.body);
      ids.push(...r.json.items.map((x: { id: string }) => x.id));
      if (from + 100 >= r.json.total) {
        assert.equal(ids.length, r.json.total);
        return ids;
      }
    }
  }

  const expectIds = (pred: (m: Made) => boolean) =>
    made
      .filter(pred)
      .map((m) => m.id)
      .sort();

  it('pages with the envelope, defaults and newest check-in first', async () => {
    const r = await call(t, 'GET', '/v1/reservations', { key: me.key });
    assert.equal(r.json.from, 0);
    assert.equal(r.json.size, 20);
    assert.equal(r.json.total, N);
    assert.equal(r.json.items.length, 20);
    const dates = r.json.items.map((x: { check_in_date: string }) => x.check_in_date);
    assert.deepEqual(dates, [...dates].sort().reverse());
  });

  for (const [label, term, pred] of [
    ['a name substring, any case', 'NTOS', (m: Made) => m.full.toLowerCase().includes('ntos')],
    ['a name with an accent', 'müll', (m: Made) => m.full.toLowerCase().includes('müll')],
    ['a name with an apostrophe', "o'bri", (m: Made) => m.full.toLowerCase().includes("o'bri")],
    ['an e-mail domain', 'mail3.example', (m: Made) => m.email.includes('mail3.example')],
    ['a phone fragment', '555 1234', (m: Made) => m.phone.includes('555 1234')],
    ['a confirmation code', 'code-0012', (m: Made) => m.code.toLowerCase().includes('code-0012')],
    ['a listing nickname', 'villa rosa 1', (m: Made) => m.nick.toLowerCase().includes('villa rosa 1')],
    ['a two-letter term', 'yu', (m: Made) => [m.full, m.email, m.phone, m.code, m.nick].join(' ').toLowerCase().includes('yu')],
    ['a term with LIKE wildcards', '%_', () => false],
  ] as const) {
    it(`finds exactly the matches for ${label}`, async () => {
      const got = (await all(`search=${encodeURIComponent(term)}`)).sort();
      assert.deepEqual(got, expectIds(pred));
    });
  }

  it('answers a text search newest check-in first, then by id, across pages that split a day', async () => {
    // 200 matches over 300 check-in days, several a day: pages of 7 end inside a day.
    const pages = async (query: string) => {
      const ids: string[] = [];
      for (let from = 0; from < 250; from += 7) {
        const r = await call(t, 'GET', `/v1/reservations?${query}&from=${from}&size=7`, { key: me.key });
        assert.equal(r.status, 200, r.body);
        assert.equal(r.json.total, 200);
        ids.push(...r.json.items.map((x: { id: string }) => x.id));
      }
      return ids;
    };
    const expected = made
      .filter((m) => m.full.toLowerCase().includes('santos'))
      .sort((a, b) => (a.checkIn === b.checkIn ? (a.id < b.id ? 1 : -1) : a.checkIn < b.checkIn ? 1 : -1))
      .map((m) => m.id);
    assert.deepEqual(await pages('search=santos'), expected);
    // The same search with a date filter that leaves nothing out goes the general way, and agrees.
    assert.deepEqual(await pages('search=santos&startDate=2000-01-01'), expected);
  });

  it('counts the matches of a text search on a page past the last one', async () => {
    const r = await call(t, 'GET', '/v1/reservations?search=maria&from=10000&size=20', { key: me.key });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json.items, []);
    assert.equal(r.json.total, expectIds((m) => [m.full, m.email].join(' ').toLowerCase().includes('maria')).length);
    assert.ok(r.json.total > 0);
  });

  it('filters by status, source, listings and e-mails', async () => {
    assert.deepEqual(
      (await all('status=CANCELED')).sort(),
      expectIds((m) => m.status === 'CANCELED'),
    );
    assert.deepEqual((await all('status=any')).length, N);
    assert.deepEqual(
      (await all('source=Vrbo')).sort(),
      expectIds((m) => m.source === 'Vrbo'),
    );
    assert.deepEqual(
      (await all('listings=L3,L4')).sort(),
      expectIds((m) => m.listing === 'L3' || m.listing === 'L4'),
    );
    const emails = [made[5]!.email.toUpperCase(), made[9]!.email];
    assert.deepEqual((await all(`emails=${encodeURIComponent(emails.join(','))}`)).sort(), [made[5]!.id, made[9]!.id].sort());
  });

  it('filters by a date field with inclusive bounds', async () => {
    assert.deepEqual(
      (await all('startDate=2026-02-01&endDate=2026-02-10')).sort(),
      expectIds((m) => m.checkIn >= '2026-02-01' && m.checkIn <= '2026-02-10'),
    );
    assert.deepEqual(
      (await all('dateField=check_out_date&startDate=2026-03-01&endDate=2026-03-01')).sort(),
      expectIds((m) => m.checkOut === '2026-03-01'),
    );
    assert.equal((await all('dateField=created_at&startDate=2026-06-01&endDate=2026-06-01')).length, N);
    assert.equal((await all('dateField=created_at&startDate=2026-06-02')).length, 0);
  });

  it('filters active stays (check-out today or later) and combines filters', async () => {
    assert.deepEqual(
      (await all('active=1')).sort(),
      expectIds((m) => m.checkOut >= '2026-06-01'),
    );
    assert.deepEqual(
      (await all('active=0')).sort(),
      expectIds((m) => m.checkOut < '2026-06-01'),
    );
    assert.deepEqual(
      (await all('active=1&source=Airbnb&status=CONFIRMED&search=maria')).sort(),
      expectIds((m) => m.checkOut >= '2026-06-01' && m.source === 'Airbnb' && m.status === 'CONFIRMED' && m.full.toLowerCase().includes('maria')),
    );
  });

  it('filters pending review (review without a manual decision) and guest-portal completion', async () => {
    const review = made.slice(0, 3).map((m) => m.id);
    await t.deps.db.updateTable('reservations').set({ verification_status: 'review' }).where('id', 'in', review).execute();
    await call(t, 'POST', `/v1/reservations/${review[0]}/status`, { key: me.key, body: { supervised: 'approve' } });
    assert.deepEqual((await all('pending_review=true')).sort(), review.slice(1).sort());
    assert.equal((await all('guestportal_completed=true')).length, 0);
    assert.equal((await all('guestportal_completed=false')).length, N);
  });

  it('answers reservations with no date after the dated ones, on every path of the search', async () => {
    const other = await tenant(t);
    const make = async (code: string, dates: { check_in_date?: string; check_out_date?: string }) => {
      const r = await call(t, 'POST', '/v1/reservations', {
        key: other.key,
        body: { confirmation_code: code, status: 'CONFIRMED', guest: { first_name: 'Odile', last_name: 'Undatedson' }, ...dates },
      });
      assert.equal(r.status, 200, r.body);
      return r.json.id as string;
    };
    const undatedA = await make('U-1', {});
    const dated = [await make('U-2', { check_in_date: '2026-03-01', check_out_date: '2026-03-04' }), await make('U-3', { check_in_date: '2026-05-01', check_out_date: '2026-05-02' })];
    const undatedB = await make('U-4', {});
    // Newest date first, then the undated ones by id, newest first.
    const expected = [dated[1], dated[0], ...[undatedA, undatedB].sort().reverse()];
    const ids = async (query: string) => {
      const r = await call(t, 'GET', `/v1/reservations?${query}`, { key: other.key });
      assert.equal(r.status, 200, r.body);
      return r.json.items.map((x: { id: string }) => x.id);
    };
    assert.deepEqual(await ids('size=10'), expected);
    assert.deepEqual(await ids('search=undatedson'), expected);
    // A filter sends a text search the general way (on SQLite; PostgreSQL has one way).
    assert.deepEqual(await ids('search=undatedson&status=CONFIRMED'), expected);
    assert.deepEqual(await ids('dateField=check_out_date'), expected);
    // Paged: the undated ones start the second page.
    assert.deepEqual([...(await ids('from=0&size=2')), ...(await ids('from=2&size=2'))], expected);
  });

  it('orders by the chosen date field, newest first, then id', async () => {
    const ids = await all('dateField=check_out_date');
    const byId = new Map(made.map((m) => [m.id, m]));
    const expected = [...made].sort((a, b) => (a.checkOut === b.checkOut ? (a.id < b.id ? 1 : -1) : a.checkOut < b.checkOut ? 1 : -1));
    assert.deepEqual(
      ids,
      expected.map((m) => m.id),
    );
    assert.ok(byId.size === N);
  });
});
