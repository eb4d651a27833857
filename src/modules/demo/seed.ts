import { fakerDE, fakerEN_GB, fakerEN_US, fakerES, fakerFR, fakerIT, fakerJA, fakerNL, fakerPL, fakerPT_BR, type Faker } from '@faker-js/faker';
import type { Insertable } from 'kysely';
import { analyzeTables, withTx } from '../../db/connection.js';
import type { PaymentEventsTable } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import { findAccount, createAccount } from '../accounts/index.js';
import { insertPaymentEvents, insertReservations, type ReservationRow } from '../bookings/index.js';
import { buildReservation, creationNote, type CreateInput } from '../reservations/index.js';
import { EVENT_TYPES } from '../screening/index.js';
import { insertNotes } from '../notes/index.js';
import { enqueueAll } from '../../jobs/repo.js';
import { listedPeople } from '../../providers/sanctions/index.js';
import { buildEntry, insertEntries } from '../blocklist/index.js';

// Guests come from many countries; each faker locale gives names, cities and phone formats of its own.
const LOCALES: { faker: Faker; country: string; currency: string; tz: string }[] = [
  { faker: fakerEN_US, country: 'US', currency: 'USD', tz: 'America/New_York' },
  { faker: fakerEN_GB, country: 'GB', currency: 'GBP', tz: 'Europe/London' },
  { faker: fakerDE, country: 'DE', currency: 'EUR', tz: 'Europe/Berlin' },
  { faker: fakerFR, country: 'FR', currency: 'EUR', tz: 'Europe/Paris' },
  { faker: fakerES, country: 'ES', currency: 'EUR', tz: 'Europe/Madrid' },
  { faker: fakerIT, country: 'IT', currency: 'EUR', tz: 'Europe/Rome' },
  { faker: fakerPT_BR, country: 'BR', currency: 'BRL', tz: 'America/Sao_Paulo' },
  { faker: fakerNL, country: 'NL', currency: 'EUR', tz: 'Europe/Amsterdam' },
  { faker: fakerPL, country: 'PL', currency: 'PLN', tz: 'Europe/Warsaw' },
  { faker: fakerJA, country: 'JP', currency: 'JPY', tz: 'Asia/Tokyo' },
];
const SOURCES = ['Airbnb', 'Booking.com', 'Vrbo', 'Direct', 'Expedia', 'Google'];
const LISTING_WORDS = ['Loft', 'Villa', 'Cottage', 'Studio', 'Apartment', 'Cabin', 'House', 'Suite'];

export interface DemoOptions {
  accounts: number;
  /** Reservations of the first account. */
  reservations: number;
  /** Reservations of each other account. */
  perAccount: number;
  seed: number;
  /** The demo accounts' console password, hashed (hashPassword). */
  passwordHash?: string;
  /** Queue nothing for screening: a load test of the API alone, without a backlog of screenings beside it. */
  unscreened?: boolean;
}

export interface DemoResult {
  reseller: { id: string; email: string; api_key: string };
  accounts: { id: string; name: string; email: string; api_key: string; reservations: number }[];
  reservations: number;
  payment_events: number;
}

const BATCH = 200;

/**
 * Seeds a reseller with child accounts and realistic reservations (names, countries,
 * sources, dates, prices, payment events), written in batches so 100,000 take seconds.
 */
