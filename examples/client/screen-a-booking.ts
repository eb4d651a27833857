// A typed client of the guestscreen API: openapi-fetch over the types openapi-typescript
// generated from the service's own description (schema.d.ts; `npm run api:client` remakes it).
// Run it against a service: GUESTSCREEN_URL=http://localhost:8080 GUESTSCREEN_API_KEY=gsk_… \
//   node --import tsx examples/client/screen-a-booking.ts
import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const baseUrl = process.env.GUESTSCREEN_URL ?? 'http://localhost:8080';
const apiKey = process.env.GUESTSCREEN_API_KEY;
if (!apiKey) throw new Error('set GUESTSCREEN_API_KEY to an account key (gsk_…)');

const api = createClient<paths>({ baseUrl, headers: { 'x-api-key': apiKey } });

// A retry with the same Idempotency-Key is answered as the first attempt was, never applied twice.
const created = await api.POST('/v1/reservations', {
  params: { query: { sync: '1' }, header: { 'Idempotency-Key': randomUUID() } },
  body: {
    confirmation_code: `EXAMPLE-${Date.now()}`,
    check_in_date: '2027-06-01',
    check_out_date: '2027-06-05',
    guest: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
  },
});
if (created.error) throw new Error(`create failed: ${created.error.error}`);
const reservation = created.data;

const summary = await api.GET('/v1/reservations/{id}/summary', { params: { path: { id: reservation.id } } });
if (summary.error) throw new Error(`summary failed: ${summary.error.error}`);
console.log(`${reservation.id}: ${summary.data.verification_composite_status} (${summary.data.risk_color})`);
for (const risk of summary.data.top_risks ?? []) console.log(`  risk: ${risk}`);
