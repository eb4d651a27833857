import { Type, type Static } from '@sinclair/typebox';
import { Money } from '../../http/schemas.js';
import { Nullable, StringEnum } from '../../http/validation.js';
import { ReadDocument, SelfieRecord } from '../identity/index.js';

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

/** A booking's screening runs, the decision records the API lists. */
export const DecisionList = Type.Array(
  Type.Object({
    id: Type.String(),
    trigger: Type.String({
      description:
        'created, updated, payment_event, manual, guest_portal, list_update (a sanctions import changed an entry the guest may be) or document_read (an identity document photo was read, or a selfie compared with it)',
    }),
    engine_version: Type.String(),
    inputs_digest: Type.String({ description: 'SHA-256 of everything the checks saw; equal digests give equal verdicts' }),
    verdict: Type.Object({
      status: Type.String(),
      score: Type.Number(),
      risk_color: Type.String(),
      reason: Type.String(),
      trace: Type.Array(
        Type.Object({
          risk: Type.String(),
          check: Type.String(),
          code: Type.String(),
          strength: Type.Optional(
            Type.String({ description: "the finding's strength (context, weak, moderate, strong, decisive), or rule for a business rule; records of engine version 1 have a weight instead" }),
          ),
          weight: Type.Optional(Type.Number()),
        }),
      ),
    }),
    checks: Type.Record(
      Type.String(),
      Type.Object({
        status: Type.String(),
        value: Type.String(),
        help: Type.String(),
        strength: Type.Optional(Type.String({ description: 'the strongest finding of the check (docs/verdicts.md)' })),
        findings: Type.Array(
          Type.Object({ code: Type.String(), text: Type.String(), strength: Type.Optional(Type.String()), weight: Type.Optional(Type.Number()), recommendation: Type.Optional(Type.String()) }),
        ),
      }),
    ),
    rules_fired: Type.Array(Type.String()),
    document: Type.Optional(
      Type.Object(
        {
          verification_id: Type.String({ description: 'the reading the run used (GET /v1/identity-verifications/{id})' }),
          read: Type.Union([ReadDocument, Type.Null()], { description: 'the fields read from the zone as the run saw them; null when the photo could not be read' }),
          problems: Type.Array(Type.String(), { description: "what kept the photo from being read whole (the reading's problem codes)" }),
          face: Type.Optional(Nullable(SelfieRecord)),
        },
        { description: 'what the run read of the identity document: kept with the decision, never the photo. Absent when no document had been read' },
      ),
    ),
    decided_by: Type.Optional(
      Type.Object(
        { type: Type.String({ description: 'user or api_key' }), id: Type.String(), name: Type.String() },
        { description: 'who decided, on a record of trigger manual: a person in the console, or an API key' },
      ),
    ),
    reason: Type.Optional(Nullable(Type.String({ description: 'the reason they gave, on a record of trigger manual' }))),
    created_at: Type.String(),
  }),
  {
    description:
      "The screening runs, newest first; a host's manual decision (approve or decline) stands among them where its time puts it, as a record of trigger manual with decided_by: the verdict it set, who decided and why, and the checks of the run it was made on",
  },
);
