import countries from 'i18n-iso-countries';
import { isIP } from 'node:net';
import type { Deps } from '../../deps.js';
import { badRequest } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import { withTx } from '../../db/connection.js';
import { recordEvent } from '../../jobs/repo.js';
import { listPaymentEvents } from '../screening/index.js';
import * as repo from '../bookings/index.js';
import type { PaymentEventRow, ReservationRow } from '../bookings/index.js';
import type { PaymentEvent } from './schemas.js';

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
const COUNTRIES = new Set(Object.keys(countries.getAlpha2Codes()));

/** Checks what a JSON schema cannot say: real ISO codes and a real IP address. */
function assertCodes(e: PaymentEvent): void {
  if (e.currency !== undefined && !CURRENCIES.has(e.currency.toUpperCase())) {
    throw badRequest(`body.currency: '${e.currency}' is not an ISO 4217 currency code`);
  }
  for (const field of ['card_country', 'billing_country_code'] as const) {
    const v = e[field];
    if (v !== undefined && !COUNTRIES.has(v.toUpperCase())) throw badRequest(`body.${field}: '${v}' is not an ISO 3166 alpha-2 country code`);
  }
  if (e.ip_address !== undefined && isIP(e.ip_address) === 0) throw badRequest(`body.ip_address: '${e.ip_address}' is not an IP address`);
}

export async function recordPaymentEvent(deps: Deps, r: ReservationRow, e: PaymentEvent): Promise<{ message: string }> {
  assertCodes(e);
  const now = iso(deps.clock());
  const normalised: PaymentEvent = {
    ...e,
    ...(e.currency ? { currency: e.currency.toUpperCase() } : {}),
    ...(e.card_country ? { card_country: e.card_country.toUpperCase() } : {}),
    ...(e.billing_country_code ? { billing_country_code: e.billing_country_code.toUpperCase() } : {}),
  };
  const inserted = await withTx(deps.db, async (tx) => {
    const added = await repo.insertPaymentEvent(tx, {
      id: newId('pay'),
      reservation_id: r.id,
      event_source: e.event_source,
      event_id: e.event_id,
      event_type: e.event_type,
      event_status: e.event_status,
      occurred_at: e.timestamp ? new Date(e.timestamp).toISOString() : now,
      data: JSON.stringify(normalised),
      created_at: now,
    });
    // A new payment fact can change the verdict.
    if (added) await recordEvent(tx, deps, 'payment.recorded', { account_id: r.account_id, reservation_id: r.id });
    return added;
  });
  return { message: inserted ? 'payment event recorded' : 'payment event already recorded' };
}

const eventOf = (row: PaymentEventRow) => JSON.parse(row.data) as PaymentEvent;

/** The spec's ReservationPaymentsResponse (GET /v1/reservations/{id}/payments). */
export const paymentsView = async (deps: Deps, r: ReservationRow) => viewOf(await listPaymentEvents(deps.db, r.id));

/**
 * The console's payments panel from one read of the events: the spec's view, and the cards and
 * billing countries every event names (charges, holds and validations alike), each once: what
 * the payment check compares.
 */
export async function paymentsPanel(deps: Deps, r: ReservationRow) {
  const rows = await listPaymentEvents(deps.db, r.id);
  const events = rows.map(eventOf);
  const unique = (xs: (string | undefined)[]) => [...new Set(xs.filter((x): x is string => Boolean(x)))];
  return {
    payments: viewOf(rows),
    seen: {
      cards: unique(events.map((e) => (e.card_country || e.card_provider ? [e.card_provider, e.card_country && `from ${e.card_country}`].filter(Boolean).join(' ') : undefined))),
      billing: unique(events.map((e) => e.billing_country_code)),
    },
  };
}

/** The spec's ReservationPaymentsResponse, derived from the recorded events (vocabulary in docs/decisions/reservations.md). */
function viewOf(rows: PaymentEventRow[]) {
  const ok = (row: PaymentEventRow, type: string) => row.event_type === type && row.event_status === 'succeeded';
  const money = (row: PaymentEventRow) => {
    const e = eventOf(row);
    return { currency: e.currency ?? '', amount: e.amount ?? 0, receipt_url: e.receipt_url ?? '', timestamp: row.occurred_at };
  };
  const validation = rows.filter((row) => row.event_type === 'validation').at(-1);
  const v = validation ? eventOf(validation) : undefined;
  const charges = rows.filter((row) => ok(row, 'charge'));
  const waiver = charges.filter((row) => /damage[_ ]?waiver/i.test(eventOf(row).charge_descriptor ?? '')).at(-1);
  const extras = charges.filter((row) => row !== waiver && !/damage[_ ]?waiver/i.test(eventOf(row).charge_descriptor ?? ''));
  return {
    security_deposit: {
      successful_authorizations: rows.filter((row) => ok(row, 'authorization')).map((row) => ({ ...money(row), card_brand: eventOf(row).card_provider ?? '' })),
      charge_failures: rows.filter((row) => row.event_status === 'failed').map((row) => ({ message: eventOf(row).processor_message ?? `${row.event_type} failed`, timestamp: row.occurred_at })),
      refunds: rows.filter((row) => ok(row, 'refund')).map(money),
      deposit_captures: rows.filter((row) => ok(row, 'capture')).map((row) => ({ ...money(row), card_brand: eventOf(row).card_provider ?? '' })),
    },
    payment_validation: {
      receipt_url: v?.receipt_url ?? '',
      name_on_card: v?.name_on_card ?? '',
      funding_type: v?.card_type ?? '',
      card_brand: v?.card_provider ?? '',
      card_country: v?.card_country ?? '',
      status: v?.event_status ?? '',
      errors: v && v.event_status === 'failed' ? [{ title: v.processor_status_code ?? 'validation failed', description: v.processor_message ?? '' }] : [],
    },
    damage_waiver: waiver ? { ...money(waiver) } : { amount: 0, currency: '', timestamp: '', receipt_url: '' },
    extra_services: {
      amount: Math.round(extras.reduce((sum, row) => sum + (eventOf(row).amount ?? 0), 0) * 100) / 100,
      receipt_url: extras.length ? (eventOf(extras.at(-1)!).receipt_url ?? '') : '',
      products: extras.map((row) => ({ name: eventOf(row).charge_descriptor ?? 'charge', price: eventOf(row).amount ?? 0 })),
    },
  };
}
