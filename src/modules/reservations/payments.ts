import { Type, type Static } from '@sinclair/typebox';
import countries from 'i18n-iso-countries';
import { isIP } from 'node:net';
import type { Deps } from '../../deps.js';
import { badRequest } from '../../http/errors.js';
import { Money as MoneyAmount } from '../../http/schemas.js';
import { StringEnum } from '../../http/validation.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import { withTx } from '../../db/connection.js';
import { requestScreening } from '../screening/run.js';
import * as repo from './repo.js';
import type { PaymentEventRow, ReservationRow } from './repo.js';

export const EVENT_TYPES = ['authorization', 'capture', 'refund', 'charge', 'validation', 'void'] as const;
export const EVENT_STATUSES = ['succeeded', 'failed', 'pending'] as const;

const S = (max = 200) => Type.Optional(Type.String({ maxLength: max }));

export const PaymentEventBody = Type.Object(
  {
    event_source: Type.String({ minLength: 1, maxLength: 100, description: 'the payment system, e.g. stripe' }),
    event_id: Type.String({ minLength: 1, maxLength: 200, description: "the event's id in that system; repeats are ignored" }),
    event_type: StringEnum(EVENT_TYPES),
    event_status: StringEnum(EVENT_STATUSES),
    customer_id: S(),
    processor_status_code: S(100),
    processor_message: S(1000),
    network_status_code: S(100),
    three_d_secure: Type.Optional(StringEnum(['authenticated', 'attempted', 'failed', 'not_supported', 'not_attempted'] as const)),
    amount: Type.Optional(MoneyAmount()),
    currency: S(3),
    charge_descriptor: S(),
    name_on_card: S(),
    payment_method: S(50),
    card_type: S(50),
    card_provider: S(50),
    card_iin: Type.Optional(Type.String({ pattern: '^[0-9]{6,8}$' })),
    card_last4: Type.Optional(Type.String({ pattern: '^[0-9]{4}$' })),
    card_country: S(2),
    card_expiry_month: Type.Optional(Type.String({ pattern: '^(0?[1-9]|1[0-2])$' })),
    card_expiry_year: Type.Optional(Type.String({ pattern: '^([0-9]{2}|[0-9]{4})$' })),
    billing_country_code: S(2),
    billing_address: S(500),
    billing_city: S(),
    billing_state_code: S(10),
    billing_postal_code: S(20),
    billing_phone: S(40),
    billing_email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    billing_name: S(),
    ip_address: S(45),
    user_agent: S(1000),
    receipt_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: 'beyond the spec: shown in /payments' })),
    timestamp: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false, title: 'PaymentEventRequest' },
);

export type PaymentEvent = Static<typeof PaymentEventBody>;

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
    if (added) await requestScreening(tx, deps, r.id, 'payment_event');
    return added;
  });
  return { message: inserted ? 'payment event recorded' : 'payment event already recorded' };
}

const eventOf = (row: PaymentEventRow) => JSON.parse(row.data) as PaymentEvent;

/** The spec's ReservationPaymentsResponse, derived from the recorded events (vocabulary in docs/decisions.md). */
export async function paymentsView(deps: Deps, r: ReservationRow) {
  const rows = await repo.listPaymentEvents(deps.db, r.id);
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
      charge_failures: rows
        .filter((row) => row.event_status === 'failed')
        .map((row) => ({ message: eventOf(row).processor_message ?? `${row.event_type} failed`, timestamp: row.occurred_at })),
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
      errors:
        v && v.event_status === 'failed'
          ? [{ title: v.processor_status_code ?? 'validation failed', description: v.processor_message ?? '' }]
          : [],
    },
    damage_waiver: waiver ? { ...money(waiver) } : { amount: 0, currency: '', timestamp: '', receipt_url: '' },
    extra_services: {
      amount: Math.round(extras.reduce((sum, row) => sum + (eventOf(row).amount ?? 0), 0) * 100) / 100,
      receipt_url: extras.length ? (eventOf(extras.at(-1)!).receipt_url ?? '') : '',
      products: extras.map((row) => ({ name: eventOf(row).charge_descriptor ?? 'charge', price: eventOf(row).amount ?? 0 })),
    },
  };
}

const Money = { currency: Type.String(), amount: Type.Number(), receipt_url: Type.String(), timestamp: Type.String() };

export const PaymentsResponse = Type.Object({
  security_deposit: Type.Object({
    successful_authorizations: Type.Array(Type.Object({ ...Money, card_brand: Type.String() })),
    charge_failures: Type.Array(Type.Object({ message: Type.String(), timestamp: Type.String() })),
    refunds: Type.Array(Type.Object(Money)),
    deposit_captures: Type.Array(Type.Object({ ...Money, card_brand: Type.String() })),
  }),
  payment_validation: Type.Object({
    receipt_url: Type.String(),
    name_on_card: Type.String(),
    funding_type: Type.String(),
    card_brand: Type.String(),
    card_country: Type.String(),
    status: Type.String(),
    errors: Type.Array(Type.Object({ title: Type.String(), description: Type.String() })),
  }),
  damage_waiver: Type.Object(Money),
  extra_services: Type.Object({
    amount: Type.Number(),
    receipt_url: Type.String(),
    products: Type.Array(Type.Object({ name: Type.String(), price: Type.Number() })),
  }),
});