export async function seedDemo(deps: Deps, rootId: string, opts: DemoOptions): Promise<DemoResult> {
  const root = await findAccount(deps.db, rootId);
  if (!root) throw new Error('root account missing; run migrate first');
  for (const l of LOCALES) l.faker.seed(opts.seed);
  const pick = <T>(xs: readonly T[]) => xs[fakerEN_US.number.int({ max: xs.length - 1 })]!;
  fakerEN_US.seed(opts.seed);

  const reseller = await createAccount(deps, deps.db, { parent: root, name: 'Demo Reseller', email: 'demo-reseller@example.com', isReseller: true, passwordHash: opts.passwordHash }, null);
  const result: DemoResult = { reseller: { id: reseller.account.id, email: reseller.account.email, api_key: reseller.apiKey }, accounts: [], reservations: 0, payment_events: 0 };
  const today = deps.clock();
  // Some guests of the first account are people on the installed sanctions lists, and its first
  // guests are on its blocklist, so the demo shows every verdict, not only green ones.
  const listed = (await listedPeople(deps, 40)).map(({ name, birthDate }) => {
    const [family = '', given = ''] = name.split(', ');
    const title = (w: string) => w.toLowerCase().replace(/(^|[\s-])\p{L}/gu, (c) => c.toUpperCase());
    return { first: title(given.split(' ')[0] ?? ''), last: title(family), birthDate };
  });
  const BLOCKLISTED = ['chargeback after the stay', 'party against the house rules, neighbours complained', 'damage not paid'];

  for (let a = 0; a < opts.accounts; a++) {
    const company = `${fakerEN_US.location.city()} ${pick(['Stays', 'Rentals', 'Holiday Homes', 'Hosts'])}`;
    const { account, apiKey } = await createAccount(
      deps,
      deps.db,
      { parent: reseller.account, name: company, email: `ops${a + 1}@${company.toLowerCase().replace(/[^a-z]+/g, '')}.example`, company: { name: company }, passwordHash: opts.passwordHash },
      null,
    );
    const count = a === 0 ? opts.reservations : opts.perAccount;
    const listings = Array.from({ length: Math.max(3, Math.ceil(count / 40)) }, (_, i) => ({
      id: `L${1000 + i}`,
      nickname: `${fakerEN_US.location.street()} ${pick(LISTING_WORDS)}`,
    }));
    let made = 0;
    while (made < count) {
      const batch = Math.min(BATCH, count - made);
      const rows: ReservationRow[] = [];
      const events: Insertable<PaymentEventsTable>[] = [];
      for (let i = 0; i < batch; i++) {
        const n = made + i;
        const loc = pick(LOCALES);
        const f = loc.faker;
        const person = a === 0 && listed.length && n % 25 === 7 ? listed[((n / 25) % listed.length) | 0] : undefined;
        const first = person?.first ?? f.person.firstName();
        const last = person?.last ?? f.person.lastName();
        const listing = pick(listings);
        const start = new Date(today.getTime() + fakerEN_US.number.int({ min: -400, max: 300 }) * 86_400_000);
        const nights = fakerEN_US.number.int({ min: 1, max: 14 });
        const end = new Date(start.getTime() + nights * 86_400_000);
        const rate = fakerEN_US.number.int({ min: 60, max: 450 });
        const input: CreateInput = {
          confirmation_code: `${pick(['HM', 'BK', 'VR', 'DR'])}${String(n).padStart(7, '0')}${a}`,
          status: pick(['CONFIRMED', 'CONFIRMED', 'CONFIRMED', 'CONFIRMED', 'CANCELED', 'INQUIRY'] as const),
          source: pick(SOURCES),
          listing_id: listing.id,
          listing_nickname: listing.nickname,
          listing_timezone_name: 'Europe/Lisbon',
          number_of_guests: fakerEN_US.number.int({ min: 1, max: 6 }),
          total_price: rate * nights,
          check_in_date: iso(start).slice(0, 10),
          check_out_date: iso(end).slice(0, 10),
          guest: {
            first_name: first,
            last_name: last,
            email: f.internet.email({ firstName: first, lastName: last, provider: pick(['gmail.com', 'outlook.com', 'yahoo.com', 'proton.me', 'mail.example']) }).toLowerCase(),
            phone: f.phone.number({ style: 'international' }),
            location: `${f.location.city()}, ${loc.country}`,
          },
          identification: {
            nationality: loc.country,
            document_type: 'passport',
            document_number: f.string.alphanumeric({ length: 9, casing: 'upper' }),
            first_name: first,
            last_name: last,
            // Half the listed guests show the list's own date of birth (a confirmed match, declined);
            // the others only share the name (review).
            birth_date: person?.birthDate && n % 50 === 7 ? person.birthDate : person ? undefined : iso(fakerEN_US.date.birthdate({ min: 19, max: 80, mode: 'age', refDate: today })).slice(0, 10),
            expiry_date: iso(new Date(end.getTime() + fakerEN_US.number.int({ min: 30, max: 3000 }) * 86_400_000)).slice(0, 10),
          },
        };
        const r = buildReservation(deps, account, input);
        // Most guests have completed the guest portal, so the demo shows final verdicts; the
        // rest are pending, as real bookings are until the guest has.
        r.guestportal_completed = fakerEN_US.number.int({ max: 9 }) < 8;
        // Booked some days before arrival, never in the future.
        const booked = Math.min(today.getTime(), start.getTime() - fakerEN_US.number.int({ min: 1, max: 120 }) * 86_400_000);
        r.created_at = r.updated_at = iso(new Date(booked - fakerEN_US.number.int({ max: 86_399_999 })));
        rows.push(r);
        if (fakerEN_US.number.int({ max: 9 }) < 3) {
          for (let e = 0; e < fakerEN_US.number.int({ min: 1, max: 3 }); e++) {
            const type = pick(EVENT_TYPES);
            const status = pick(['succeeded', 'succeeded', 'succeeded', 'failed', 'pending'] as const);
            const data = {
              event_source: 'stripe',
              event_id: `evt_${r.id.slice(4)}_${e}`,
              event_type: type,
              event_status: status,
              amount: type === 'authorization' || type === 'capture' ? 300 : rate,
              currency: loc.currency,
              card_provider: pick(['visa', 'mastercard', 'amex']),
              card_type: pick(['credit', 'debit', 'prepaid']),
              card_country: pick([loc.country, loc.country, 'US', 'NG', 'GB']),
              billing_country_code: loc.country,
              name_on_card: `${first} ${last}`.toUpperCase(),
              ...(status === 'failed' ? { processor_message: pick(['card declined', 'insufficient funds', 'do not honor']) } : {}),
              ...(type === 'charge' ? { charge_descriptor: pick(['damage_waiver', 'Early check-in', 'Parking', 'Cleaning']) } : {}),
            };
            events.push({
              id: newId('pay'),
              reservation_id: r.id,
              event_source: 'stripe',
              event_id: data.event_id,
              event_type: type,
              event_status: status,
              occurred_at: r.created_at,
              data: JSON.stringify(data),
              created_at: r.created_at,
            });
          }
        }
      }
      const blocklist =
        a === 0 && made === 0
          ? rows.slice(0, BLOCKLISTED.length).flatMap((r, i) => {
              const built = buildEntry(account.id, { email: r.guest_email ?? undefined, reason: BLOCKLISTED[i] as string }, iso(today));
              return built.entry ? [built.entry] : [];
            })
          : [];
      await withTx(deps.db, async (tx) => {
        await insertEntries(tx, blocklist);
        await insertReservations(tx, rows);
        await insertNotes(tx, rows.map(creationNote));
        for (let i = 0; i < events.length; i += BATCH) await insertPaymentEvents(tx, events.slice(i, i + BATCH));
        // Screened like any reservation made through the API, by the worker of `guestscreen start`.
        if (!opts.unscreened)
          await enqueueAll(
            tx,
            deps,
            'screening.run',
            rows.map((r) => ({ payload: { reservation_id: r.id, trigger: 'created' as const }, uniqueKey: `screen:${r.id}` })),
          );
      });
      made += batch;
      result.payment_events += events.length;
    }
    result.reservations += count;
    result.accounts.push({ id: account.id, name: account.name, email: account.email, api_key: apiKey, reservations: count });
  }
  // PostgreSQL plans by its table statistics, and autovacuum refreshes them only a while after a
  // bulk load (or never, where it is off): right after seeding it misjudged an account's size and
  // chose slower search plans. Vacuum also marks the new pages all-visible, without which an
  // index-only scan visits the table for every entry. SQLite keeps no statistics
  // unless asked, and its search plans are fixed in the queries themselves (see reservations/repo.ts).
  // Only the tables seeded (the names resolve in this service's schema, not the whole database).
  await analyzeTables(deps.db, ['accounts', 'api_keys', 'reservations', 'reservation_notes', 'payment_events']);
  return result;
}
