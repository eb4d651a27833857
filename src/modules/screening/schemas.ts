import { Type, type Static } from '@sinclair/typebox';
import { Money } from '../../http/schemas.js';
import { StringEnum } from '../../http/validation.js';

/** A payment event as a payment system reports it (POST /v1/reservations/{id}/payment-events). */
export const EVENT_TYPES = ['authorization', 'capture', 'refund', 'charge', 'validation', 'void'] as const;
export const EVENT_STATUSES = ['succeeded', 'failed', 'pending'] as const;

const Text = (max = 200) => Type.Optional(Type.String({ maxLength: max }));

export const PaymentEventBody = Type.Object(
  {
    event_source: Type.String({ minLength: 1, maxLength: 100, description: 'the payment system, e.g. stripe' }),
    event_id: Type.String({ minLength: 1, maxLength: 200, description: "the event's id in that system; repeats are ignored" }),
    event_type: StringEnum(EVENT_TYPES),
    event_status: StringEnum(EVENT_STATUSES),
    customer_id: Text(),
    processor_status_code: Text(100),
    processor_message: Text(1000),
    network_status_code: Text(100),
    three_d_secure: Type.Optional(StringEnum(['authenticated', 'attempted', 'failed', 'not_supported', 'not_attempted'] as const)),
    amount: Type.Optional(Money()),
    currency: Text(3),
    charge_descriptor: Text(),
    name_on_card: Text(),
    payment_method: Text(50),
    card_type: Text(50),
    card_provider: Text(50),
    card_iin: Type.Optional(Type.String({ pattern: '^[0-9]{6,8}$' })),
    card_last4: Type.Optional(Type.String({ pattern: '^[0-9]{4}$' })),
    card_country: Text(2),
    card_expiry_month: Type.Optional(Type.String({ pattern: '^(0?[1-9]|1[0-2])$' })),
    card_expiry_year: Type.Optional(Type.String({ pattern: '^([0-9]{2}|[0-9]{4})$' })),
    billing_country_code: Text(2),
    billing_address: Text(500),
    billing_city: Text(),
    billing_state_code: Text(10),
    billing_postal_code: Text(20),
    billing_phone: Text(40),
    billing_email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    billing_name: Text(),
    ip_address: Text(45),
    user_agent: Text(1000),
    receipt_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: 'beyond the spec: shown in /payments' })),
    timestamp: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false, title: 'PaymentEventRequest' },
);

export type PaymentEvent = Static<typeof PaymentEventBody>;
