import { Type, type Static } from '@sinclair/typebox';
import { Money, Pagination, QueryFlag } from '../../http/schemas.js';
import { Nullable, StringEnum } from '../../http/validation.js';
import { IDENTIFICATION_FIELDS, RISK_COLORS } from '../screening/index.js';

export const BOOKING_STATUSES = ['CONFIRMED', 'CANCELED', 'INQUIRY'] as const;

const Str = (max = 200) => Type.String({ maxLength: max });
const Day = Type.String({ format: 'date', description: 'YYYY-MM-DD' });

const guestFields = {
  first_name: Type.String({ minLength: 1, maxLength: 100 }),
  last_name: Type.String({ minLength: 1, maxLength: 100 }),
  full_name: Type.Optional(Str(200)),
  phone: Type.Optional(Str(40)),
  email: Type.Optional(Type.Union([Type.String({ format: 'email', maxLength: 254 }), Type.Literal('')])),
  location: Type.Optional(Str(200)),
  language: Type.Optional(
    Type.Union([Type.String({ pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$', maxLength: 35 }), Type.Literal('')], {
      description: "beyond the spec: the guest's language (BCP 47, such as es or pt-BR) for the guest portal and messages; else the browser's",
    }),
  ),
};

export { IDENTIFICATION_FIELDS } from '../screening/index.js';

const IDENTIFICATION_DATES = new Set(['birth_date', 'expiry_date', 'issue_date']);

const Identification = Type.Object(
  Object.fromEntries(
    IDENTIFICATION_FIELDS.map((f) => [
      f,
      Type.Optional(
        IDENTIFICATION_DATES.has(f)
          ? Type.Union([Day, Type.Literal('')])
          : f === 'mrz'
            ? Type.String({ maxLength: 200, description: "beyond the spec: the document's machine-readable zone, lines separated by newlines" })
            : Str(200),
      ),
    ]),
  ),
  { additionalProperties: false },
);

const writable = {
  confirmation_code: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  status: Type.Optional(StringEnum(BOOKING_STATUSES)),
  source: Type.Optional(Str(100)),
  listing_id: Type.Optional(Str(100)),
  listing_nickname: Type.Optional(Str(200)),
  listing_timezone_name: Type.Optional(Str(64)),
  number_of_guests: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
  nights: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000 })),
  total_price: Type.Optional(Money()),
  average_daily_rate: Type.Optional(Money()),
  check_in_date: Type.Optional(Day),
  check_out_date: Type.Optional(Day),
  identification: Type.Optional(Identification),
  pms: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: '`api` (default) or a configured PMS name' })),
  pms_reservation_id: Type.Optional(Str(100)),
};

export const CreateBody = Type.Object({ ...writable, guest: Type.Object(guestFields, { additionalProperties: false }) }, { additionalProperties: false, title: 'ReservationCreateRequest' });

export const UpdateBody = Type.Object(
  { ...writable, guest: Type.Optional(Type.Partial(Type.Object(guestFields, { additionalProperties: false }))) },
  { additionalProperties: false, title: 'ReservationUpdateRequest' },
);

export type CreateInput = Static<typeof CreateBody>;
export type UpdateInput = Static<typeof UpdateBody>;

/** Fields a client may see but not set; sending one is a 400 that says so. */
export const READ_ONLY_FIELDS = ['id', 'user_id', 'created_at', 'updated_at', 'guest_portal_url'] as const;

export const Reservation = Type.Object(
  {
    id: Type.String(),
    user_id: Type.String(),
    pms: Type.String(),
    pms_reservation_id: Nullable(Type.String()),
    confirmation_code: Nullable(Type.String()),
    status: Type.String(),
    source: Nullable(Type.String()),
    listing_id: Nullable(Type.String()),
    listing_nickname: Nullable(Type.String()),
    listing_timezone_name: Nullable(Type.String()),
    number_of_guests: Nullable(Type.Number()),
    nights: Nullable(Type.Number()),
    total_price: Nullable(Type.Number()),
    average_daily_rate: Nullable(Type.Number()),
    check_in_date: Nullable(Type.String()),
    check_out_date: Nullable(Type.String()),
    guest_portal_url: Type.String(),
    guest: Type.Object({
      first_name: Nullable(Type.String()),
      last_name: Nullable(Type.String()),
      full_name: Nullable(Type.String()),
      phone: Nullable(Type.String()),
      email: Nullable(Type.String()),
      location: Nullable(Type.String()),
      language: Nullable(Type.String()),
    }),
    identification: Type.Object(Object.fromEntries(IDENTIFICATION_FIELDS.map((f) => [f, Nullable(Type.String())]))),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Reservation', title: 'ReservationDetailsResponse' },
);

export const WriteQuery = Type.Object(
  {
    callback: Type.Optional(Type.String({ maxLength: 2048, description: 'URL that receives the screening result' })),
    sync: Type.Optional(QueryFlag),
    skip_gp: Type.Optional(QueryFlag),
  },
  { additionalProperties: false },
);

export const ReadQuery = Type.Object(
  {
    pms: Type.Optional(Type.String({ minLength: 1, description: 'when given, the path id is a confirmation code' })),
    usepmsid: Type.Optional(QueryFlag),
  },
  { additionalProperties: false },
);

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const DATE_FIELDS = ['check_in_date', 'check_out_date', 'created_at', 'updated_at'] as const;

export const SearchQuery = Type.Object(
  {
    ...Pagination,
    status: Type.Optional(StringEnum([...BOOKING_STATUSES, 'any'] as const)),
    search: Type.Optional(Type.String({ maxLength: 200 })),
    listings: Type.Optional(Type.String({ maxLength: 4000, description: 'comma-separated listing ids' })),
    guestportal_completed: Type.Optional(StringEnum(['true', 'false'] as const)),
    active: Type.Optional(StringEnum(['1', '0'] as const, { description: '1: check-out today or later; 0: before today' })),
    pending_review: Type.Optional(StringEnum(['true', 'false'] as const)),
    risk_color: Type.Optional(StringEnum(RISK_COLORS, { description: "beyond the spec: the latest verdict's risk colour" })),
    emails: Type.Optional(Type.String({ maxLength: 4000, description: 'comma-separated guest e-mails' })),
    source: Type.Optional(Type.String({ maxLength: 100 })),
    startDate: Type.Optional(Day),
    endDate: Type.Optional(Day),
    dateField: Type.Optional(StringEnum(DATE_FIELDS)),
  },
  { additionalProperties: false },
);

export type SearchInput = Static<typeof SearchQuery>;

export const ReservationList = Type.Object(
  {
    from: Type.Integer(),
    size: Type.Integer(),
    total: Type.Integer(),
    items: Type.Array(Type.Ref('Reservation')),
  },
  { title: 'ReservationPage' },
);

export { EVENT_STATUSES, EVENT_TYPES, PaymentEventBody, type PaymentEvent } from '../screening/index.js';

/** The spec's ReservationPaymentsResponse. */
const Paid = { currency: Type.String(), amount: Type.Number(), receipt_url: Type.String(), timestamp: Type.String() };

export const PaymentsResponse = Type.Object(
  {
    security_deposit: Type.Object({
      successful_authorizations: Type.Array(Type.Object({ ...Paid, card_brand: Type.String() })),
      charge_failures: Type.Array(Type.Object({ message: Type.String(), timestamp: Type.String() })),
      refunds: Type.Array(Type.Object(Paid)),
      deposit_captures: Type.Array(Type.Object({ ...Paid, card_brand: Type.String() })),
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
    damage_waiver: Type.Object(Paid),
    extra_services: Type.Object({
      amount: Type.Number(),
      receipt_url: Type.String(),
      products: Type.Array(Type.Object({ name: Type.String(), price: Type.Number() })),
    }),
  },
  { title: 'Payments' },
);
